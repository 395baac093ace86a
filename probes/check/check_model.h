// The facts `fabdiag check` judges: one host's data path (PCIe links, ACS, AER, GPUDirect RDMA
// module, IOMMU mode, RDMA ports, counters, NCCL completion errors). Filled from sysfs
// (collect/check_sysfs.h) or from saved tool outputs (probes/import_*.h); the rules
// (probes/check_*_rules.h) read only this model, so both sources get the same verdicts.
// A std::optional member that is empty means "this source says nothing about it" (an lspci
// listing has no RDMA ports): the check is reported as not checked, never as passed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/result.h"
#include "probes/counters/counter_delta.h"
#include "probes/topo/pci_config.h"
#include "probes/topo/pcie_link.h"

namespace fabdiag {

/// ACS state of one PCI port (a bridge above a GPU or NIC, or an ACSCtl line of a listing).
struct AcsPort {
  std::string bdf;     ///< "0000:17:01.0"; empty when the listing has no addresses (case 008).
  std::string label;   ///< "switch downstream port 0000:17:01.0", "ACSCtl line 3 of FILE".
  AcsStatus status = AcsStatus::kUnreadable;
  uint16_t control = 0;        ///< ACS Control register (valid when status == kRead).
  bool position_known = false; ///< True when we know which GPUs/NICs sit below the port.
  std::vector<std::string> below;  ///< GPUs/NICs below ("GPU0", "NIC0 (mlx5_0)"), when known.
  std::string source;  ///< "/sys/bus/pci/devices/<bdf>/config" or "FILE line N".
  std::string detail;  ///< Why it could not be read (status kUnreadable), else "".
};

/// The AER counters of one function: aer_dev_correctable, aer_dev_fatal, aer_dev_nonfatal.
struct AerGroup {
  bool present = false;              ///< The file was read.
  std::optional<uint64_t> total;     ///< TOTAL_ERR_* line, else the sum of the named lines.
  std::vector<std::pair<std::string, uint64_t>> nonzero;  ///< Named counts > 0 ("BadTLP", 3).
  std::string source;                ///< Physical path of the file.
};
struct AerSubject {
  std::string bdf;    ///< "0000:9c:00.0".
  std::string label;  ///< "GPU3", "NIC1 (mlx5_1)", "switch downstream port 0000:99:02.0".
  AerGroup correctable, fatal, nonfatal;
};

/// What decides whether GPUDirect RDMA can work on this host (docs/domain.md#gpudirect-rdma).
struct GdrFacts {
  int gpus = 0;       ///< NVIDIA GPUs found.
  int rdma_nics = 0;  ///< NICs with an RDMA device.
  /// Peer-memory evidence found: "/sys/module/nvidia_peermem", "/proc/modules: nvidia_peermem",
  /// "/sys/kernel/mm/memory_peers/nv_mem/version", ...
  std::vector<std::string> peermem_found;
  std::vector<std::string> peermem_checked;  ///< Every place looked at (for the message).
  /// From /proc/driver/nvidia/version: "Open Kernel Module" (true) or not (false); nullopt = unknown.
  std::optional<bool> nvidia_open_module;
  std::optional<int> nvidia_driver_major;    ///< 550 of "550.54.15"; nullopt = unknown.
  std::string kernel_release;                ///< /proc/sys/kernel/osrelease; "" = unknown.
};

/// IOMMU mode evidence (docs/domain.md#iommu; judged as docs/thresholds.md#iommu says).
struct IommuFacts {
  std::vector<std::string> units;    ///< class/iommu entries ("dmar0", "ivhd0"); empty = none.
  std::optional<std::string> cmdline;  ///< /proc/cmdline; nullopt = unreadable.
  /// Default domain type of the IOMMU group of each GPU/NIC: (label, type) with type as
  /// bus/pci/devices/<bdf>/iommu_group/type prints it ("identity", "DMA", "DMA-FQ").
  std::vector<std::pair<std::string, std::string>> device_domains;
};

/// One RDMA port as sysfs, ibstat, ibstatus or ibv_devinfo show it. State strings are
/// normalized to the sysfs spelling ("4: ACTIVE", "2: Polling") so the same rules apply.
struct RdmaPortFacts {
  std::string device;      ///< "mlx5_0/1".
  std::string ibdev;       ///< "mlx5_0".
  int port = 1;
  std::string model;       ///< hca_type / "CA type" ("MT4129"); "" = unknown.
  std::string board_id;    ///< board_id (PSID) when known.
  std::string fw_ver;
  std::string link_layer;  ///< "InfiniBand" | "Ethernet"; "" = unknown.
  std::string state;       ///< Normalized "4: ACTIVE"; "" = unknown.
  std::string phys_state;  ///< Normalized "5: LinkUp"; "" = unknown.
  std::string rate;        ///< As printed: "400 Gb/sec (4X NDR)" (sysfs, ibstatus) or "400" (ibstat).
  std::optional<double> rate_gbps;  ///< Leading number of `rate`, Gb/s.
  std::string netdev;      ///< Paired netdev; "" = unknown.
  std::optional<int> netdev_mtu_bytes;   ///< class/net/<netdev>/mtu.
  std::optional<int> active_mtu_bytes;   ///< ibv_devinfo active_mtu; nullopt = not reported.
  /// RoCE v2 GIDs with a non-zero address (gids/<i> where gid_attrs/types/<i> = "RoCE v2").
  /// nullopt = the source does not list GIDs (ibstat, ibstatus, ibv_devinfo without -v).
  std::optional<std::vector<std::string>> rocev2_gids;
  std::string lid;         ///< "0x0"; shown, never judged (0 is normal on RoCE).
  std::string source;      ///< Sysfs port directory, or "FILE line N: CA 'mlx5_0' port 1".
  bool from_sysfs = false; ///< `source` is the port's sysfs directory (attribute files below it).
};

/// The PortInfo the counter rules read (rules/counter_rules.h), from a port's facts: device,
/// ibdev, port, netdev, link_layer, state, phys_state, rate; sysfs_dir = facts.source;
/// is_rdma = true. The inverse of rdma_port_facts() on the fields both models have.
PortInfo to_port_info(const RdmaPortFacts& p);

/// The facts of an RDMA port the counter reader found (probes/counters/sysfs_counters.h): the
/// fields of to_port_info() copied back (source = sysfs_dir) and rate_gbps parsed from `rate`.
/// The rest (model, firmware, MTUs, GIDs, lid, from_sysfs) is for the caller to fill.
RdmaPortFacts rdma_port_facts(const PortInfo& port);

/// A port a tool's listing names (ibstat, ibstatus, ibv_devinfo): ibdev, port, device
/// "<ibdev>/<port>" and `source` ("FILE line N: CA 'mlx5_0' port 1"); everything else unknown.
RdmaPortFacts listed_rdma_port(const std::string& ibdev, int port, std::string source);

/// Normalizes a port state as any of the tools print it ("Active", "4: ACTIVE",
/// "PORT_ACTIVE (4)", "Down") to the sysfs form "4: ACTIVE"; unknown text is returned trimmed.
std::string normalize_port_state(const std::string& text);
/// Same for the physical state ("LinkUp", "5: LinkUp", "LINK_UP (5)", "Polling") -> "5: LinkUp".
std::string normalize_phys_state(const std::string& text);

/// A work-completion error NCCL reported ("NET/IB : Got completion ... with error 4, opcode 0,
/// len 32694, vendor err 81", or "... with status=LOC_PROT_ERR(4) ...").
struct WcError {
  int status = 0;                  ///< ibv_wc_status value.
  std::optional<int> opcode;
  std::optional<uint64_t> len_bytes;
  std::optional<int> vendor_err;
  std::string hca;                 ///< "mlx5_0" when the line names it.
  std::string line;                ///< The line as read.
  std::string source;              ///< "FILE line N".
};
/// "LOC_PROT_ERR" for 4, ... (rdma-core libibverbs verbs.h ibv_wc_status); "" when unknown.
const char* wc_status_name(int status);
/// "transport retry counter exceeded" for 12, ...: rdma-core's ibv_wc_status_str() words
/// (libibverbs/enum_strs.c); "" when unknown.
const char* wc_status_meaning(int status);

/// Everything one check run judges.
struct HostFacts {
  std::string origin;  ///< "sysfs /sys", "files: a.txt, b.txt".
  std::optional<std::vector<PcieLinkSubject>> pcie_links;  ///< GPU/NIC links and switch uplinks.
  std::optional<std::vector<AcsPort>> acs_ports;
  std::optional<std::vector<AerSubject>> aer;
  std::optional<GdrFacts> gdr;
  std::optional<IommuFacts> iommu;
  std::optional<std::vector<RdmaPortFacts>> rdma_ports;
  std::optional<std::vector<CounterChange>> counters;  ///< One snapshot of RDMA port counters.
  std::vector<WcError> wc_errors;
  std::vector<Error> gaps;  ///< What could not be read or parsed; the rest is valid.
  /// Why a fact above is absent, by its JSON member name ("pcie_links", "acs_ports", "aer",
  /// "gdr", "iommu", "rdma_ports", "counters"): what was looked for and where ("/x/bus/pci/devices
  /// does not exist"). Filled by the sysfs reader (collect/check_sysfs.h) so that a check over a
  /// tree without that input says "not checked" with the path, never "pass".
  std::map<std::string, std::string> not_read;
};

/// HostFacts holding only `ports` (what ibstat, ibstatus and ibv_devinfo give), origin `origin`.
HostFacts facts_from_ports(std::vector<RdmaPortFacts> ports, std::string origin);

/// JSON form of the model (the `data.facts` of fabdiag.check/1 and fabdiag.hostfacts/1).
/// Absent optionals are null.
void to_json(nlohmann::json& j, const HostFacts& f);

}  // namespace fabdiag
