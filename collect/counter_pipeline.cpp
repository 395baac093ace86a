#include "collect/counter_pipeline.h"

#include <set>
#include <utility>

#include "probes/ethtool/ethtool_link.h"

namespace fabdiag {

CounterPipeline::CounterPipeline(CounterSources sources, CounterTransports transports, const Clock* clock)
    : sources_(std::move(sources)), transports_(transports), clock_(clock ? clock : &real_clock()) {
  if (!sources_.ethtool) return;  // nothing below is used
  if (!transports_.ioctl) {
    own_ioctl_ = std::make_unique<SocketEthtoolIoctl>();
    transports_.ioctl = own_ioctl_.get();
  }
  if (!transports_.netlink) {
    own_netlink_ = make_libnl_ethtool_transport();
    transports_.netlink = own_netlink_.get();
  }
}

CounterPipeline::~CounterPipeline() = default;

CounterPipeline::Bound CounterPipeline::bind(const FsRoot& fs) const {
  Bound b;
  b.options.rdma = sources_.rdma;
  b.options.netdev = sources_.netdev;
  b.options.link_stats = sources_.link_stats;
  b.options.module_eeprom = sources_.module_eeprom;
  b.options.devices = sources_.devices;
  b.options.clock = clock_;
  if (sources_.ethtool) {
    b.stats = make_ethtool_stats_source(fs, *transports_.ioctl);
    b.link = make_ethtool_link_source(fs, *transports_.netlink, *transports_.ioctl);
    b.options.ethtool = b.stats.get();
    b.options.link = b.link.get();
  }
  return b;
}

Snapshot CounterPipeline::snapshot(const FsRoot& fs) const {
  Bound b = bind(fs);
  return read_counter_snapshot(fs, b.options);
}

std::string CounterPipeline::describe_stats(const FsRoot& fs) const {
  if (!sources_.ethtool) return "not read (--no-ethtool)";
  return make_ethtool_stats_source(fs, *transports_.ioctl)->describe();
}

std::string CounterPipeline::describe_link(const FsRoot& fs) const {
  if (!sources_.ethtool) return "not read (--no-ethtool)";
  return make_ethtool_link_source(fs, *transports_.netlink, *transports_.ioctl)->describe();
}

CounterObservation observe_counters(Snapshot first, const Snapshot* second,
                                    std::optional<double> window_s) {
  CounterObservation obs;
  std::set<std::string> seen;
  for (const Snapshot* s : {static_cast<const Snapshot*>(&first), second}) {
    if (!s) continue;
    for (const auto& e : s->gaps)
      if (seen.insert(e.to_string()).second) obs.gaps.push_back(e);
  }
  if (second) {
    obs.ports = second->ports;
    obs.links = second->links;
    obs.optics = second->optics;
    obs.window_s = window_s;
    obs.changes = compute_delta(first, *second, window_s.value_or(0)).changes;
  } else {
    obs.ports = std::move(first.ports);
    obs.links = std::move(first.links);
    obs.optics = std::move(first.optics);
    obs.changes = snapshot_readings(std::move(first));
  }
  return obs;
}

CounterInterpretation interpret_observation(const CounterObservation& obs) {
  return interpret_counters(obs.ports, obs.changes, obs.window_s, obs.optics);
}

}  // namespace fabdiag
