// Reads the facts `fabdiag check` judges from one host's sysfs and procfs (through FsRoot, so a
// fixture tree or a `fabdiag gather` capture works the same as the live host).
#pragma once

#include "core/fs_root.h"
#include "core/progress.h"
#include "probes/check/check_model.h"

namespace fabdiag {

/// Reads every fact of HostFacts from `fs`:
///  - PCIe links of GPUs, NICs and the switch uplinks on their paths: discover_topology();
///  - ACS of every bridge on a GPU's or NIC's path: bus/pci/devices/<bdf>/config (up to 4096
///    bytes; 64 bytes without root = unknown), with the GPUs/NICs below each bridge;
///  - AER of the GPUs, NICs and those bridges: bus/pci/devices/<bdf>/aer_dev_{correctable,fatal,
///    nonfatal} (absent files = no AER statistics, not a gap);
///  - GPUDirect RDMA: module/nvidia_peermem, kernel/mm/memory_peers/nv_mem{,_nc}/version,
///    /proc/modules, /proc/driver/nvidia/version, /proc/sys/kernel/osrelease;
///  - IOMMU: class/iommu/*, /proc/cmdline, bus/pci/devices/<bdf>/iommu_group/type of GPUs/NICs;
///  - RDMA ports: class/infiniband/<ibdev>/{hca_type,board_id,fw_ver} and ports/<n>/{state,
///    phys_state,rate,link_layer,lid,gids/*,gid_attrs/types/*}, class/net/<netdev>/mtu, and the
///    rp_cnp_ignored readings of ports/<n>/hw_counters.
/// Never fails: what cannot be read becomes a gap in HostFacts::gaps. Cost: a few hundred
/// small sysfs reads (one PMA query per IB port counter); needs root only for full ACS reads.
HostFacts read_host_facts(const FsRoot& fs, const Progress& progress = no_progress());

}  // namespace fabdiag
