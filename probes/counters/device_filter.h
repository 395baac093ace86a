// The --device selection of `fabdiag counters`, `counters --from` and the sysfs counter reader:
// one rule for whether a name a user gave picks a device.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/counters/counter_model.h"

namespace fabdiag {

/// Whether `selection` picks the device `device`: true when the selection is empty (no --device:
/// everything), or when one of its names equals `device` ("mlx5_0/1", "mlx5_0", "eth0") or one
/// of the aliases the caller knows for it: `ibdev` ("mlx5_0" picks every port of mlx5_0) and
/// `netdev` (the port's paired netdev). Empty aliases never match.
bool device_selected(const std::vector<std::string>& selection, std::string_view device,
                     std::string_view ibdev = {}, std::string_view netdev = {});

/// device_selected() for a port or netdev already read: its device name, ibdev and paired netdev.
bool port_selected(const std::vector<std::string>& selection, const PortInfo& port);

/// The first name of `selection` that picks none of `ports` (port_selected() for that name
/// alone), or nullopt when every name picks at least one: a --device that names nothing is a
/// usage error, not an empty table.
std::optional<std::string> unmatched_selection(const std::vector<std::string>& selection,
                                               const std::vector<PortInfo>& ports);

}  // namespace fabdiag
