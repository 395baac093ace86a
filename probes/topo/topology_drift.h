// Drift: what changed in a node's topology since a saved `fabdiag topo --format json` result
// (the baseline). Compares two `data` members of fabdiag.topo/1 envelopes (probes/
// topology_json.h), so a baseline from another fabdiag version or an imported nvidia-smi
// matrix works as long as the members exist; what cannot be compared is listed, not guessed.
//
// Devices are paired by pci_bdf, or by name (GPU0, NIC0) when the baseline has no BDF (an
// imported `nvidia-smi topo -m`). Findings (layer L4):
//   error "topo_device_missing"          a GPU or NIC of the baseline is gone
//   info  "topo_device_added"            a GPU or NIC that the baseline did not have
//   error "nvlink_links_lost"            a GPU has fewer active NVLinks (per GPU from NVML),
//                                        or a GPU pair a lower NV# (when per-GPU data is absent)
//   warn  "topo_numa_node_changed"       a device moved to another NUMA node (socket)
//   error "pcie_width_below_baseline"    current_link_width narrower than in the baseline
//   warn  "pcie_speed_below_baseline"    current_link_speed slower (info for GPUs: they slow
//                                        their link when idle; re-check under load)
//   error "port_rate_below_baseline"     an RDMA port's rate lower than in the baseline
//   error "port_state_changed"           a port ACTIVE in the baseline is not now
//   warn  "topo_relation_changed"        a NIC's PCIe relation to a GPU got worse (info: better)
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/finding.h"
#include "core/result.h"

namespace fabdiag {

/// Result of a comparison.
struct TopologyDrift {
  std::vector<Finding> findings;
  /// What could not be compared and why ("port rates: the baseline has none").
  std::vector<std::string> not_checked;
  size_t devices_compared = 0;  ///< Devices present on both sides.
};

/// Compares `baseline` with `current` (both the `data` of a fabdiag.topo/1 envelope).
/// `baseline_source` names the baseline file in evidence. Errors: kParse when either side has
/// no devices array or a member of the wrong type.
Result<TopologyDrift> diff_topology(const nlohmann::json& baseline, const nlohmann::json& current,
                                    const std::string& baseline_source);

/// data.drift: { baseline: FILE, devices_compared, changes: <number of findings>,
///               not_checked: [] }.
nlohmann::json drift_to_json(const TopologyDrift& drift, const std::string& baseline_source);

}  // namespace fabdiag
