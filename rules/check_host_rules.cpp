#include "rules/check_host_rules.h"

#include <map>
#include <set>

#include "core/text.h"

namespace fabdiag {

namespace {

bool has_token(const std::string& cmdline, const std::string& token) {
  for (const auto& t : split_ws(cmdline))
    if (t == token) return true;
  return false;
}

}  // namespace

void parse_nvidia_version(std::string_view text, GdrFacts& gdr) {
  std::string t(text);
  auto module = t.find("Kernel Module");
  if (module == std::string::npos) return;
  gdr.nvidia_open_module = t.find("Open Kernel Module") != std::string::npos;
  for (const auto& tok : split_ws(std::string_view(t).substr(module))) {
    auto dot = tok.find('.');
    if (dot == std::string::npos || dot == 0) continue;
    if (auto major = parse_u64(tok.substr(0, dot)); major && *major < 10000) {
      gdr.nvidia_driver_major = static_cast<int>(*major);
      return;
    }
  }
}

std::optional<bool> kernel_at_least(const std::string& release, int major, int minor) {
  auto parts = split(release, '.');
  if (parts.size() < 2) return std::nullopt;
  auto ma = parse_u64(parts[0]);
  std::string mi_digits;
  for (char c : parts[1]) {
    if (c < '0' || c > '9') break;
    mi_digits.push_back(c);
  }
  auto mi = parse_u64(mi_digits);
  if (!ma || !mi) return std::nullopt;
  return *ma > static_cast<uint64_t>(major) || (*ma == static_cast<uint64_t>(major) && *mi >= static_cast<uint64_t>(minor));
}

std::vector<Finding> gdr_findings(const GdrFacts& g) {
  std::vector<Finding> out;
  if (g.gpus == 0 || g.rdma_nics == 0 || !g.peermem_found.empty()) return out;
  // Tri-state facts as two plain bools each (known, value): GCC 12 at -O2 warns that an
  // std::optional<bool> "may be used uninitialized" here.
  std::optional<bool> kernel_opt = g.kernel_release.empty() ? std::nullopt : kernel_at_least(g.kernel_release, 5, 12);
  const bool kernel_known = kernel_opt.has_value(), kernel_ok = kernel_known && *kernel_opt;
  const bool driver_known = g.nvidia_driver_major.has_value();
  const bool driver_ok = driver_known && *g.nvidia_driver_major >= 515;
  const bool open_known = g.nvidia_open_module.has_value(), open_ok = open_known && *g.nvidia_open_module;
  bool capable = open_ok && driver_ok && kernel_ok;
  bool impossible = (open_known && !open_ok) || (driver_known && !driver_ok) || (kernel_known && !kernel_ok);

  Finding f;
  f.layer = Layer::kPhysical;
  f.subject = "host";
  f.evidence.push_back(Evidence::text("peer-memory module (nvidia_peermem / nv_peer_mem)", "not loaded",
                                      join(g.peermem_checked))
                           .expect("loaded"));
  std::string module = !g.nvidia_open_module ? "unknown"
                       : *g.nvidia_open_module ? "open kernel module"
                                               : "proprietary kernel module";
  if (g.nvidia_driver_major) module += ", driver " + std::to_string(*g.nvidia_driver_major);
  f.evidence.push_back(Evidence::text("NVIDIA kernel module", module, "/proc/driver/nvidia/version")
                           .expect("open kernel module, driver >= 515 (for DMA-BUF)"));
  f.evidence.push_back(Evidence::text("kernel release", g.kernel_release.empty() ? "unknown" : g.kernel_release,
                                      "/proc/sys/kernel/osrelease")
                           .expect(">= 5.12 (for DMA-BUF)"));
  std::string what = std::to_string(g.gpus) + " GPU(s) and " + std::to_string(g.rdma_nics) + " RDMA NIC(s)";
  if (capable) {
    f.severity = Severity::kInfo;
    f.code = "gdr_via_dmabuf";
    f.message = "nvidia_peermem is not loaded; GPUDirect RDMA between the " + what +
                " can still work through DMA-BUF (open NVIDIA kernel module, kernel >= 5.12)";
    f.action = "Check that NCCL logs \"DMA-BUF is available\" and \"GPU Direct RDMA Enabled\"; it also "
               "needs rdma-core >= 34. Otherwise load nvidia_peermem (modprobe nvidia_peermem).";
  } else if (impossible) {
    f.severity = Severity::kError;
    f.code = "gdr_unavailable";
    f.message = "GPUDirect RDMA is not available on this host with " + what +
                ": the peer-memory module nvidia_peermem is not loaded and DMA-BUF is not possible (" +
                module + ", kernel " + (g.kernel_release.empty() ? "unknown" : g.kernel_release) +
                "), so NCCL stages GPU traffic through host memory";
    f.action = "Load the module (modprobe nvidia_peermem, and add it to /etc/modules-load.d), or use "
               "the open NVIDIA kernel module (R515+) on kernel >= 5.12 for DMA-BUF; then check that "
               "NCCL logs \"GPU Direct RDMA Enabled\".";
  } else {
    f.severity = Severity::kWarn;
    f.code = "gdr_unconfirmed";
    f.message = "nvidia_peermem is not loaded and DMA-BUF support could not be confirmed (" + module +
                ", kernel " + (g.kernel_release.empty() ? "unknown" : g.kernel_release) +
                "): GPUDirect RDMA between the " + what + " may be off";
    f.action = "Check NCCL_DEBUG=INFO output for \"GPU Direct RDMA Enabled\" / \"DMA-BUF is available\"; "
               "if it is disabled, modprobe nvidia_peermem.";
  }
  out.push_back(std::move(f));
  return out;
}

const char* to_string(IommuMode m) {
  switch (m) {
    case IommuMode::kOff: return "off";
    case IommuMode::kPassthrough: return "passthrough";
    case IommuMode::kTranslated: return "translated";
    case IommuMode::kUnknown: return "unknown";
  }
  return "unknown";
}

IommuMode iommu_mode(const IommuFacts& f) {
  if (!f.device_domains.empty()) {
    bool translated = false, identity = false;
    for (const auto& [label, type] : f.device_domains) {
      if (type == "DMA" || type == "DMA-FQ") translated = true;
      else if (type == "identity") identity = true;
    }
    if (translated) return IommuMode::kTranslated;
    if (identity) return IommuMode::kPassthrough;
  }
  if (f.units.empty()) return IommuMode::kOff;
  if (!f.cmdline) return IommuMode::kUnknown;
  const std::string& c = *f.cmdline;
  if (has_token(c, "iommu=pt") || has_token(c, "iommu.passthrough=1") || has_token(c, "amd_iommu=pt"))
    return IommuMode::kPassthrough;
  if (has_token(c, "iommu=off") || has_token(c, "intel_iommu=off") || has_token(c, "amd_iommu=off"))
    return IommuMode::kOff;
  return IommuMode::kTranslated;
}

std::vector<Finding> iommu_findings(const IommuFacts& f) {
  std::vector<Finding> out;
  IommuMode mode = iommu_mode(f);
  if (mode == IommuMode::kOff || mode == IommuMode::kPassthrough) return out;
  Finding fd;
  fd.layer = Layer::kPhysical;
  fd.subject = "host";
  fd.evidence.push_back(Evidence::text("IOMMU units", f.units.empty() ? "none" : join(f.units), "/sys/class/iommu"));
  fd.evidence.push_back(Evidence::text("kernel command line", f.cmdline ? *f.cmdline : "unreadable", "/proc/cmdline")
                            .expect("iommu=pt (passthrough) on bare metal"));
  std::vector<std::string> translated;
  for (const auto& [label, type] : f.device_domains) {
    if (type != "DMA" && type != "DMA-FQ") continue;
    translated.push_back(label);
    fd.evidence.push_back(Evidence::text("IOMMU default domain of " + label, type, "iommu_group/type").expect("identity"));
  }
  if (mode == IommuMode::kTranslated) {
    fd.severity = Severity::kWarn;
    fd.code = "iommu_translated";
    fd.message = std::string("the IOMMU translates device DMA") +
                 (translated.empty() ? "" : " of " + join(translated)) +
                 " (not passthrough): GPUDirect P2P and RDMA traffic is remapped, which costs "
                 "bandwidth and can fail with IBV_WC_LOC_PROT_ERR";
    fd.action = "On bare metal boot with iommu=pt (intel_iommu=on iommu=pt, or amd_iommu=on "
                "iommu=pt) or turn the IOMMU off; inside a VM this is expected.";
  } else {
    fd.severity = Severity::kInfo;
    fd.code = "iommu_unknown";
    fd.message = "an IOMMU is present but its mode is unknown (the kernel command line could not be read)";
    fd.action = "Check /proc/cmdline for iommu=pt, or /sys/kernel/iommu_groups/*/type for identity.";
  }
  out.push_back(std::move(fd));
  return out;
}

std::vector<Finding> wc_error_findings(const std::vector<WcError>& errors) {
  std::vector<Finding> out;
  std::map<int, std::vector<const WcError*>> by_status;
  for (const auto& w : errors) by_status[w.status].push_back(&w);
  for (const auto& [status, list] : by_status) {
    const WcError& first = *list.front();
    std::set<std::string> hcas;
    for (const auto* w : list)
      if (!w->hca.empty()) hcas.insert(w->hca);
    Finding f;
    f.layer = Layer::kTransport;
    f.code = "rdma_completion_error";
    f.subject = hcas.empty() ? "NCCL" : join(std::vector<std::string>(hcas.begin(), hcas.end()));
    std::string name = wc_status_name(status);
    std::string head = "NCCL reported " + std::to_string(list.size()) + " work completion error(s) with status " +
                       std::to_string(status) + (name.empty() ? "" : " (IBV_WC_" + name + ")");
    if (first.opcode) head += ", opcode " + std::to_string(*first.opcode);
    if (first.len_bytes) head += ", len " + std::to_string(*first.len_bytes);
    if (first.vendor_err) head += ", vendor err " + std::to_string(*first.vendor_err);
    f.severity = Severity::kError;
    if (status == 4) {
      f.message = head + ": a local protection error (the NIC was refused access to the registered "
                         "memory), not packet loss or a retry timeout (that is status 12); with GPUDirect "
                         "RDMA the usual cause is ACS redirect or a translating IOMMU";
      f.action = "Check ACS on the PCIe ports between the GPUs and NICs and the IOMMU mode (fabdiag check "
                 "as root); as a stopgap run with NCCL_NET_GDR_LEVEL=LOC.";
    } else if (status == 12) {
      f.message = head + ": transport retries exceeded (packet loss, a dead link or a peer that went away)";
      f.action = "Check port state and loss counters on both ends (fabdiag counters --interval) and NCCL_IB_TIMEOUT.";
    } else if (status == 5) {
      f.severity = Severity::kWarn;
      f.message = head + ": work requests flushed after an earlier error on the queue pair";
      f.action = "Look for the first error before these flushes; it is the cause.";
    } else {
      f.message = head;
      f.action = "Look up the status in ibv_wc_status (libibverbs verbs.h) and check the HCA's port and counters.";
    }
    for (const auto* w : list)
      f.evidence.push_back(Evidence::text("work completion status " + std::to_string(w->status), w->line, w->source));
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace fabdiag
