// Links of one host's counters, as the interpretation (rules/counter_interpret.h) groups them:
// an RDMA port with its netdev (and its ibdev's device-level counters when the ibdev has one
// port), or a lone device (a netdev without RDMA, a device only a counter names).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "probes/counters/counter_delta.h"
#include "probes/counters/counter_model.h"

namespace fabdiag {

/// One link and the counter changes read on its devices.
struct CounterLink {
  std::string primary;     ///< Subject of its merged findings: the RDMA port ("mlx5_0/1") or the device.
  std::string label;       ///< "mlx5_0/1 (ens1f0np0)", or the device alone.
  std::string netdev;      ///< The RDMA port's netdev; "" for a lone device.
  std::string link_layer;  ///< "Ethernet", "InfiniBand"; "" when no port says.
  bool rdma = false;       ///< Built from an RDMA port.
  std::vector<const CounterChange*> changes;  ///< Into the changes given to group_counter_links.
};

/// The links, and which link each device name (RDMA port, netdev, single-port ibdev) belongs to.
struct CounterLinks {
  std::vector<CounterLink> links;
  std::map<std::string, size_t> by_device;

  /// Index of the link of `device`; a new lone-device link when no link has it.
  size_t of(const std::string& device);
};

/// Groups `ports` into links (RDMA ports first, in order; then the other devices) and files each
/// change under its device's link. The links point into `changes`: keep it alive and unchanged
/// while they are used. Never fails.
CounterLinks group_counter_links(const std::vector<PortInfo>& ports, const std::vector<CounterChange>& changes);

}  // namespace fabdiag
