// The JSON contract of `fabdiag topo` (envelope schema "fabdiag.topo/1", its `data` member).
// Later work (NVML NVLink, rails, `check`, baseline drift) reads this shape; extend it only by
// adding members.
//
// data = {
//   devices: [ {                      // matrix order: GPU0.., then NIC0..
//     name: "GPU0", kind: "gpu"|"nic", pci_bdf: "0000:18:00.0",
//     numa_node: int (-1 unknown), cpu_affinity: "0-31,64-95" ("" unknown),
//     pci_vendor_id: "0x10de"|null, pci_device_id: "0x2330"|null, driver: "nvidia"|null,
//     sysfs_path: "devices/pci0000:15/.../0000:18:00.0"|null,
//     ibdev: "mlx5_0"|null, netdev: ["ibp25s0"],          // NICs only
//     pcie: { current_speed_gts, max_speed_gts,          // GT/s per lane, null unknown
//             current_width, max_width,                  // lanes, null unknown
//             parent_bdf, parent_max_speed_gts, parent_max_width } } ],
//   matrix: [["X","PIX",...], ...],   // matrix[i][j] relation of devices[i] and devices[j]
//   legend: { "X": "...", "SYS": "...", ..., "NV#": "..." },
//   nvlink: { state: "unknown"|"known", reason: "NVML not loaded" },
//   pcie_uplinks: [ { pci_bdf, parent_bdf, current_speed_gts, max_speed_gts, current_width,
//                     max_width, parent_max_speed_gts, parent_max_width } ] }
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "probes/topology.h"

namespace fabdiag {

/// Schema name of the topo envelope.
inline constexpr const char* kTopoSchema = "fabdiag.topo/1";

/// Matrix legend in display order: (code, meaning), as nvidia-smi topo -m explains them.
const std::vector<std::pair<std::string, std::string>>& topology_legend();

/// The `data` member described above.
nlohmann::json topology_to_json(const TopologyReport& report);

}  // namespace fabdiag
