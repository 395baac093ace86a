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
#include "probes/topo/pcie_link.h"
#include "probes/topo/topology.h"

namespace fabdiag {

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

/// judge_pcie_link() over every link of a discovered node (pcie_link_subjects(), i.e. each GPU
/// and NIC against its parent port and each switch uplink), appended to `report.findings`.
void judge_topology_pcie_links(TopologyReport& report);

}  // namespace fabdiag
