#include "rules/counter_rules.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <unordered_map>

#include "core/text.h"
#include "probes/counters/counter_classes.h"
#include "probes/counters/sysfs_counters.h"
#include "rules/counter_rule_table.h"

namespace fabdiag {
namespace {

using S = Severity;
using L = Layer;
using Rule = CounterRuleRow;

const char* const kPauseDurations[] = {"rx_prio#_pause_duration", "tx_prio#_pause_duration",
                                       "rx_global_pause_duration", "tx_global_pause_duration",
                                       "pfc_pri#_rx_duration_us", "pfc_pri#_tx_duration_us"};

// The rule whose counter list names `canonical` (exactly, or with digit runs as '#'), or null.
// The lists are split once.
const Rule* rule_for(const std::string& canonical) {
  static const std::unordered_map<std::string, const Rule*> index = [] {
    std::unordered_map<std::string, const Rule*> m;
    for (const auto& r : counter_rule_rows())
      for (auto& pat : split_ws(r.counters)) m.emplace(std::move(pat), &r);
    return m;
  }();
  if (std::none_of(canonical.begin(), canonical.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    auto it = index.find(canonical);
    return it == index.end() ? nullptr : it->second;
  }
  // names with digits repeat on every NIC: their rule (exact name, else pattern) cached per thread
  thread_local std::unordered_map<std::string, const Rule*> by_name;
  if (auto it = by_name.find(canonical); it != by_name.end()) return it->second;
  auto it = index.find(canonical);
  if (it == index.end()) it = index.find(normalize_counter_name(canonical));
  if (by_name.size() >= 65536) by_name.clear();
  return by_name.emplace(canonical, it == index.end() ? nullptr : it->second).first->second;
}

// 3 significant digits, but plain digits (no exponent) from 1000 up.
std::string fmt_num(double v) {
  char buf[64];
  if (v >= 1000 && v < 1e15) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string window_text(double w) { return fmt_num(w) + " s"; }

// Findings of one device, merged per rule code.
struct Accumulator {
  std::vector<Finding> findings;
  std::map<std::pair<std::string, std::string>, size_t> index;

  Finding& get(const std::string& device, const std::string& code, Layer layer, S sev) {
    auto key = std::make_pair(device, code);
    auto it = index.find(key);
    if (it != index.end()) {
      Finding& f = findings[it->second];
      f.severity = std::max(f.severity, sev);
      return f;
    }
    Finding f;
    f.code = code;
    f.layer = layer;
    f.severity = sev;
    f.subject = device;
    index[key] = findings.size();
    findings.push_back(f);
    return findings.back();
  }
};

bool error_kind(CounterCategory c) {
  return c == CounterCategory::kPhyError || c == CounterCategory::kLink ||
         c == CounterCategory::kDiscard || c == CounterCategory::kRetransmit;
}

void add_names(std::string& list, const std::string& item) {
  list += (list.empty() ? "" : ", ") + item;
}

// Per (device, code): the "name +delta" items of the message, and whether any came from a
// delta (then the message says over which window) or all from one snapshot.
struct Items {
  std::string list;
  bool any_delta = false;
  bool log = false;  // counted in a log (fabdiag import syslog), not read from a counter
};
using Summary = std::map<std::pair<std::string, std::string>, Items>;

std::string window_suffix(const Items& it, std::optional<double> window_s) {
  if (it.log && !it.any_delta) return " in the log";
  if (!it.any_delta)
    return " since the counters were last reset (one snapshot: no time base, no rate)";
  if (window_s && *window_s > 0) return " in " + window_text(*window_s);
  return " between the snapshots (time between them unknown: no rate)";
}

// The rule of the knowledge base's generic fallback for an error counter no rule names: any
// growth of a counter whose base rule is any_growth or per_hour is a warn, grouped by category.
struct Fallback {
  const char* code;
  Layer layer;
  const char* what;
  const char* action;
};
std::optional<Fallback> fallback_for(const Counter& c) {
  if (c.rule != CounterRule::kAnyGrowth && c.rule != CounterRule::kPerHour) return std::nullopt;
  switch (c.category) {
    case CounterCategory::kPhyError:
      return Fallback{"phy_errors", L::kPhysical, "physical-layer errors",
                      "Clean or replace the optic/cable; check the switch port's counters"};
    case CounterCategory::kLink:
      return Fallback{"link_events", L::kPhysical, "link or transceiver events",
                      "Check dmesg and the transceiver (ethtool -m); reseat or replace it if "
                      "events keep coming"};
    case CounterCategory::kDiscard:
      return Fallback{"packet_drops", L::kTransport, "packets dropped",
                      "Find the drop point: buffers (pause/PFC), MTU, or a down peer"};
    case CounterCategory::kRetransmit:
      return Fallback{"rdma_packet_loss", L::kTransport, "RDMA packet loss and retransmission",
                      "Find where packets are lost: PFC/lossless class on RoCE, buffer drops and "
                      "physical errors on this and the peer ports"};
    default: return std::nullopt;
  }
}

// Applies rule `r` to one counter change: adds evidence to (device, code) when it fires. A
// change with status kSnapshot is a cumulative reading (the snapshot rule); any other status is
// a delta over the window (`window_s` empty = the time between the snapshots is unknown).
void apply_rule(const Rule& r, const CounterChange& ch, std::optional<double> window_s,
                Accumulator& acc, Summary& summary) {
  const Counter& c = ch.counter;
  Evidence e;
  e.unit = c.unit;
  e.source = c.source;
  e.threshold_text = r.basis;
  S sev;
  std::string item;
  bool is_delta = ch.status != DeltaStatus::kSnapshot;
  bool timed = window_s && *window_s > 0;
  if (is_delta) {
    if (!ch.delta || *ch.delta == 0) return;
    double per_hour = timed ? static_cast<double>(*ch.delta) * 3600.0 / *window_s : 0;
    sev = r.on_growth;
    if (r.escalate_delta_at && *ch.delta >= r.escalate_delta_at) sev = std::max(sev, r.escalated);
    if (timed && r.escalate_per_hour > 0 && *ch.delta >= 2 && per_hour >= r.escalate_per_hour)
      sev = std::max(sev, r.escalated);
    e.metric = c.name + " delta" + (timed ? " over " + window_text(*window_s) : std::string());
    e.value = static_cast<double>(*ch.delta);
    e.at_least = ch.at_least;
    if (timed) e.value_text = fmt_num(per_hour) + "/h";
    e.threshold = 0;
    e.threshold_text = std::string("> 0 in the window");
    if (r.escalate_delta_at)
      e.threshold_text += "; " + std::string(to_string(r.escalated)) + " at >= " +
                          std::to_string(r.escalate_delta_at);
    if (r.escalate_per_hour > 0)
      e.threshold_text += "; " + std::string(to_string(r.escalated)) + " at >= " +
                          fmt_num(r.escalate_per_hour) + "/h with >= 2 events";
    e.threshold_text += "; " + std::string(r.basis);
    item = c.name + " +" + std::to_string(*ch.delta) + (ch.at_least ? " (at least)" : "");
  } else {
    if (r.cumulative_at == 0 || c.value < r.cumulative_at) return;
    sev = r.cumulative_severity;
    e.metric = c.name + (c.group == CounterGroup::kLogEvents ? " (in the log)"
                                                             : " (cumulative since the last reset)");
    e.value = static_cast<double>(c.value);
    e.at_least = c.saturated;
    e.threshold = static_cast<double>(r.cumulative_at);
    item = c.name + " " + (c.saturated ? ">= " : "") + std::to_string(c.value);
  }
  Finding& f = acc.get(c.device, r.code, r.layer, sev);
  f.evidence.push_back(e);
  f.action = r.action;
  Items& items = summary[{c.device, r.code}];
  add_names(items.list, item);
  items.any_delta = items.any_delta || is_delta;
  items.log = items.log || c.group == CounterGroup::kLogEvents;
  f.message = std::string(r.what) + ": " + items.list + window_suffix(items, window_s);
}

// The knowledge base's generic rule for an error counter that no rule of the table names.
void apply_fallback(const Fallback& fb, const CounterChange& ch, std::optional<double> window_s,
                    Accumulator& acc, Summary& summary) {
  if (ch.status == DeltaStatus::kSnapshot || !ch.delta || *ch.delta == 0) return;
  const Counter& c = ch.counter;
  bool timed = window_s && *window_s > 0;
  Evidence e = Evidence::number(c.name + " delta" + (timed ? " over " + window_text(*window_s) : std::string()),
                                static_cast<double>(*ch.delta), c.unit, c.source)
                   .expect(0, std::string("> 0 in the window; knowledge base rule ") + to_string(c.rule) +
                                  " (probes/counters/data/counters.json)");
  e.at_least = ch.at_least;
  Finding& f = acc.get(c.device, fb.code, fb.layer, S::kWarn);
  f.evidence.push_back(e);
  if (f.action.empty()) f.action = fb.action;
  Items& items = summary[{c.device, fb.code}];
  add_names(items.list, c.name + " +" + std::to_string(*ch.delta));
  items.any_delta = true;
  if (f.message.empty() || f.message.rfind(fb.what, 0) == 0)
    f.message = std::string(fb.what) + ": " + items.list + window_suffix(items, window_s);
}

// Paused fraction from pause durations (microseconds) over the window.
void apply_paused_fraction(const CounterChange& ch, std::optional<double> window_s, Accumulator& acc,
                           Summary& summary) {
  if (ch.status == DeltaStatus::kSnapshot || !window_s || *window_s <= 0 || !ch.delta || *ch.delta == 0) return;
  const Counter& c = ch.counter;
  std::string norm = normalize_counter_name(c.canonical);
  if (std::find_if(std::begin(kPauseDurations), std::end(kPauseDurations),
                   [&](const char* pat) { return norm == pat; }) == std::end(kPauseDurations))
    return;
  double fraction = static_cast<double>(*ch.delta) / (*window_s * 1e6);
  if (fraction <= 0.01) return;
  S sev = fraction > 0.05 ? S::kError : S::kWarn;
  Finding& f = acc.get(c.device, "paused_fraction", L::kPhysical, sev);
  Evidence e = Evidence::number(c.name + " delta / window", fraction * 100, "%", c.source)
                   .expect(1.0, "> 1 % warn, > 5 % error sustained "
                                "(docs/thresholds.md#pause-and-pfc-storms, heuristic)");
  e.at_least = ch.at_least;
  f.evidence.push_back(e);
  std::string& list = summary[{c.device, "paused_fraction"}].list;
  add_names(list, c.name + " " + fmt_num(fraction * 100) + " %");
  f.message = "link paused for a large part of the " + window_text(*window_s) + " window: " + list;
  f.action = "Find who sends the pause (rx = the switch throttles this NIC; tx = this host "
             "cannot keep up) and check PFC/ECN configuration";
}

// counter_saturated of one device: warn (L4) when an error counter is among them.
void add_saturated(const std::string& dev, const std::vector<const CounterChange*>& changes, Accumulator& acc) {
  S sev = S::kInfo;
  std::string list;
  std::vector<Evidence> ev;
  for (const auto* ch : changes) {
    const Counter& c = ch->counter;
    if (error_kind(c.category) && c.canonical != "port_xmit_wait") sev = S::kWarn;
    add_names(list, c.name + " >= " + std::to_string(c.value));
    Evidence e = Evidence::number(c.name, static_cast<double>(c.value), c.unit, c.source)
                     .expect(std::to_string(c.width_bits) + "-bit counter maximum (IBTA counters saturate)");
    e.at_least = true;
    ev.push_back(e);
  }
  Finding& f = acc.get(dev, "counter_saturated", sev == S::kWarn ? L::kPhysical : L::kTransport, sev);
  f.evidence = ev;
  f.message = "counter maxed out, the true count is at least: " + list;
  f.action = "Clear the port counters (perfquery -R, or a driver reload) and measure again "
             "over a known window";
}

// counter_set_changed of one device: the counters that appeared or vanished.
void add_set_changed(const std::string& dev, const std::vector<const CounterChange*>& changes, Accumulator& acc) {
  std::string appeared, vanished;
  for (const auto* ch : changes)
    add_names(ch->status == DeltaStatus::kAppeared ? appeared : vanished, ch->counter.name);
  Finding& f = acc.get(dev, "counter_set_changed", L::kTransport, S::kInfo);
  f.message = "the set of counters changed during the window (no delta for these)";
  if (!appeared.empty()) f.message += "; appeared: " + appeared;
  if (!vanished.empty()) f.message += "; vanished: " + vanished;
  f.action = "Usually a firmware counter group or a driver reload; re-run to get deltas";
}

// counter_reset of one device: the counters that went down.
void add_reset(const std::string& dev, const std::vector<const CounterChange*>& changes, Accumulator& acc) {
  std::string list;
  for (const auto* ch : changes) add_names(list, ch->counter.name);
  Finding& f = acc.get(dev, "counter_reset", L::kTransport, S::kInfo);
  f.message = "counters went down during the window (reset by a driver reload or "
              "perfquery -R), no delta: " + list;
  f.action = "Re-run the measurement";
}

}  // namespace

bool phys_state_is_ibta(const std::string& phys_state) {
  static const char* const kIbta[] = {"", "Sleep", "Polling", "Disabled",
                                      "PortConfigurationTraining", "LinkUp",
                                      "LinkErrorRecovery", "Phy Test"};
  auto ps = parse_numbered_state(phys_state);
  if (!ps || ps->number < 1 || ps->number > 7) return false;
  auto squash = [](const std::string& s) {
    std::string o;
    for (char c : s)
      if (!std::isspace(static_cast<unsigned char>(c)))
        o.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    return o;
  };
  return squash(ps->name) == squash(kIbta[ps->number]);
}

bool phys_state_is_down(const std::string& phys_state) {
  return phys_state_is_ibta(phys_state) && parse_numbered_state(phys_state)->number != 5;
}

std::vector<Finding> port_state_findings(const PortInfo& p) {
  std::vector<Finding> out;
  if (!p.is_rdma) return out;
  auto st = parse_numbered_state(p.state);
  bool state_bad = st && st->number != 4 && st->number != 5;
  bool phys_bad = phys_state_is_down(p.phys_state);
  if (!state_bad && !phys_bad) return out;

  Finding f;
  f.layer = Layer::kPhysical;
  f.subject = p.device;
  std::string where = "port" + (p.netdev.empty() ? "" : " (netdev " + p.netdev + ")");
  if (st && st->number == 1) {
    f.severity = Severity::kError;
    f.code = "port_down";
    f.message = where + " is down";
  } else if (state_bad) {
    f.severity = Severity::kWarn;
    f.code = "port_not_active";
    f.message = where + " is not active (state " + p.state + ")";
    if (p.link_layer == "InfiniBand" && st && (st->number == 2 || st->number == 3))
      f.message += ": the link is up but no subnet manager has configured the port";
  } else {
    f.severity = Severity::kWarn;
    f.code = "phys_state_not_linkup";
    f.message = where + " is active but its physical state is " + p.phys_state;
  }
  if (phys_bad) {
    auto ps = parse_numbered_state(p.phys_state);
    if (ps->number == 2) {
      f.message += "; phys_state Polling: no link partner seen";
      f.action = "Check the cable, the transceiver and the far-end switch port";
    } else if (ps->number == 3) {
      f.message += "; phys_state Disabled: shut administratively or by firmware";
      f.action = "Check whether the port was disabled on purpose (ibportstate, switch config, "
                 "firmware settings) and enable it";
    } else {
      f.message += "; phys_state " + p.phys_state;
    }
  }
  if (f.action.empty())
    f.action = "Check the cable, the switch port and the subnet manager; drain the node from "
               "jobs that need this rail until the port is ACTIVE / LinkUp";
  std::string src = p.sysfs_dir + "/";
  f.evidence.push_back(Evidence::text("state", p.state, src + "state").expect("4: ACTIVE"));
  if (!p.phys_state.empty())
    f.evidence.push_back(Evidence::text("phys_state", p.phys_state, src + "phys_state").expect("5: LinkUp"));
  if (!p.rate.empty())
    f.evidence.push_back(
        Evidence::text("rate", p.rate, src + "rate").expect("not a link speed while the port is not up"));
  out.push_back(f);
  return out;
}

std::vector<Finding> counter_findings(const std::vector<CounterChange>& changes,
                                      std::optional<double> window_s) {
  Accumulator acc;
  std::map<std::string, std::vector<const CounterChange*>> saturated, set_changed, reset;
  std::vector<std::string> devices;  // in order of first appearance
  Summary summary;  // (device, code) -> "name +delta, ..."

  for (const auto& ch : changes) {
    const Counter& c = ch.counter;
    if ((devices.empty() || devices.back() != c.device) &&  // a device's counters come together
        std::find(devices.begin(), devices.end(), c.device) == devices.end())
      devices.push_back(c.device);
    if (c.saturated) saturated[c.device].push_back(&ch);
    if (ch.status == DeltaStatus::kAppeared || ch.status == DeltaStatus::kVanished)
      set_changed[c.device].push_back(&ch);
    if (ch.status == DeltaStatus::kReset) reset[c.device].push_back(&ch);

    if (const Rule* r = rule_for(c.canonical)) apply_rule(*r, ch, window_s, acc, summary);
    else if (auto fb = fallback_for(c)) apply_fallback(*fb, ch, window_s, acc, summary);
    apply_paused_fraction(ch, window_s, acc, summary);
  }

  for (const auto& dev : devices) {
    if (auto it = saturated.find(dev); it != saturated.end()) add_saturated(dev, it->second, acc);
    if (auto it = set_changed.find(dev); it != set_changed.end()) add_set_changed(dev, it->second, acc);
    if (auto it = reset.find(dev); it != reset.end()) add_reset(dev, it->second, acc);
  }
  return acc.findings;
}

std::vector<CounterRulePattern> counter_rule_patterns() {
  std::vector<CounterRulePattern> out;
  for (const auto& r : counter_rule_rows())
    for (auto& pat : split_ws(r.counters))
      out.push_back({std::move(pat), r.code, r.on_growth,
                     r.escalate_delta_at > 0 || r.escalate_per_hour > 0});
  return out;
}

std::vector<Finding> evaluate_counter_rules(const std::vector<PortInfo>& ports,
                                            const std::vector<CounterChange>& changes,
                                            std::optional<double> window_s) {
  std::vector<Finding> out;
  for (const auto& p : ports)
    for (auto& f : port_state_findings(p)) out.push_back(std::move(f));
  for (auto& f : counter_findings(changes, window_s)) out.push_back(std::move(f));
  return out;
}

}  // namespace fabdiag
