#include "probes/counters/counter_model.h"

#include <nlohmann/json.hpp>

namespace fabdiag {

const char* to_string(CounterGroup g) {
  switch (g) {
    case CounterGroup::kIbPortCounters: return "ib_port_counters";
    case CounterGroup::kIbHwCounters: return "ib_hw_counters";
    case CounterGroup::kNetdevStats: return "netdev_stats";
    case CounterGroup::kEthtoolStats: return "ethtool_stats";
    case CounterGroup::kLogEvents: return "log_events";
  }
  return "netdev_stats";
}

std::optional<CounterGroup> parse_counter_group(const std::string& s) {
  for (auto g : {CounterGroup::kIbPortCounters, CounterGroup::kIbHwCounters,
                 CounterGroup::kNetdevStats, CounterGroup::kEthtoolStats, CounterGroup::kLogEvents})
    if (s == to_string(g)) return g;
  return std::nullopt;
}

const char* to_string(CounterRule r) {
  switch (r) {
    case CounterRule::kAnyGrowth: return "any_growth";
    case CounterRule::kPerHour: return "per_hour";
    case CounterRule::kPerSecond: return "per_second";
    case CounterRule::kBer: return "ber";
    case CounterRule::kRatio: return "ratio";
    case CounterRule::kInfo: return "info";
    case CounterRule::kVolume: return "volume";
    case CounterRule::kGauge: return "gauge";
    case CounterRule::kUnknown: return "unknown";
  }
  return "unknown";
}

std::optional<CounterRule> parse_counter_rule(const std::string& s) {
  for (auto r : {CounterRule::kAnyGrowth, CounterRule::kPerHour, CounterRule::kPerSecond,
                 CounterRule::kBer, CounterRule::kRatio, CounterRule::kInfo, CounterRule::kVolume,
                 CounterRule::kGauge, CounterRule::kUnknown})
    if (s == to_string(r)) return r;
  return std::nullopt;
}

const char* to_string(CounterCategory c) {
  switch (c) {
    case CounterCategory::kTraffic: return "traffic";
    case CounterCategory::kPause: return "pause";
    case CounterCategory::kEcn: return "ecn";
    case CounterCategory::kCnp: return "cnp";
    case CounterCategory::kPhyError: return "phy_error";
    case CounterCategory::kDiscard: return "discard";
    case CounterCategory::kRetransmit: return "retransmit";
    case CounterCategory::kLink: return "link";
    case CounterCategory::kOther: return "other";
    case CounterCategory::kUnknown: return "unknown";
  }
  return "other";
}

std::vector<CounterCategory> all_counter_categories() {
  return {CounterCategory::kTraffic,    CounterCategory::kPause,   CounterCategory::kEcn,
          CounterCategory::kCnp,        CounterCategory::kPhyError, CounterCategory::kDiscard,
          CounterCategory::kRetransmit, CounterCategory::kLink,    CounterCategory::kOther,
          CounterCategory::kUnknown};
}

std::optional<CounterCategory> parse_counter_category(const std::string& s) {
  for (auto c : all_counter_categories())
    if (s == to_string(c)) return c;
  return std::nullopt;
}

bool is_failure(const Error& gap) {
  return gap.code != ErrorCode::kUnsupported && gap.code != ErrorCode::kNotFound;
}

void to_json(nlohmann::json& j, const PortInfo& p) {
  j = nlohmann::json{{"device", p.device},
                     {"ibdev", p.ibdev},
                     {"port", p.port},
                     {"netdev", p.netdev},
                     {"driver", p.driver},
                     {"link_layer", p.link_layer},
                     {"state", p.state},
                     {"phys_state", p.phys_state},
                     {"rate", p.rate}};
}

}  // namespace fabdiag

namespace fabdiag {
namespace {
template <typename T>
nlohmann::json opt_json(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
}  // namespace

void to_json(nlohmann::json& j, const LinkFacts& l) {
  j = nlohmann::json{{"netdev", l.netdev},
                     {"speed_mbps", opt_json(l.speed_mbps)},
                     {"lanes", opt_json(l.lanes)},
                     {"duplex", l.duplex},
                     {"autoneg", opt_json(l.autoneg)},
                     {"link_up", opt_json(l.link_up)},
                     {"ext_state", opt_json(l.ext_state)},
                     {"ext_state_name", l.ext_state_name},
                     {"ext_substate", opt_json(l.ext_substate)},
                     {"ext_substate_name", l.ext_substate_name},
                     {"link_down_events", opt_json(l.link_down_events)},
                     {"pause_autoneg", opt_json(l.pause_autoneg)},
                     {"pause_rx", opt_json(l.pause_rx)},
                     {"pause_tx", opt_json(l.pause_tx)},
                     {"fec_active", l.fec_active},
                     {"source", l.source}};
}

namespace {
template <typename T>
void opt_from(const nlohmann::json& j, const char* key, std::optional<T>& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  out = it->get<T>();
}
}  // namespace

void from_json(const nlohmann::json& j, LinkFacts& l) {
  l.netdev = j.value("netdev", "");
  opt_from(j, "speed_mbps", l.speed_mbps);
  opt_from(j, "lanes", l.lanes);
  l.duplex = j.value("duplex", "");
  opt_from(j, "autoneg", l.autoneg);
  opt_from(j, "link_up", l.link_up);
  opt_from(j, "ext_state", l.ext_state);
  l.ext_state_name = j.value("ext_state_name", "");
  opt_from(j, "ext_substate", l.ext_substate);
  l.ext_substate_name = j.value("ext_substate_name", "");
  opt_from(j, "link_down_events", l.link_down_events);
  opt_from(j, "pause_autoneg", l.pause_autoneg);
  opt_from(j, "pause_rx", l.pause_rx);
  opt_from(j, "pause_tx", l.pause_tx);
  l.fec_active = j.value("fec_active", "");
  l.source = j.value("source", "");
}

}  // namespace fabdiag
