// Node topology from sysfs, like `nvidia-smi topo -m`: the GPUs and NICs of this node, the
// NIC <-> ibdev <-> netdev mapping, the PCIe relation of every pair (X, PIX, PXB, PHB, NODE,
// SYS), CPU/NUMA affinity, the PCIe link state of each device and switch uplink, and the
// state and rate of each RDMA port. NVLink counts come from NVML (probes/topo/nvlink_topology.h
// applies a GpuInventory to the report); without it the report says why NVLink is unknown
// (TopologyReport::nvlink). A report can also come from a saved `nvidia-smi topo -m`
// (import/nvsmi_topo.h), with no PCI details and possibly missing rows.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"
#include "core/fs_root.h"
#include "core/progress.h"
#include "core/result.h"
#include "probes/topo/gpu_inventory.h"
#include "probes/topo/pci.h"
#include "probes/topo/pcie_link.h"
#include "probes/topo/pcie_path.h"

namespace fabdiag {

/// The kinds of devices in the matrix.
enum class TopoKind { kGpu, kNic };
/// "gpu", "nic".
const char* to_string(TopoKind kind);

/// One port of a NIC's RDMA device: class/infiniband/<ibdev>/ports/<port>/{state,phys_state,
/// rate,link_layer} as the kernel prints them (docs/domain.md#rdma-port-attributes).
/// "" = file absent.
struct RdmaPort {
  int port = 1;                  ///< 1-based port number.
  std::string state;             ///< "4: ACTIVE".
  std::string phys_state;        ///< "5: LinkUp".
  std::string rate;              ///< "400 Gb/sec (4X NDR)".
  std::optional<double> rate_bits_per_s;  ///< Leading number of `rate` x 1e9; nullopt unknown.
  std::string link_layer;        ///< "InfiniBand" or "Ethernet".
};

/// One GPU or NIC of the matrix.
struct TopoDevice {
  /// "GPU0".."GPUn" (GPUs by BDF, which is NVML's default order), then "NIC0".."NICn" (NICs
  /// with an RDMA device in natural ibdev order, mlx5_2 < mlx5_10, as nvidia-smi numbers them;
  /// then NICs without one, by BDF).
  std::string name;
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
  /// NICs: usable by NCCL's IB/RoCE transport (has an RDMA device; every NIC column of an
  /// imported nvidia-smi matrix). Only these count for rails (probes/topo/rails.h).
  bool rdma = false;
  /// Ports of `ibdev`, by port number (NICs with an RDMA device only).
  std::vector<RdmaPort> ports;
  /// GPUs: what NVML says about this GPU (name, UUID, NVLinks); nullopt without NVML.
  std::optional<GpuInfo> nvml;
  /// GPUs: NUMA node of the GPU's own memory (nvidia-smi's "GPU NUMA ID", set on coherent
  /// CPU-GPU systems); nullopt = N/A or not known (fabdiag does not query it from NVML).
  std::optional<int> gpu_numa_id;
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
  /// The cell is not known at all: an imported matrix whose row was cut off or truncated.
  /// Such cells are never derived from the symmetric cell (JSON: null).
  bool missing = false;
};

/// The cell text: "-" when missing, "NV<n>" when nvlink_links > 0, else to_string(pcie).
std::string relation_code(const Relation& r);

/// Whether NVLink information is present, and why not.
struct NvlinkState {
  bool known = false;
  std::string reason = "NVML not loaded";  ///< Why not known; "" when known.
  std::string source;  ///< What told us when known: "NVML libnvidia-ml.so.1, driver 550.54.15".
};

/// Everything `fabdiag topo` reports for one node.
struct TopologyReport {
  std::vector<TopoDevice> devices;             ///< GPUs by BDF, then NICs by BDF.
  std::vector<std::vector<Relation>> matrix;   ///< matrix[i][j], devices.size() squared.
  std::vector<SwitchUplink> uplinks;           ///< Switch uplinks on GPU/NIC paths, by BDF.
  NvlinkState nvlink;
  std::vector<Finding> findings;               ///< PCIe link findings, added by judge_topology_pcie_links() (rules/pcie_link_rules.h).
  std::vector<Error> gaps;                     ///< What could not be read; the rest is valid.
};

/// Reads the node's topology through `fs`: every function in bus/pci/devices (SR-IOV virtual
/// functions skipped), GPUs (NVIDIA class 0x0300/0x0302) and NICs (class 0x0200/0x0207),
/// their parent ports and switch uplinks, the class/infiniband and class/net maps, RDMA port
/// state and rate, the relation matrix and the PCIe link findings. NVLink stays unknown
/// (apply_gpu_inventory adds it). Never fails: a missing bus/pci/devices or an
/// unreadable attribute becomes a gap and the rest is still returned. Cost: a few hundred small
/// sysfs reads; no device is opened.
TopologyReport discover_topology(const FsRoot& fs, const Progress& progress = no_progress());

/// The PCIe links to judge on a node: every GPU and NIC (against its parent port) and every
/// switch uplink, as inputs of judge_pcie_link() (rules/pcie_link_rules.h). Used by
/// discover_topology for its findings and by `check`.
std::vector<PcieLinkSubject> pcie_link_subjects(const TopologyReport& topo);

/// Sets the NVLink count of the GPU pair (i, j) and (j, i) (for the NVML adapter).
/// Precondition: i and j index `report.devices`.
void set_nvlink_links(TopologyReport& report, size_t i, size_t j, int links);

/// Builds the matrix from devices (derive_pcie_level for every pair). Exposed for tests.
std::vector<std::vector<Relation>> build_relation_matrix(const std::vector<TopoDevice>& devices);

}  // namespace fabdiag
