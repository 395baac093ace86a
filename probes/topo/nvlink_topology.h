// NVLink in the topology matrix: how many bonded NVLinks join two GPUs (the "NV<n>" of
// `nvidia-smi topo -m`), computed from a GpuInventory, and how an inventory is merged into a
// sysfs TopologyReport.
//
// The rule (docs/domain.md#nvlink-peers; NVML's nvmlDeviceGetNvLinkRemoteDeviceType
// and nvmlDeviceGetNvLinkRemotePciInfo_v2):
//   direct(a, b) = active links of a whose far end is the GPU b, counted from both ends and
//                  taken as the smaller count (a link works only when both ends say it is up);
//   switch(a, b) = min(active links of a to an NVSwitch, active links of b to an NVSwitch) when
//                  both have at least one: through NVSwitch every GPU of the baseboard is a peer
//                  of every other, and a pair can use at most the links of its weaker GPU;
//   NV(a, b)     = direct(a, b) + switch(a, b); 0 = no NVLink (the cell keeps its PCIe level).
// So a healthy HGX H100 (18 links from each GPU to 4 NVSwitches) is NV18 everywhere, HGX A100
// (12 links to 6 NVSwitches) NV12, a 4-GPU HGX A100 board (4 direct links per pair) NV4, and a
// GPU with 2 switch links down shows NV16 to every peer.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "probes/topo/gpu_inventory.h"
#include "probes/topo/topology.h"

namespace fabdiag {

/// NV(a, b) for every GPU pair of the inventory with at least one link, keyed by the two PCI
/// bus ids (sysfs form) in ascending string order. Links with an unknown far end are not
/// counted.
std::map<std::pair<std::string, std::string>, int> nvlink_pair_links(const std::vector<GpuInfo>& gpus);

/// Active NVLinks of one GPU (any far end).
int active_nvlinks(const GpuInfo& gpu);

/// Merges `inv` into `report`:
///  - report.nvlink = known with inv.source, or unknown with inv.why_not;
///  - each NVML GPU is matched to the sysfs GPU with the same BDF (TopoDevice::nvml); an NVML
///    GPU sysfs does not show, or a sysfs GPU NVML does not list (lost by the driver?), is a gap;
///  - matrix cells of GPU pairs with NV(a, b) > 0 get nvlink_links;
///  - inv.gaps are appended to report.gaps.
/// When the inventory is unavailable and `require` is true (NVML was asked for explicitly, or
/// this is a live GPU node), its why_not is also a gap (kUnsupported) so the result is partial.
void apply_gpu_inventory(TopologyReport& report, const GpuInventory& inv, bool require);

/// Findings from the NVLink state alone, without a baseline: warn "nvlink_links_down" (layer
/// L4, subject = the GPU's BDF) for each GPU with fewer active NVLinks than the GPU with the
/// most on this node; the evidence names the active count, the peers' count and the link
/// indexes NVML lists as present but not active. Nothing when no GPU has an active link
/// (PCIe GPUs without bridges) or NVLink is unknown.
std::vector<Finding> judge_nvlinks(const TopologyReport& report);

}  // namespace fabdiag
