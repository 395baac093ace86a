// PCIe link rules: is a device's (or switch uplink's) link running below what both of its
// ends can do? Judged against the lower LnkCap of the two ends (the device's max_link_* and
// its parent port's max_link_*), so a Gen5 switch port running Gen4 because its endpoint is
// Gen4 is not a downgrade (case 021). Width below that limit is an error (lanes do not drop by
// design); speed below it is a warning, except on GPUs, which lower the speed when idle (info).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"
#include "probes/pci.h"

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
};

/// Best link the two ends can train to: min(device max, parent max) per attribute; nullopt
/// when the device's max is unknown (an unknown parent max leaves the device's max).
std::optional<double> link_limit_speed_gts(const PcieLinkSubject& s);
std::optional<int> link_limit_width(const PcieLinkSubject& s);

/// Findings for one link (layer L4, subject = BDF):
///  - current width < limit: error "pcie_width_downgraded" (width 0: the link is down);
///  - current speed < limit: warn "pcie_speed_downgraded", or info "pcie_speed_low_at_idle"
///    for GPUs ("re-check under load").
/// Evidence carries value, unit (lanes, GT/s), threshold and the sysfs path ("/sys/bus/pci/
/// devices/<bdf>/current_link_width"). Unknown values produce no finding.
std::vector<Finding> judge_pcie_link(const PcieLinkSubject& s);

}  // namespace fabdiag
