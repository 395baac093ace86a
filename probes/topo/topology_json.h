// The JSON contract of `fabdiag topo` (envelope schema "fabdiag.topo/1", its `data` member).
// Later work (NVML NVLink, rails, `check`, baseline drift) reads this shape; extend it only by
// adding members.
//
// data = {
//   devices: [ {                      // matrix order: GPU0.., then NIC0..
//     name: "GPU0", kind: "gpu"|"nic", pci_bdf: "0000:18:00.0"|null (imported: unknown),
//     numa_node: int (-1 unknown), cpu_affinity: "0-31,64-95" ("" unknown),
//     pci_vendor_id: "0x10de"|null, pci_device_id: "0x2330"|null, driver: "nvidia"|null,
//     sysfs_path: "devices/pci0000:15/.../0000:18:00.0"|null,
//     ibdev: "mlx5_0"|null, netdev: ["ibp25s0"],          // NICs only
//     rdma: bool,                                          // NICs only: counts for rails
//     ports: [ { port: 1, state: "4: ACTIVE", phys_state: "5: LinkUp",   // NICs only
//                rate: "400 Gb/sec (4X NDR)", rate_bits_per_s: 4e11|null,
//                link_layer: "InfiniBand" } ],
//     gpu_numa_id: int|null,                               // GPUs only ("GPU NUMA ID")
//     nvml: null | { index, name, uuid, active_links,      // GPUs only, when NVML answered
//                    nvlinks: [ { link, active, remote: "gpu"|"switch"|"ibmnpu"|"unknown",
//                                 remote_pci_bdf: "0000:3b:00.0"|null } ] },
//     pcie: { current_speed_gts, max_speed_gts,          // GT/s per lane, null unknown
//             current_width, max_width,                  // lanes, null unknown
//             parent_bdf, parent_max_speed_gts, parent_max_width } } ],
//   matrix: [["X","PIX",...], ...],   // matrix[i][j] relation of devices[i] and devices[j];
//                                     // null = not in the input (imported matrix cut off)
//   legend: { "X": "...", "SYS": "...", ..., "NV#": "..." },
//   nic_legend: { "NIC0": "mlx5_0", ... },   // NICs with an RDMA device
//   nvlink: { state: "unknown"|"known", reason: "NVML not loaded", source: "NVML ..."|"" },
//   pcie_uplinks: [ { pci_bdf, parent_bdf, current_speed_gts, max_speed_gts, current_width,
//                     max_width, parent_max_speed_gts, parent_max_width } ] }
// topo_envelope() adds data.rails (probes/topo/rails.h); cmd/topo adds, with --against,
// data.drift (probes/topo/topology_drift.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/envelope.h"
#include "core/finding.h"
#include "probes/topo/rails.h"
#include "probes/topo/topology.h"

namespace fabdiag {

/// Schema name of the topo envelope.
inline constexpr const char* kTopoSchema = "fabdiag.topo/1";

/// Matrix legend in display order: (code, meaning), as nvidia-smi topo -m explains them.
const std::vector<std::pair<std::string, std::string>>& topology_legend();

/// The `data` member described above.
nlohmann::json topology_to_json(const TopologyReport& report);

/// The fabdiag.topo/1 envelope of a report, the one builder for every producer (`fabdiag topo`,
/// `fabdiag import nvidia-smi-topo`): data = topology_to_json(report) plus data.rails =
/// rails_to_json(rails); findings = report.findings, then `more_findings` in their order;
/// errors = report.gaps. params, hosts and the timing stay as make_envelope() (core/envelope.h)
/// leaves them, for the caller.
Envelope topo_envelope(const TopologyReport& report, const Rails& rails,
                       const std::vector<Finding>& more_findings);

}  // namespace fabdiag
