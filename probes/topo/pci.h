// PCI device model read from sysfs: bus/pci/devices/<bdf>/{vendor,device,class,numa_node,
// local_cpulist,local_cpus,current_link_speed,max_link_speed,current_link_width,max_link_width,
// driver} through FsRoot. Unreadable or malformed attributes become "unknown" (std::nullopt,
// -1, "") and are recorded as gaps; they never abort the read of the other attributes or of
// the other devices.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/fs_root.h"
#include "core/result.h"

namespace fabdiag {

/// A PCI function address (BDF) "dddd:bb:dd.f" as the kernel spells it in sysfs.
struct PciAddress {
  uint32_t domain = 0;    ///< 16 bits normally; VMD domains (10000) are wider.
  uint32_t bus = 0;       ///< 0..255.
  uint32_t device = 0;    ///< 0..31.
  uint32_t function = 0;  ///< 0..7.
  auto operator<=>(const PciAddress&) const = default;
  /// Lower-case "0000:17:00.0" (domain at least 4 hex digits).
  std::string to_string() const;
};

/// Parses "0000:17:00.0" (case-insensitive; domain 4+ hex digits). nullopt otherwise, e.g. for
/// "pci0000:15", "17:00.0" or "0000:17:00.8".
std::optional<PciAddress> parse_pci_address(std::string_view text);

/// PCI address order of two BDF strings (domain, bus, device, function as numbers; plain string
/// order is wrong for wide domains); falls back to string order for unparsable text.
bool pci_bdf_less(const std::string& a, const std::string& b);

/// Parses a sysfs link speed ("2.5 GT/s PCIe", "16.0 GT/s PCIe", older kernels "8 GT/s") into
/// GT/s. Returns ok(nullopt) for the kernel's own "Unknown" (speed not known: not an error),
/// kParse for anything else that is not a positive number followed by "GT/s".
Result<std::optional<double>> parse_link_speed_gts(std::string_view text);

/// Parses a sysfs link width ("16"; 0 = link down) into lanes. kParse for anything that is not
/// a decimal integer in 0..32 (PCIe allows x1..x32).
Result<int> parse_link_width(std::string_view text);

/// PCIe link state of one device as its own sysfs attributes report it. For an endpoint or a
/// switch upstream port the current values describe the link above it; for a root port or a
/// switch downstream port they describe the link below it. nullopt = unknown.
struct PcieLink {
  std::optional<double> current_speed_gts;  ///< current_link_speed, GT/s per lane.
  std::optional<double> max_speed_gts;      ///< max_link_speed (LnkCap), GT/s per lane.
  std::optional<int> current_width;         ///< current_link_width, lanes (0 = link down).
  std::optional<int> max_width;             ///< max_link_width (LnkCap), lanes.
};

/// What a PCI function is, from vendor and class code (classes as in hwloc pci-common.c).
enum class PciKind {
  kGpu,       ///< NVIDIA (0x10de) VGA 0x0300xx or 3D controller 0x0302xx.
  kNvSwitch,  ///< NVIDIA (0x10de) bridge-other 0x0680xx.
  kNic,       ///< Ethernet 0x0200xx or InfiniBand 0x0207xx controller, any vendor.
  kBridge,    ///< PCI-to-PCI bridge 0x0604xx (root ports, switch ports).
  kOther,
};

/// Classifies a function from its vendor id and 24-bit class code ("class" attribute).
PciKind classify_pci(uint32_t vendor_id, uint32_t class_code);
/// "gpu", "nvswitch", "nic", "bridge", "other".
const char* to_string(PciKind kind);

/// One PCI function as read from bus/pci/devices/<bdf>/.
struct PciDevice {
  std::string bdf;                    ///< "0000:17:00.0", lower case.
  PciAddress address;
  std::optional<uint32_t> vendor_id;  ///< vendor, e.g. 0x10de.
  std::optional<uint32_t> device_id;  ///< device, e.g. 0x2330.
  std::optional<uint32_t> class_code; ///< class, 24 bits, e.g. 0x030200.
  PciKind kind = PciKind::kOther;     ///< classify_pci(); kOther while vendor/class unknown.
  int numa_node = -1;                 ///< numa_node; -1 = unknown or no NUMA.
  std::string local_cpulist;          ///< CPUs close to the device ("0-31,64-95"); "" unknown.
  PcieLink link;
  std::string driver;                 ///< Name of the bound driver ("mlx5_core"); "" unbound.
  bool is_virtual_function = false;   ///< SR-IOV VF (has a physfn link).
  /// Canonical logical path, e.g. "devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0"
  /// (FsRoot::canonical_sys of bus/pci/devices/<bdf>); "" when the link does not resolve.
  std::string sysfs_path;
};

/// Reads bus/pci/devices/<bdf>/. Sources and fallbacks:
///  - numa_node: a missing file means a kernel without NUMA (-1, no gap);
///  - local_cpulist, else local_cpus (hex mask) converted to a cpulist;
///  - link attributes: "Unknown" speed is unknown without a gap; missing files (the kernel
///    creates them only for PCIe functions: conventional PCI, virtio) are unknown without a gap.
/// Each attribute that cannot be read or parsed appends an Error (source = its path) to `gaps`.
/// Errors (returned): kNotFound when bus/pci/devices/<bdf> does not exist.
Result<PciDevice> read_pci_device(const FsRoot& fs, const std::string& bdf,
                                  std::vector<Error>& gaps);

/// BDFs of every function in bus/pci/devices, sorted by address. Entries that are not BDFs
/// are skipped. Errors: kNotFound when bus/pci/devices does not exist.
Result<std::vector<std::string>> list_pci_devices(const FsRoot& fs);

/// Parent bridge chain of a device from its canonical path: the BDFs of every bridge between
/// the host bridge and the device, root port first (excluding the device itself). Empty when
/// the device hangs directly off the host bridge or when the path is unknown.
std::vector<std::string> parent_bridge_chain(const PciDevice& dev);

}  // namespace fabdiag
