// Where a PCI function sits in the PCIe tree, and the nvidia-smi style relation (PIX, PXB, PHB,
// NODE, SYS) between two functions, derived from canonical sysfs paths as
// docs/domain.md#gpu-and-nic-topology ("Deriving the level from sysfs") describes (the rule NVML
// and NCCL's src/graph/xml.cc follow). Pure functions: no file access, so they are unit-tested on
// synthetic paths.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace fabdiag {

/// A function's position, parsed from its canonical sysfs path
/// "devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0".
struct PciePath {
  std::string host_bridge;           ///< Root complex component, "pci0000:15".
  std::vector<std::string> bridges;  ///< BDFs between host bridge and device, root port first.
  std::string device;                ///< The function's own BDF (last component).
};

/// Parses a canonical logical sysfs path. Components before the first "pciDDDD:BB" component
/// (e.g. "devices/platform/...") are ignored; nested host bridges of VMD domains are skipped.
/// Errors: kParse when there is no host bridge component, no device, or a component after the
/// host bridge that is not a BDF.
Result<PciePath> parse_pcie_path(std::string_view canonical_path);

/// The PCIe switches on a path below the root port, collapsed as NVML/NCCL do: each switch
/// (upstream port + its downstream port) becomes one node named by its upstream port's BDF.
/// In sysfs the bridges below a root port alternate upstream port, downstream port, so
/// bridges[1], bridges[3], ... are the upstream ports. A trailing lone bridge (a plain
/// PCI-to-PCI bridge) counts as one switch. Empty when the device has no root port or sits
/// directly below it.
std::vector<std::string> pcie_switches(const PciePath& path);

/// nvidia-smi topo -m levels, from closest to farthest. kUnknown when a path is missing.
enum class PcieLevel { kSelf, kPix, kPxb, kPhb, kNode, kSys, kUnknown };

/// "X", "PIX", "PXB", "PHB", "NODE", "SYS", "N/A".
const char* to_string(PcieLevel level);

/// The relation of two functions (docs/domain.md#gpu-and-nic-topology):
///  - same BDF -> kSelf;
///  - different host bridges -> kNode when both NUMA nodes are equal (two unknown (-1) NUMA
///    nodes count as one node: a kernel without NUMA), else kSys (an unknown NUMA node on one
///    side only is treated as a different node: the conservative answer);
///  - same host bridge, no common root port -> kPhb;
///  - same root port: count the switches the path between them crosses (switches below the
///    lowest common one on each side, plus the common one): 0 or 1 -> kPix, 2+ -> kPxb.
/// numa_* are the devices' numa_node values (-1 unknown).
PcieLevel derive_pcie_level(const PciePath& a, int numa_a, const PciePath& b, int numa_b);

}  // namespace fabdiag
