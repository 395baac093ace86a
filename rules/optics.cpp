#include "rules/optics.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "core/text.h"

namespace fabdiag {
namespace {

std::string fmt(double v, const char* f = "%.2f") {
  char buf[32];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// "QSFP28 Mellanox MMA1B00-C100D"; empty when the source does not say.
std::string module_name(const ModuleDiagnostics& m) {
  return trim(m.identifier_name + " " + trim(m.vendor + " " + m.part_number));
}

// One problem found in a module.
enum class Part { kDark, kRxPower, kTxPower, kRxSpread, kTxSpread, kTemperature, kVoltage, kBias, kFlag };

struct Judge {
  explicit Judge(const ModuleDiagnostics& module) : m(module) {}
  const ModuleDiagnostics& m;
  Severity worst = Severity::kInfo;
  std::optional<Part> worst_part;
  std::vector<Evidence> evidence;
  std::vector<std::string> what;

  std::string source(const std::string& where) const {
    return where.empty() ? m.source : m.source + " (" + where + ")";
  }
  void add_evidence(Part p, Severity s, Evidence e) {
    if (!worst_part || s > worst) worst = s, worst_part = p;
    evidence.push_back(std::move(e));
  }
  void add(Part p, Severity s, Evidence e, std::string line) {
    add_evidence(p, s, std::move(e));
    what.push_back(std::move(line));
  }
};

std::string lane_label(const ModuleDiagnostics& m, bool rx, int lane) {
  std::string s = rx ? "RX power" : "TX power";
  if (m.lanes.size() > 1) s += " lane " + std::to_string(lane);
  return s;
}

std::string dbm_text(double mw) {
  auto d = mw_to_dbm(mw);
  return d ? fmt(*d) + " dBm" : "no light";
}

// Each lane against the module's power limits (evidence per lane, one message part per limit
// crossed); true when a lane is below a low limit.
bool judge_power(bool rx, Judge& j) {
  const ModuleThresholds& t = rx ? j.m.rx_power_limits_mw : j.m.tx_power_limits_mw;
  struct Check {
    const std::optional<double>& limit_mw;
    bool low;
    Severity sev;
    const char* name;
    std::vector<std::pair<int, double>> hits;  // lane, mW
  };
  Check checks[] = {{t.low_alarm, true, Severity::kError, "low alarm", {}},
                    {t.low_warning, true, Severity::kWarn, "low warning", {}},
                    {t.high_alarm, false, Severity::kError, "high alarm", {}},
                    {t.high_warning, false, Severity::kWarn, "high warning", {}}};
  const Part part = rx ? Part::kRxPower : Part::kTxPower;
  for (const auto& l : j.m.lanes) {
    auto mw = rx ? l.rx_power_mw : l.tx_power_mw;
    if (!mw) continue;
    for (auto& c : checks) {
      if (!c.limit_mw) continue;
      if (!(c.low ? *mw < *c.limit_mw : *mw > *c.limit_mw)) continue;
      auto dbm = mw_to_dbm(*mw);
      Evidence e = Evidence::number(lane_label(j.m, rx, l.lane), dbm, "dBm", j.source(t.where))
                       .expect(mw_to_dbm(*c.limit_mw), "the module's own " + std::string(c.name) + " threshold, " +
                                                           fmt(*c.limit_mw, "%.4f") +
                                                           " mW (docs/thresholds.md#optics)");
      e.value_text = dbm ? fmt(*mw, "%.4f") + " mW" : "no light (0 mW)";
      j.add_evidence(part, c.sev, std::move(e));
      c.hits.emplace_back(l.lane, *mw);
      break;  // alarms are checked first: one part per lane
    }
  }
  bool low_hit = false;
  for (const auto& c : checks) {
    if (c.hits.empty()) continue;
    low_hit = low_hit || c.low;
    std::string what = rx ? "RX power" : "TX power";
    if (c.hits.size() == 1) {
      if (j.m.lanes.size() > 1) what += " lane " + std::to_string(c.hits[0].first);
      what += " " + dbm_text(c.hits[0].second);
    } else {
      std::string lanes;
      double lo = c.hits[0].second, hi = lo;
      for (const auto& [lane, mw] : c.hits) {
        lanes += (lanes.empty() ? "" : ", ") + std::to_string(lane);
        lo = std::min(lo, mw);
        hi = std::max(hi, mw);
      }
      std::string range = lo == hi ? dbm_text(lo)
                          : mw_to_dbm(lo)   ? fmt(*mw_to_dbm(lo)) + " .. " + dbm_text(hi)
                                            : "no light .. " + dbm_text(hi);
      what += " lanes " + lanes + " (" + range + ")";
    }
    j.what.push_back(what + (c.low ? " below" : " above") + " the module's " + c.name + " " +
                     dbm_text(*c.limit_mw));
  }
  return low_hit;
}

void judge_spread(bool rx, Judge& j) {
  std::vector<std::pair<int, double>> dbm;
  for (const auto& l : j.m.lanes) {
    auto mw = rx ? l.rx_power_mw : l.tx_power_mw;
    if (mw) dbm.emplace_back(l.lane, mw_to_dbm(*mw).value_or(kNoLightDbm));
  }
  if (dbm.size() < 2) return;
  auto by_power = [](const auto& a, const auto& b) { return a.second < b.second; };
  auto lo = std::min_element(dbm.begin(), dbm.end(), by_power);
  auto hi = std::max_element(dbm.begin(), dbm.end(), by_power);
  double spread = hi->second - lo->second;
  if (!(spread > kOpticsLaneSpreadDb)) return;
  const std::string dir = rx ? "RX" : "TX";
  Evidence e = Evidence::number(dir + " power spread between lanes " + std::to_string(hi->first) + " and " +
                                    std::to_string(lo->first),
                                spread, "dB", j.m.source)
                   .expect(kOpticsLaneSpreadDb, "> 3 dB between lanes of one module "
                                                "(docs/thresholds.md#optics, "
                                                "heuristic); no light counts as -40 dBm");
  std::string low = lo->second <= kNoLightDbm ? "no light" : fmt(lo->second) + " dBm";
  j.add(rx ? Part::kRxSpread : Part::kTxSpread, Severity::kWarn, e,
        dir + " lanes " + fmt(spread) + " dB apart (lane " + std::to_string(lo->first) + " " + low + ")");
}

// Every lane's transmitter at 0 mW: the module sends no light at all (laser off: TX disabled,
// the port down, or the module held in low power mode). Judged without thresholds: a module
// with its laser on sends light. True when dark.
bool judge_dark(Judge& j) {
  size_t tx = 0, dark = 0;
  for (const auto& l : j.m.lanes)
    if (l.tx_power_mw) ++tx, dark += *l.tx_power_mw == 0.0;
  if (tx == 0 || dark != tx) return false;
  bool low_power = j.m.module_state == "ModuleLowPwr";
  Evidence e = Evidence::number(tx > 1 ? "TX power, all " + std::to_string(tx) + " lanes" : "TX power", 0.0, "mW",
                                j.m.source)
                   .expect(0, "> 0 mW: a module whose laser is on sends light (docs/thresholds.md#optics)");
  if (low_power)
    j.add_evidence(Part::kDark, Severity::kWarn,
                   Evidence::text("module state", "low power (Power set: On, Power override: On)", j.m.source)
                       .expect("high power: a module in low power mode keeps its lasers off"));
  j.add(Part::kDark, Severity::kWarn, e,
        std::string("no light from the transmitter on ") + (tx > 1 ? "any lane" : "its lane") +
            (low_power ? ": the host holds the module in low power mode (Power set: On), so its lasers are off"
                       : " (laser off: TX disabled, the port down, or low power mode)"));
  return true;
}

// A scalar against the module's limits; true when it is outside one.
bool judge_scalar(Part part, const std::string& name, const std::string& unit,
                  std::optional<double> v, const ModuleThresholds& t, Judge& j) {
  if (!v) return false;
  struct Check {
    const std::optional<double>& limit;
    bool low;
    Severity sev;
    const char* what;
  };
  const Check checks[] = {{t.high_alarm, false, Severity::kError, "high alarm"},
                          {t.high_warning, false, Severity::kWarn, "high warning"},
                          {t.low_alarm, true, Severity::kError, "low alarm"},
                          {t.low_warning, true, Severity::kWarn, "low warning"}};
  for (const auto& c : checks) {
    if (!c.limit) continue;
    if (!(c.low ? *v < *c.limit : *v >= *c.limit)) continue;
    Evidence e = Evidence::number(name, *v, unit, j.source(t.where))
                     .expect(*c.limit, "the module's own " + std::string(c.what) +
                                           " threshold (docs/thresholds.md#optics)");
    j.add(part, c.sev, e,
          name + " " + fmt(*v) + " " + unit + (c.low ? " below" : " at or above") + " the module's " +
              c.what + " " + fmt(*c.limit) + " " + unit);
    return true;
  }
  return false;
}

std::string action_for(Part p, const ModuleDiagnostics& m) {
  switch (p) {
    case Part::kDark:
      if (m.module_state == "ModuleLowPwr")
        return "Let the module leave low power mode (`ethtool --set-module " + m.netdev +
               " power-mode-policy high`; a module above 3.5 W needs its power class allowed), then read it "
               "again; the fibre and the far end are not the cause";
      return "If the port should carry traffic: check that it is up and its transmitter not disabled (ip link, the "
             "switch port configuration, the module's power mode), then reseat; a module that stays dark with TX "
             "enabled has a dead laser: replace it";
    case Part::kRxPower:
      return "Clean the fibre connectors at both ends and reseat the module; if it stays low, check "
             "the far-end transmitter (its TX power) and replace the cable or optic";
    case Part::kRxSpread:
      return "One lane is weak: clean the MPO/fibre connector and reseat; a lane that stays low "
             "points at the fibre pair or the far-end laser of that lane";
    case Part::kTxPower:
    case Part::kTxSpread:
    case Part::kBias:
      return "The module's laser is weak or failing: replace the transceiver";
    case Part::kTemperature:
      return "Check airflow and fans around the NIC/switch port and the module's seating; a module "
             "that stays hot ages fast and loses optical power";
    case Part::kVoltage:
      return "Supply voltage out of range: reseat the module; if it persists, the port's power "
             "supply or the module is faulty";
    case Part::kFlag: break;
  }
  return "Clean the connectors and check the fibre on both ends; compare with the far end's TX "
         "power; replace the transceiver or cable if it does not recover";
}

std::string margin_text(const PowerMargin& pm) {
  std::vector<std::string> parts;
  if (pm.above_low_warning_db) {
    double d = *pm.above_low_warning_db;
    parts.push_back(d >= 0 ? "+" + fmt(d) + " dB above low warning" : fmt(-d) + " dB BELOW low warning");
  }
  if (pm.below_high_warning_db) {
    double d = *pm.below_high_warning_db;
    parts.push_back(d >= 0 ? fmt(d) + " dB below high warning" : fmt(-d) + " dB ABOVE high warning");
  }
  if (!pm.value_dbm) return " (no light)";
  if (parts.empty()) return " (no thresholds: not judged)";
  return " (" + join(parts) + ")";
}

std::string value_text(const PowerMargin& pm) {
  return pm.value_dbm ? fmt(*pm.value_dbm) + " dBm" : "no light";
}

}  // namespace

std::optional<Finding> optics_finding(const ModuleDiagnostics& m) {
  Judge j(m);
  // A module held in low power mode has its lasers and receivers off: its zeros say nothing
  // about the fibre or the far end, so only the low power mode is reported.
  bool low_power = judge_dark(j) && m.module_state == "ModuleLowPwr";
  for (bool rx : {true, false})
    if (!low_power && !judge_power(rx, j)) judge_spread(rx, j);
  bool hot = judge_scalar(Part::kTemperature, "module temperature", "C", m.temperature_c,
                          m.temperature_limits_c, j);
  if (!hot && m.temperature_c && *m.temperature_c > kOpticsMaxTemperatureC) {
    Evidence e = Evidence::number("module temperature", *m.temperature_c, "C", m.source)
                     .expect(kOpticsMaxTemperatureC,
                             "> 70 C (UFM PDR TMAX, docs/thresholds.md#optics, heuristic)");
    j.add(Part::kTemperature, Severity::kWarn, e,
          "module temperature " + fmt(*m.temperature_c) + " C above 70 C");
  }
  judge_scalar(Part::kVoltage, "module voltage", "V", m.vcc_v, m.vcc_limits_v, j);
  for (const auto& l : m.lanes)
    judge_scalar(Part::kBias, m.lanes.size() > 1 ? "TX bias lane " + std::to_string(l.lane) : "TX bias",
                 "mA", l.tx_bias_ma, m.tx_bias_limits_ma, j);
  for (const auto& flag : m.raised_flags) {
    bool alarm = flag.find("alarm") != std::string::npos || flag.find("Alarm") != std::string::npos;
    Evidence e = Evidence::text(flag, "On", m.source).expect("Off (flag raised by the module itself)");
    j.add(Part::kFlag, alarm ? Severity::kError : Severity::kWarn, e, "module flag raised: " + flag);
  }
  if (!j.worst_part) return std::nullopt;
  Finding f;
  f.severity = j.worst;
  f.layer = Layer::kPhysical;
  f.code = "optics";
  f.subject = m.netdev;
  std::string name = module_name(m);
  std::string list;
  for (const auto& w : j.what) list += (list.empty() ? "" : "; ") + w;
  f.message = "optics out of margin on " + m.netdev + (name.empty() ? "" : " (" + name + ")") + ": " + list;
  f.evidence = std::move(j.evidence);
  f.action = action_for(*j.worst_part, m);
  return f;
}

std::string optics_summary(const ModuleDiagnostics& m) {
  std::string out = m.netdev + ":";
  auto margins = power_margins(m);
  bool any = false;
  const bool lanes = m.lanes.size() > 1;
  for (const char* dir : {"tx", "rx"}) {
    std::vector<const PowerMargin*> side;
    for (const auto& pm : margins)
      if (pm.direction == dir) side.push_back(&pm);
    if (side.empty()) continue;
    any = true;
    std::string name = std::string(" ") + (std::string(dir) == "tx" ? "TX" : "RX");
    if (side.size() <= 2) {
      for (const auto* pm : side)
        out += name + (lanes ? " lane " + std::to_string(pm->lane) : "") + " " + value_text(*pm) +
               margin_text(*pm) + ";";
      continue;
    }
    // Many lanes: the range, and the lane closest to a limit (no light first).
    auto room = [](const PowerMargin* pm) {
      if (!pm->value_dbm) return -1e9;
      return pm->nearest_warning_db().value_or(1e9);
    };
    const PowerMargin* worst = side.front();
    double lo = side.front()->value_dbm.value_or(kNoLightDbm), hi = lo;
    for (const auto* pm : side) {
      lo = std::min(lo, pm->value_dbm.value_or(kNoLightDbm));
      hi = std::max(hi, pm->value_dbm.value_or(kNoLightDbm));
      if (room(pm) < room(worst)) worst = pm;
    }
    out += name + " " + std::to_string(side.size()) + " lanes " + fmt(lo) + " .. " + fmt(hi) +
           " dBm, closest to a limit: lane " + std::to_string(worst->lane) + " " +
           value_text(*worst) + margin_text(*worst) + ";";
  }
  if (m.temperature_c) {
    out += " temperature " + fmt(*m.temperature_c) + " C;";
    any = true;
  }
  if (!any) out += " no optical readings;";
  out.pop_back();
  return out;
}

}  // namespace fabdiag
