// Node topology from sysfs, like `nvidia-smi topo -m`: the GPUs and NICs of this node, the
// NIC <-> ibdev <-> netdev mapping, the PCIe relation of every pair (X, PIX, PXB, PHB, NODE,
// SYS), CPU/NUMA affinity and the PCIe link state of each device and switch uplink.
// NVLink counts come from NVML, which this first cut does not load: the model has the slot
// for them (Relation::nvlink_links) and says why it is empty (TopologyReport::nvlink).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"
#include "core/fs_root.h"
#include "core/progress.h"
#include "core/result.h"
#include "probes/pci.h"
#include "probes/pcie_path.h"

namespace fabdiag {

/// The kinds of devices in the matrix.
enum class TopoKind { kGpu, kNic };
/// "gpu", "nic".
const char* to_string(TopoKind kind);

/// One GPU or NIC of the matrix.
struct TopoDevice {
  std::string name;  ///< "GPU0".."GPUn" (GPUs by BDF), then "NIC0".."NICn" (NICs by BDF).
  TopoKind kind = TopoKind::kGpu;
  PciDevice pci;
  PciePath path;     ///< Parsed pci.sysfs_path; device empty when the path is unknown.
  /// RDMA device of a NIC, from class/infiniband/*/device and bus/pci/devices/<bdf>/infiniband/.
  std::optional<std::string> ibdev;
  /// Network interfaces of a NIC (natural order), from class/net/*/device and
  /// bus/pci/devices/<bdf>/net/.
  std::vector<std::string> netdevs;
  /// The port directly above the device (the switch downstream port or root port); "" when the
  /// device hangs off the host bridge. Its max_link_* limit the link as much as the device's.
  std::string parent_bdf;
  std::optional<double> parent_max_speed_gts;  ///< parent's max_link_speed, GT/s.
  std::optional<int> parent_max_width;         ///< parent's max_link_width, lanes.
};

/// The link between a PCIe switch's upstream port and the port above it (a root port or a
/// downstream port of a higher switch). Only switches on the path of a GPU or NIC are listed.
struct SwitchUplink {
  PciDevice upstream_port;                     ///< Its link attributes describe the uplink.
  std::string parent_bdf;                      ///< The port above.
  std::optional<double> parent_max_speed_gts;  ///< GT/s.
  std::optional<int> parent_max_width;         ///< lanes.
};

/// One cell of the matrix. `pcie` is always derived; `nvlink_links` overrides it when set.
struct Relation {
  PcieLevel pcie = PcieLevel::kUnknown;
  /// Active NVLinks between two GPUs (NVML fills it; links to NVSwitch on switch systems).
  /// Empty = not known. Shown as "NV<n>" instead of the PCIe level when set and > 0.
  std::optional<int> nvlink_links;
};

/// The cell text: "NV<n>" when nvlink_links > 0, else to_string(pcie).
std::string relation_code(const Relation& r);

/// Whether NVLink information is present, and why not.
struct NvlinkState {
  bool known = false;
  std::string reason = "NVML not loaded";  ///< Why not known; "" when known.
};

/// Everything `fabdiag topo` reports for one node.
struct TopologyReport {
  std::vector<TopoDevice> devices;             ///< GPUs by BDF, then NICs by BDF.
  std::vector<std::vector<Relation>> matrix;   ///< matrix[i][j], devices.size() squared.
  std::vector<SwitchUplink> uplinks;           ///< Switch uplinks on GPU/NIC paths, by BDF.
  NvlinkState nvlink;
  std::vector<Finding> findings;               ///< PCIe link findings (probes/pcie_link_rules.h).
  std::vector<Error> gaps;                     ///< What could not be read; the rest is valid.
};

/// Reads the node's topology through `fs`: every function in bus/pci/devices (SR-IOV virtual
/// functions skipped), GPUs (NVIDIA class 0x0300/0x0302) and NICs (class 0x0200/0x0207),
/// their parent ports and switch uplinks, the class/infiniband and class/net maps, the
/// relation matrix and the PCIe link findings. Never fails: a missing bus/pci/devices or an
/// unreadable attribute becomes a gap and the rest is still returned. Cost: a few hundred small
/// sysfs reads; no device is opened.
TopologyReport discover_topology(const FsRoot& fs, const Progress& progress = no_progress());

/// Sets the NVLink count of the GPU pair (i, j) and (j, i) (for the NVML adapter).
/// Precondition: i and j index `report.devices`.
void set_nvlink_links(TopologyReport& report, size_t i, size_t j, int links);

/// Builds the matrix from devices (derive_pcie_level for every pair). Exposed for tests.
std::vector<std::vector<Relation>> build_relation_matrix(const std::vector<TopoDevice>& devices);

}  // namespace fabdiag
