#include "probes/optics_rules.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "core/text.h"

namespace fabdiag {
namespace {

std::string fmt(double v, const char* f = "%.2f") {
  char b[32];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string module_name(const ModuleDiagnostics& m) {
  std::string s = m.identifier_name;
  std::string vp = trim(m.vendor + " " + m.part_number);
  if (!vp.empty()) s += " " + vp;
  return s;
}

Evidence power_evidence(const std::string& dir, const ModuleLane& l, double mw,
                        std::optional<double> limit_mw, const std::string& limit_name,
                        const ModuleDiagnostics& m, const std::string& where) {
  Evidence e;
  e.metric = dir + " power lane " + std::to_string(l.lane);
  e.unit = "dBm";
  if (auto dbm = mw_to_dbm(mw)) {
    e.value = *dbm;
    e.value_text = fmt(mw, "%.4f") + " mW";
  } else {
    e.value_text = "no light (0 mW)";
  }
  if (limit_mw) {
    if (auto t = mw_to_dbm(*limit_mw)) e.threshold = *t;
    e.threshold_text = "module " + limit_name + " threshold, " + fmt(*limit_mw, "%.4f") + " mW";
  }
  e.source = "module EEPROM of " + m.netdev + " (" + where + ")";
  return e;
}

// Low-power rule for one direction; returns true when it fired.
bool low_power(const ModuleDiagnostics& m, const std::string& subject, bool rx,
               std::vector<Finding>& out) {
  const ModuleThresholds& lim = rx ? m.rx_power_limits_mw : m.tx_power_limits_mw;
  if (!lim.low_alarm && !lim.low_warning) return false;
  const std::string dir = rx ? "rx" : "tx";
  Finding f;
  f.layer = Layer::kPhysical;
  f.code = rx ? "optics_rx_power_low" : "optics_tx_power_low";
  f.subject = subject;
  std::vector<int> lanes;
  for (const auto& l : m.lanes) {
    auto mw = rx ? l.rx_power_mw : l.tx_power_mw;
    if (!mw) continue;
    if (lim.low_alarm && *mw < *lim.low_alarm) {
      f.severity = Severity::kError;
      f.evidence.push_back(power_evidence(dir, l, *mw, lim.low_alarm, "low-alarm", m, lim.where));
      lanes.push_back(l.lane);
    } else if (lim.low_warning && *mw < *lim.low_warning) {
      f.severity = std::max(f.severity, Severity::kWarn);
      f.evidence.push_back(power_evidence(dir, l, *mw, lim.low_warning, "low-warning", m, lim.where));
      lanes.push_back(l.lane);
    }
  }
  if (lanes.empty()) return false;
  std::string list;
  for (int n : lanes) list += (list.empty() ? "" : ", ") + std::to_string(n);
  f.message = dir + " optical power below the module's " +
              (f.severity == Severity::kError ? "low-alarm" : "low-warning") + " threshold on lane" +
              (lanes.size() > 1 ? "s " : " ") + list + " of " + module_name(m);
  f.action = rx ? "Clean the fibre connectors at both ends and reseat the module; if it stays low, "
                  "check the far-end transmitter (its tx power) and replace the cable or optic"
                : "The module's laser is weak or failing: replace the transceiver";
  out.push_back(f);
  return true;
}

void lane_spread(const ModuleDiagnostics& m, const std::string& subject, bool rx,
                 std::vector<Finding>& out) {
  std::vector<std::pair<int, double>> dbm;
  for (const auto& l : m.lanes) {
    auto mw = rx ? l.rx_power_mw : l.tx_power_mw;
    if (mw) dbm.emplace_back(l.lane, mw_to_dbm(*mw).value_or(kNoLightDbm));
  }
  if (dbm.size() < 2) return;
  auto by_power = [](const auto& a, const auto& b) { return a.second < b.second; };
  auto lo = std::min_element(dbm.begin(), dbm.end(), by_power);
  auto hi = std::max_element(dbm.begin(), dbm.end(), by_power);  // first of equals: lowest lane
  double spread = hi->second - lo->second;
  if (!(spread > kOpticsLaneSpreadDb)) return;
  const std::string dir = rx ? "rx" : "tx";
  Finding f;
  f.severity = Severity::kWarn;
  f.layer = Layer::kPhysical;
  f.code = rx ? "optics_rx_lane_spread" : "optics_tx_lane_spread";
  f.subject = subject;
  f.message = dir + " optical power differs by " + fmt(spread, "%.1f") + " dB between lane " +
              std::to_string(lo->first) + " and lane " + std::to_string(hi->first) + " of " +
              module_name(m);
  Evidence e;
  e.metric = dir + " power spread between lanes";
  e.value = spread;
  e.unit = "dB";
  e.threshold = kOpticsLaneSpreadDb;
  e.threshold_text = "DOMAIN.md section 5 (heuristic); no light counts as -40 dBm";
  e.source = "module EEPROM of " + m.netdev;
  f.evidence.push_back(e);
  for (const auto& [lane, v] : dbm) {
    Evidence le;
    le.metric = dir + " power lane " + std::to_string(lane);
    le.value = v;
    le.unit = "dBm";
    if (v <= kNoLightDbm) le.value_text = "no light";
    le.source = e.source;
    f.evidence.push_back(le);
  }
  f.action = rx ? "One lane is weak: clean the MPO/fibre connector and reseat; a lane that stays low "
                  "points at the fibre pair or the far-end laser of that lane"
                : "One transmitter lane is weak: replace the transceiver";
  out.push_back(f);
}

void temperature(const ModuleDiagnostics& m, const std::string& subject, std::vector<Finding>& out) {
  if (!m.temperature_c) return;
  double t = *m.temperature_c;
  const ModuleThresholds& lim = m.temperature_limits_c;
  Finding f;
  f.layer = Layer::kPhysical;
  f.code = "optics_temperature_high";
  f.subject = subject;
  Evidence e;
  e.metric = "module temperature";
  e.value = t;
  e.unit = "C";
  e.source = "module EEPROM of " + m.netdev;
  if (lim.high_alarm && t >= *lim.high_alarm) {
    f.severity = Severity::kError;
    e.threshold = *lim.high_alarm;
    e.threshold_text = "module high-alarm threshold (" + lim.where + ")";
  } else if (lim.high_warning && t >= *lim.high_warning) {
    f.severity = Severity::kWarn;
    e.threshold = *lim.high_warning;
    e.threshold_text = "module high-warning threshold (" + lim.where + ")";
  } else if (t > kOpticsMaxTemperatureC) {
    f.severity = Severity::kWarn;
    e.threshold = kOpticsMaxTemperatureC;
    e.threshold_text = "UFM PDR TMAX (DOMAIN.md section 1)";
  } else {
    return;
  }
  f.message = "module " + module_name(m) + " runs at " + fmt(t, "%.1f") + " C";
  f.action = "Check airflow and fans around the NIC/switch port and the module's seating; a module "
             "that stays hot ages fast and loses optical power";
  f.evidence.push_back(e);
  out.push_back(f);
}

}  // namespace

std::vector<Finding> optics_findings(const ModuleDiagnostics& module, const std::string& subject) {
  std::vector<Finding> out;
  bool rx_low = low_power(module, subject, true, out);
  bool tx_low = low_power(module, subject, false, out);
  if (!rx_low) lane_spread(module, subject, true, out);
  if (!tx_low) lane_spread(module, subject, false, out);
  temperature(module, subject, out);
  return out;
}

}  // namespace fabdiag
