// `fabdiag gather`: copies the part of /sys that topo, check and counters read into a directory
// that works as --sysfs-root (a test fixture of a real node), with identifiers replaced.
//
// Copied (each read through FsRoot, so a capture of a capture works too):
//   bus/pci/devices/<bdf>       -> relative link to the function's devices/pci.../ directory,
//                                 with vendor, device, class, subsystem_*, revision, numa_node,
//                                 local_cpulist, local_cpus, current/max_link_speed/width,
//                                 aer_* counters, sriov_*, config (first 4096 bytes; unprivileged
//                                 reads give 64), and the driver, physfn and iommu_group links;
//   class/net/<if>              -> link, with address, mtu, type, operstate, carrier, speed,
//                                 duplex, ifindex, dev_port, statistics/*, and the device link;
//   class/infiniband/<ibdev>    -> link, with node_type, node_guid, sys_image_guid, fw_ver,
//                                 hca_type, board_id, hw_rev, node_desc, device link, and per
//                                 port state, phys_state, rate, link_layer, lid, sm_lid,
//                                 lid_mask_count, sm_sl, cap_mask, gids/*, gid_attrs/{types,
//                                 ndevs}/*, pkeys/*, counters/*, hw_counters/* (and device-level
//                                 hw_counters/*);
//   class/iommu/*, devices/system/{node,cpu} online lists and cpulists,
//   module/{nvidia,nvidia_peermem,nv_peer_mem,mlx5_core,mlx5_ib,ib_core}/version and
//   kernel/mm/memory_peers/*/version (GPUDirect RDMA modules).
// Every link is recreated as a RELATIVE link so the tree resolves inside itself.
//
// Anonymised with stable placeholders (same input -> same placeholder within a capture, and
// the same order of first appearance -> the same placeholders across captures):
//   GUIDs (node_guid, sys_image_guid, the interface id of port GIDs and of IPoIB addresses)
//     -> 0000:0000:0000:NNNN;
//   GID subnet prefixes other than fe80:: -> fec0:0000:0000:NNNN; IPv4-mapped RoCE v2 GIDs ->
//     ::ffff:192.0.2.N;
//   MAC addresses (class/net/*/address) -> 02:00:00:00:NN:NN (IPoIB: the GUID part as above);
//   node_desc (holds the host name) -> "node01 <ibdev>";
//   the PCIe Device Serial Number capability (extended capability 0x0003) in config -> zero.
// Nothing else with identifiers is copied (no vpd, phys_port_id, serial files, DMI).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/fs_root.h"
#include "core/progress.h"
#include "core/result.h"

namespace fabdiag {

/// What a capture wrote.
struct CaptureSummary {
  std::string out_dir;
  size_t files = 0;            ///< Regular files written.
  size_t links = 0;            ///< Symbolic links written.
  size_t pci_functions = 0;
  size_t netdevs = 0;
  size_t ibdevs = 0;
  size_t guids_replaced = 0;   ///< Distinct 64-bit identifiers replaced.
  size_t macs_replaced = 0;    ///< Distinct MAC addresses replaced.
  size_t ipv4_replaced = 0;    ///< Distinct IPv4 addresses (in RoCE v2 GIDs) replaced.
  size_t serials_cleared = 0;  ///< Config spaces whose Device Serial Number was zeroed.
  std::vector<Error> gaps;     ///< Files that exist but could not be read (the rest is copied).
};

/// Copies the subset described above from `fs` into `out_dir`, which must not exist or be an
/// empty directory (it is created). Errors: kInvalidArgument when out_dir exists and is not an
/// empty directory; kNotFound when fs has no bus/pci/devices and no class/net (not a sysfs
/// tree); kIo / kPermission when out_dir cannot be written. Unreadable source files are gaps.
/// Cost: a few thousand small reads (IB counters each send a MAD to the HCA); reads only.
Result<CaptureSummary> capture_sysfs(const FsRoot& fs, const std::string& out_dir,
                                     const Progress& progress = no_progress());

/// The anonymisers, exposed for tests. Each keeps a table so equal inputs map to equal
/// placeholders. Text they do not recognise is returned unchanged.
class Anonymizer {
 public:
  /// "b8ce:f603:00a1:b2c4" -> "0000:0000:0000:0001"; all-zero stays.
  std::string guid(const std::string& text);
  /// A port GID (8 groups of 4 hex digits): all-zero stays; IPv4-mapped -> ::ffff:192.0.2.N;
  /// else prefix (fe80:: kept, others mapped) and interface id (as a GUID).
  std::string gid(const std::string& text);
  /// A netdev address: 6 bytes -> 02:00:00:00:NN:NN; 20 bytes (IPoIB) -> flags/QPN and a
  /// fe80 prefix kept, other prefixes zeroed, GUID mapped; all-zero stays.
  std::string mac(const std::string& text);
  /// Zeroes the Device Serial Number of a PCI config space (extended capability walk from
  /// 0x100, docs/domain.md#pci-config-space-and-acs); returns true when one was found.
  static bool clear_serial_number(std::vector<unsigned char>& config);

  size_t guids() const { return guid_map_.size(); }
  size_t macs() const { return macs_seen_.size(); }
  size_t ipv4s() const { return ipv4_map_.size(); }

 private:
  std::map<uint64_t, uint64_t> guid_map_;    // original -> placeholder number (1..)
  std::map<uint64_t, uint64_t> mac_map_;
  std::map<uint64_t, uint64_t> prefix_map_;
  std::map<uint64_t, uint64_t> ipv4_map_;
  std::set<std::string> macs_seen_;          // distinct addresses replaced (Ethernet and IPoIB)
};

}  // namespace fabdiag
