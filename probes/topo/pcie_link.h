// A PCIe link as it is judged: seen from its lower (downstream) end, with the upper end's
// capabilities. Built from the topology (pcie_link_subjects(), probes/topo/topology.h) or from a
// saved `lspci -vvv` (import/lspci.h); judged by rules/pcie_link_rules.h.
#pragma once

#include <optional>
#include <string>

#include "probes/topo/pci.h"

namespace fabdiag {

/// One link to judge, seen from its lower (downstream) end.
struct PcieLinkSubject {
  std::string bdf;         ///< The lower end: endpoint or switch upstream port.
  std::string label;       ///< How a person names it: "GPU5", "NIC3 (mlx5_3)", "PCIe switch uplink".
  bool is_gpu = false;     ///< GPUs lower the link speed when idle (power saving).
  PcieLink link;           ///< The lower end's sysfs link attributes.
  std::string parent_bdf;  ///< The upper end; "" when none (then only the device's max counts).
  std::optional<double> parent_max_speed_gts;
  std::optional<int> parent_max_width;
  /// A GPU or NIC by its PCI class (not a virtio function): a PCIe device, so link attributes
  /// it lacks are unread, not absent. Set by the sysfs reader (collect/check_sysfs.h).
  bool link_expected = false;
  std::string source;  ///< Sysfs directory of the lower end ("/sys/bus/pci/devices/<bdf>"); "" unknown.
  /// "FILE:LINE" of saved lspci text the values were read from, for evidence of a device the
  /// text does not name (a LnkCap/LnkSta fragment, empty `bdf`); "" = the sysfs attributes.
  std::string text_source;
};

}  // namespace fabdiag
