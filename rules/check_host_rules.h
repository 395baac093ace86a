// Host software rules of `fabdiag check`: GPUDirect RDMA readiness (peer-memory module or
// DMA-BUF), IOMMU mode, and the NCCL work-completion errors found in saved logs. Each rule is a
// function over the small structs of probes/check/check_model.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"
#include "probes/check/check_model.h"

namespace fabdiag {

/// Parses /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64
/// 550.54.15 ..." or "... x86_64 Kernel Module  535.104.05 ..."): sets open_module and
/// driver_major in `gdr` (left empty when the text does not say).
void parse_nvidia_version(std::string_view text, GdrFacts& gdr);

/// True when `release` ("5.15.0-105-generic") is at least major.minor; nullopt if unparsable.
std::optional<bool> kernel_at_least(const std::string& release, int major, int minor);

/// GPUDirect RDMA readiness (layer L4, subject "host"), only when the host has GPUs and RDMA
/// NICs (otherwise no finding). Peer memory found: nothing. Otherwise DMA-BUF is judged: open
/// NVIDIA kernel module, driver >= 515 and kernel >= 5.12 -> info "gdr_via_dmabuf"; any of them
/// known to be missing -> error "gdr_unavailable"; not known -> warn "gdr_unconfirmed".
std::vector<Finding> gdr_findings(const GdrFacts& gdr);

/// The IOMMU mode the facts show.
enum class IommuMode { kOff, kPassthrough, kTranslated, kUnknown };
/// "off", "passthrough", "translated", "unknown".
const char* to_string(IommuMode m);

/// Mode: from the GPU/NIC IOMMU groups' default domain type when known ("identity" =
/// passthrough, "DMA"/"DMA-FQ" = translated), else no class/iommu unit = off, else the kernel
/// command line (iommu=pt, iommu.passthrough=1 = passthrough; intel_iommu=off, amd_iommu=off,
/// iommu=off = off; otherwise translated); unknown without a command line.
IommuMode iommu_mode(const IommuFacts& f);

/// IOMMU findings (layer L4, subject "host"): translated -> warn "iommu_translated" (GPUDirect
/// P2P/RDMA DMA is remapped; use iommu=pt on bare metal); unknown -> info "iommu_unknown";
/// off or passthrough -> none.
std::vector<Finding> iommu_findings(const IommuFacts& f);

/// One finding per distinct completion status NCCL reported (layer L3, subject the HCA or
/// "NCCL"): 4 LOC_PROT_ERR = local protection (ACS/IOMMU with GPUDirect RDMA), explicitly not
/// packet loss; 12 RETRY_EXC_ERR = loss, dead link or peer gone; 5 WR_FLUSH_ERR = consequence of
/// an earlier error (warn); everything else error.
std::vector<Finding> wc_error_findings(const std::vector<WcError>& errors);

}  // namespace fabdiag
