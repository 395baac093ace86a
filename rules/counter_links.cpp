#include "rules/counter_links.h"

namespace fabdiag {

size_t CounterLinks::of(const std::string& device) {
  auto it = by_device.find(device);
  if (it != by_device.end()) return it->second;
  CounterLink l;
  l.primary = l.label = device;
  links.push_back(l);
  return by_device[device] = links.size() - 1;
}

CounterLinks group_counter_links(const std::vector<PortInfo>& ports, const std::vector<CounterChange>& changes) {
  CounterLinks ls;
  std::map<std::string, int> ports_per_ibdev;
  for (const auto& p : ports)
    if (p.is_rdma) ports_per_ibdev[p.ibdev]++;
  for (const auto& p : ports) {
    if (!p.is_rdma || ls.by_device.count(p.device)) continue;
    CounterLink l;
    l.primary = p.device;
    l.label = p.device + (p.netdev.empty() ? "" : " (" + p.netdev + ")");
    l.netdev = p.netdev;
    l.link_layer = p.link_layer;
    l.rdma = true;
    ls.links.push_back(l);
    size_t i = ls.links.size() - 1;
    ls.by_device[p.device] = i;
    if (!p.netdev.empty()) ls.by_device.emplace(p.netdev, i);
    if (!p.ibdev.empty() && ports_per_ibdev[p.ibdev] == 1) ls.by_device.emplace(p.ibdev, i);
  }
  for (const auto& p : ports) {
    size_t i = ls.of(p.device);
    if (ls.links[i].link_layer.empty() && !p.is_rdma) ls.links[i].link_layer = p.link_layer;
  }
  for (const auto& ch : changes) ls.links[ls.of(ch.counter.device)].changes.push_back(&ch);
  return ls;
}

}  // namespace fabdiag
