#include "probes/counters/device_filter.h"

#include <algorithm>

namespace fabdiag {

bool device_selected(const std::vector<std::string>& selection, std::string_view device,
                     std::string_view ibdev, std::string_view netdev) {
  if (selection.empty()) return true;
  return std::any_of(selection.begin(), selection.end(), [&](const std::string& name) {
    return name == device || (!ibdev.empty() && name == ibdev) || (!netdev.empty() && name == netdev);
  });
}

bool port_selected(const std::vector<std::string>& selection, const PortInfo& port) {
  return device_selected(selection, port.device, port.ibdev, port.netdev);
}

std::optional<std::string> unmatched_selection(const std::vector<std::string>& selection,
                                               const std::vector<PortInfo>& ports) {
  for (const auto& name : selection) {
    const std::vector<std::string> one{name};
    if (std::none_of(ports.begin(), ports.end(), [&](const PortInfo& p) { return port_selected(one, p); }))
      return name;
  }
  return std::nullopt;
}

}  // namespace fabdiag
