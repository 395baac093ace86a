#include "metrics/counter_metrics.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string_view>

#include "core/text.h"
#include "probes/counters/counter_classes.h"
#include "probes/counters/sysfs_counters.h"
#include "probes/ethtool/ethtool_netlink_messages.h"

namespace fabdiag {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

// device/port/netdev labels of a Counter::device ("mlx5_0/1", "mlx5_0", "eth0").
// With room for a fourth label (the counter's name, added by with()): one allocation per sample.
Labels device_labels(const std::string& device, const std::map<std::string, const PortInfo*>& by_device) {
  auto it = by_device.find(device);
  const PortInfo* p = it == by_device.end() ? nullptr : it->second;
  Labels l;
  l.reserve(4);
  if (p && p->is_rdma) {
    l.emplace_back("device", p->ibdev);
    l.emplace_back("port", std::to_string(p->port));
    l.emplace_back("netdev", p->netdev);
    return l;
  }
  l.emplace_back("device", device);
  l.emplace_back("port", "");
  l.emplace_back("netdev", p ? device : std::string());  // none for device-level hw_counters
  return l;
}

struct FamilyKey {
  std::string name;
  std::string help;
  double scale = 1;
};

FamilyKey counter_family(CounterCategory c, const std::string& unit) {
  std::string cat = to_string(c);
  std::string what = "fabdiag counters of category " + cat;
  if (unit == "bytes") return {"fabdiag_" + cat + "_bytes_total", what + ", in bytes (label counter: the kernel or driver name)", 1};
  if (unit == "bits") return {"fabdiag_" + cat + "_bits_total", what + ", in bits (label counter: the kernel or driver name)", 1};
  if (unit == "us") return {"fabdiag_" + cat + "_seconds_total", what + ", time in seconds (label counter: the kernel or driver name, which counts microseconds)", 1e-6};
  return {"fabdiag_" + cat + "_total", what + ", events (label counter: the kernel or driver name)", 1};
}

// The category comes from the knowledge base when the counter was made (make_counter()):
// kUnknown = not in it, so no second look-up by name.
bool classified(const Counter& c) {
  return c.category != CounterCategory::kOther && c.category != CounterCategory::kUnknown;
}

// Drops binary noise from unit conversions (0.0794 mW / 1000 = 7.939999999999999e-05 W):
// module monitors have at most 5 significant digits, 12 keep every real one.
double tidy(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return std::strtod(buf, nullptr);
}

class Families {
 public:
  MetricFamily& get(const std::string& name, const std::string& help, MetricType type) {
    return out_[index(name, help, type)];
  }
  /// The position of the family in the output (stable while families are added).
  size_t index(const std::string& name, const std::string& help, MetricType type) {
    auto it = index_.find(name);
    if (it != index_.end()) return it->second;
    index_[name] = out_.size();
    out_.push_back(MetricFamily{name, help, type, {}});
    return out_.size() - 1;
  }
  MetricFamily& at(size_t i) { return out_[i]; }
  void gauge(const std::string& name, const std::string& help, Labels labels, double v) {
    get(name, help, MetricType::kGauge).samples.push_back({std::move(labels), tidy(v)});
  }
  std::vector<MetricFamily> take() { return std::move(out_); }

 private:
  std::vector<MetricFamily> out_;
  std::map<std::string, size_t> index_;
};

Labels netdev_labels(const std::string& nd) { return {{"device", nd}, {"port", ""}, {"netdev", nd}}; }

Labels with(Labels l, const std::string& k, const std::string& v) {
  l.emplace_back(k, v);
  return l;
}

}  // namespace

bool is_per_queue_counter(const std::string& name) {
  // rx3_packets, tx12_bytes, ch0_events, rxq1_..., txq_2_..., queue_5_..., xdp3_...
  static constexpr std::string_view kPrefixes[] = {"rxq_", "txq_", "rxq", "txq", "rx",
                                                   "tx",   "ch",   "xdp", "queue_"};
  for (std::string_view p : kPrefixes) {
    if (!starts_with(name, p)) continue;
    size_t i = p.size();
    size_t digits = 0;
    while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) ++i, ++digits;
    if (digits > 0 && i < name.size() && (name[i] == '_' || name[i] == '.')) return true;
  }
  // ice/i40e: rx_queue_3_packets, tx-queue-3 ...
  for (const char* q : {"queue_", "queue-"}) {
    size_t at = name.find(q);
    if (at != std::string::npos && at + 6 < name.size() &&
        std::isdigit(static_cast<unsigned char>(name[at + 6])))
      return true;
  }
  return false;
}

namespace {

// The counters: one family per (category, unit), one series per counter. A driver statistic
// named like a netdev statistic of the same netdev is the same number under two sources;
// export it once so the series stay unique.
void add_counter_families(Families& fam, const CountersMetricsInput& in,
                          const std::map<std::string, const PortInfo*>& by_device) {
  std::set<std::pair<std::string_view, std::string_view>> netdev_names;  // views into in.changes
  for (const auto& ch : in.changes)
    if (ch.counter.group == CounterGroup::kNetdevStats) netdev_names.insert({ch.counter.device, ch.counter.name});
  std::map<std::pair<CounterCategory, std::string>, std::pair<size_t, double>> family_of;
  for (const auto& ch : in.changes) {
    const Counter& c = ch.counter;
    if (ch.status == DeltaStatus::kVanished) continue;
    if (in.only && c.category != *in.only) continue;
    if (!in.all && (!classified(c) || is_per_queue_counter(c.name))) continue;
    if (c.group == CounterGroup::kEthtoolStats && netdev_names.count({c.device, c.name})) continue;
    // the family of (category, unit), built once (its name and help are a few strings each)
    auto [slot, added] = family_of.try_emplace({c.category, c.unit});
    if (added) {
      FamilyKey k = counter_family(c.category, c.unit);
      slot->second = {fam.index(k.name, k.help, MetricType::kCounter), k.scale};
    }
    fam.at(slot->second.first)
        .samples.push_back({with(device_labels(c.device, by_device), "counter", c.name),
                            static_cast<double>(c.value) * slot->second.second});
  }
}

}  // namespace

std::vector<MetricFamily> counters_metric_families(const CountersMetricsInput& in) {
  std::map<std::string, const PortInfo*> by_device;
  for (const auto& p : in.ports) by_device[p.device] = &p;
  Families fam;
  add_counter_families(fam, in, by_device);

  // Port and link state.
  for (const auto& p : in.ports) {
    if (!p.is_rdma) continue;
    Labels l = device_labels(p.device, by_device);
    if (auto st = parse_numbered_state(p.state))
      fam.gauge("fabdiag_port_state", "RDMA port state (IBTA: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE)", l, st->number);
    if (auto ps = parse_numbered_state(p.phys_state))
      fam.gauge("fabdiag_port_phys_state", "RDMA port physical state (IBTA: 2 Polling, 3 Disabled, 5 LinkUp, ...)", l, ps->number);
  }
  for (const auto& lf : in.links) {
    Labels l = netdev_labels(lf.netdev);
    if (lf.link_up) fam.gauge("fabdiag_link_up", "Link detected (ethtool): 1 up, 0 down", l, *lf.link_up ? 1 : 0);
    if (lf.speed_mbps)
      fam.gauge("fabdiag_link_speed_bytes_per_second", "Link speed (ethtool LINKMODES), bytes per second", l,
                *lf.speed_mbps * 1e6 / 8);
    if (lf.lanes) fam.gauge("fabdiag_link_lanes", "Active lanes of the link (ethtool LINKMODES_LANES)", l, *lf.lanes);
  }

  // Optics.
  for (const auto& m : in.optics) {
    Labels l = netdev_labels(m.netdev);
    if (m.temperature_c)
      fam.gauge("fabdiag_optics_temperature_celsius", "Module temperature (module EEPROM)", l, *m.temperature_c);
    if (m.vcc_v) fam.gauge("fabdiag_optics_supply_voltage_volts", "Module supply voltage (module EEPROM)", l, *m.vcc_v);
    for (const auto& lane : m.lanes) {
      Labels ll = with(l, "lane", std::to_string(lane.lane));
      if (lane.rx_power_mw)
        fam.gauge("fabdiag_optics_rx_power_watts", "Received optical power per lane (module EEPROM); 0 = no light", ll,
                  *lane.rx_power_mw / 1000);
      if (lane.tx_power_mw)
        fam.gauge("fabdiag_optics_tx_power_watts", "Transmitted optical power per lane (module EEPROM)", ll,
                  *lane.tx_power_mw / 1000);
      if (lane.tx_bias_ma)
        fam.gauge("fabdiag_optics_tx_bias_amperes", "Laser bias current per lane (module EEPROM)", ll,
                  *lane.tx_bias_ma / 1000);
    }
    if (m.rx_power_limits_mw.low_warning)
      fam.gauge("fabdiag_optics_rx_power_low_warning_watts", "The module's own rx power low-warning threshold", l,
                *m.rx_power_limits_mw.low_warning / 1000);
    if (m.rx_power_limits_mw.low_alarm)
      fam.gauge("fabdiag_optics_rx_power_low_alarm_watts", "The module's own rx power low-alarm threshold", l,
                *m.rx_power_limits_mw.low_alarm / 1000);
    if (m.temperature_limits_c.high_warning)
      fam.gauge("fabdiag_optics_temperature_high_warning_celsius",
                "The module's own temperature high-warning threshold", l, *m.temperature_limits_c.high_warning);
  }

  // Run summary: findings by severity (every severity, zeros included, for alert rules) and gaps.
  std::map<Severity, int> by_sev;
  for (const auto& f : in.findings) ++by_sev[f.severity];
  for (Severity s : {Severity::kInfo, Severity::kWarn, Severity::kError, Severity::kCritical})
    fam.gauge("fabdiag_counters_findings", "Findings of this fabdiag counters run, by severity",
              {{"severity", to_string(s)}}, by_sev[s]);
  fam.gauge("fabdiag_counters_read_errors", "Sources fabdiag counters could not read (the result is partial when > 0)",
            {}, static_cast<double>(in.read_errors));
  return fam.take();
}

}  // namespace fabdiag
