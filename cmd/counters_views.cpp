#include "cmd/counters_views.h"

#include <cstdio>
#include <map>

#include "report/humanize.h"

namespace fabdiag::cmd {
namespace {

std::string yes_no(const std::optional<bool>& b, const char* yes = "on", const char* no = "off") {
  if (!b) return "?";
  return *b ? yes : no;
}

std::string dbm_cell(const std::optional<double>& mw) {
  if (!mw) return "-";
  auto dbm = mw_to_dbm(*mw);
  if (!dbm) return "no light";
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", *dbm);
  return b;
}

std::string fixed(const std::optional<double>& v, const char* f) {
  if (!v) return "-";
  char b[32];
  std::snprintf(b, sizeof b, f, *v);
  return b;
}

// "low warn -10.00 dBm, low alarm -13.00 dBm" of a power threshold set.
std::string power_limits(const char* what, const ModuleThresholds& t) {
  std::string s;
  auto add = [&](const char* name, const std::optional<double>& mw) {
    if (!mw) return;
    s += (s.empty() ? "" : ", ") + std::string(name) + " " + dbm_cell(mw) +
         (mw_to_dbm(*mw) ? " dBm" : "");
  };
  add("low alarm", t.low_alarm);
  add("low warn", t.low_warning);
  add("high warn", t.high_warning);
  add("high alarm", t.high_alarm);
  return s.empty() ? "" : std::string(what) + ": " + s;
}

}  // namespace

const char* counter_short_group(CounterGroup g) {
  switch (g) {
    case CounterGroup::kIbPortCounters: return "port";
    case CounterGroup::kIbHwCounters: return "hw";
    case CounterGroup::kNetdevStats: return "netdev";
    case CounterGroup::kEthtoolStats: return "ethtool";
    case CounterGroup::kLogEvents: return "log";
  }
  return "";
}

std::string fmt_counter_amount(double v, const std::string& unit) {
  if (unit == "bytes") return format_bytes_si(v);
  if (unit == "us") return format_seconds(v / 1e6);
  if (unit == "bits") return format_sig(v, 3) + " bit";
  if (!(v >= 0 && v < 18446744073709551616.0)) return format_sig(v, 3);  // no uint64 holds it
  return format_count(static_cast<uint64_t>(v));
}

std::string fmt_counter_value(const CounterChange& ch) {
  const std::string& unit = ch.counter.unit;
  const bool exact = unit != "bytes" && unit != "us" && unit != "bits";  // a count: every digit (2^64 - 2 too)
  return (ch.counter.saturated ? ">= " : "") +
         (exact ? format_count(ch.counter.value) : fmt_counter_amount(static_cast<double>(ch.counter.value), unit));
}

std::string fmt_counter_delta(const CounterChange& ch) {
  switch (ch.status) {
    case DeltaStatus::kAppeared: return "new";
    case DeltaStatus::kVanished: return "gone";
    case DeltaStatus::kReset: return "reset";
    case DeltaStatus::kMissing: return "unknown";
    default: break;
  }
  if (!ch.delta) return ch.at_least ? "maxed" : "?";
  std::string s = (ch.at_least ? ">= +" : "+") +
                  fmt_counter_amount(static_cast<double>(*ch.delta), ch.counter.unit);
  if (ch.status == DeltaStatus::kWrapped) s += " (wrap)";
  return s;
}

std::string fmt_counter_rate(const CounterChange& ch) {
  if (!ch.rate_per_s) return "";
  double r = *ch.rate_per_s;
  const std::string& u = ch.counter.unit;
  if (u == "bytes") return format_bytes_si(r) + "/s";
  if (u == "bits") return format_bits_per_s(r);
  if (u == "us") return format_sig(r / 1e4, 3) + " % paused";
  return format_rate_per_s(r);
}

std::optional<Section> links_section(const std::vector<LinkFacts>& links) {
  if (links.empty()) return std::nullopt;
  Section s;
  s.title = "links";
  Table t;
  t.columns = {"NETDEV", "LINK", "SPEED", "LANES", "DUPLEX", "AUTONEG", "FEC", "PAUSE RX/TX",
               "DOWN EVENTS", "DOWN REASON"};
  bool ioctl = false;
  for (const auto& l : links) {
    std::string reason = l.ext_state_name;
    if (!l.ext_substate_name.empty()) reason += " / " + l.ext_substate_name;
    t.rows.push_back(
        {l.netdev, yes_no(l.link_up, "up", "down"),
         l.speed_mbps ? format_bits_per_s(*l.speed_mbps * 1e6) : "?",
         l.lanes ? std::to_string(*l.lanes) : "-", l.duplex.empty() ? "?" : l.duplex,
         yes_no(l.autoneg), l.fec_active.empty() ? "-" : l.fec_active,
         (l.pause_rx || l.pause_tx) ? yes_no(l.pause_rx) + "/" + yes_no(l.pause_tx) : "-",
         l.link_down_events ? format_count(*l.link_down_events) : "-", reason.empty() ? "-" : reason});
    if (l.source.rfind("SIOCETHTOOL", 0) == 0) ioctl = true;
  }
  t.notes.push_back("\"-\" not reported by the driver; \"?\" unknown (a link that is down has no speed).");
  if (ioctl) t.notes.push_back("Read through the SIOCETHTOOL ioctl (ethtool netlink unavailable): no lanes, "
                               "link-down count, down reason or statistics.");
  s.tables.push_back(t);
  return s;
}

std::optional<Section> optics_section(const std::vector<ModuleDiagnostics>& optics,
                                      const std::string& indent) {
  if (optics.empty()) return std::nullopt;
  Section s;
  s.title = "optics";
  for (const auto& m : optics) {
    Table t;
    t.title = m.netdev + ":";
    std::string id = m.identifier_name;
    for (const std::string* part : {&m.vendor, &m.part_number})
      if (!part->empty()) id += (id.empty() ? "" : " ") + *part;
    t.title += " " + (id.empty() ? std::string("module") : id);
    if (m.standard != ModuleStandard::kUnknown || !m.module_state.empty()) {
      t.title += " (" + std::string(m.standard != ModuleStandard::kUnknown ? to_string(m.standard) : "");
      if (!m.module_state.empty())
        t.title += (m.standard != ModuleStandard::kUnknown ? ", " : "") + m.module_state;
      t.title += ")";
    }
    if (m.temperature_c) t.title += ", " + fixed(m.temperature_c, "%.1f") + " C";
    if (m.vcc_v) t.title += ", " + fixed(m.vcc_v, "%.3f") + " V";
    // Margin: dB to the nearer of the module's two warning thresholds, per lane and side.
    std::map<std::pair<std::string, int>, std::optional<double>> margin;
    for (const auto& pm : power_margins(m)) margin[{pm.direction, pm.lane}] = pm.nearest_warning_db();
    auto margin_cell = [&](const char* dir, int lane) {
      auto it = margin.find({dir, lane});
      if (it == margin.end() || !it->second) return std::string("-");
      return (*it->second >= 0 ? "+" : "") + fixed(it->second, "%.2f");
    };
    t.columns = {indent + "LANE", "RX dBm", "RX MARGIN dB", "TX dBm", "TX MARGIN dB", "TX BIAS mA"};
    t.align = {Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight};
    for (const auto& l : m.lanes)
      t.rows.push_back({indent + std::to_string(l.lane), dbm_cell(l.rx_power_mw), margin_cell("rx", l.lane),
                        dbm_cell(l.tx_power_mw), margin_cell("tx", l.lane), fixed(l.tx_bias_ma, "%.2f")});
    std::string rx = power_limits("rx", m.rx_power_limits_mw);
    std::string tx = power_limits("tx", m.tx_power_limits_mw);
    std::string temp;
    if (m.temperature_limits_c.high_warning || m.temperature_limits_c.high_alarm)
      temp = "temperature: high warn " + fixed(m.temperature_limits_c.high_warning, "%.1f") +
             " C, high alarm " + fixed(m.temperature_limits_c.high_alarm, "%.1f") + " C";
    if (rx.empty() && tx.empty() && temp.empty()) t.notes.push_back(indent + "module thresholds: none read");
    for (const auto& part : {rx, tx, temp})
      if (!part.empty()) t.notes.push_back(indent + "thresholds " + part);
    if (!rx.empty() || !tx.empty())
      t.notes.push_back(indent + "MARGIN: dB to the nearer warning threshold (negative = outside)");
    if (!m.rx_power_is_average) t.notes.push_back(indent + "rx power is OMA, not average power");
    for (const auto& f : m.raised_flags) t.notes.push_back(indent + "flag raised: " + f);
    for (const auto& n : m.notes) t.notes.push_back(indent + "note: " + n);
    if (!indent.empty()) t.notes.push_back("");
    s.tables.push_back(t);
  }
  if (!s.tables.empty() && !indent.empty()) s.tables.back().notes.pop_back();
  return s;
}

}  // namespace fabdiag::cmd
