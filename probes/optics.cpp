#include "probes/optics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include <nlohmann/json.hpp>

namespace fabdiag {
namespace {

constexpr const char* kModuleLimits =
    "the module's own alarm/warning threshold (SFF-8472 / SFF-8636 / CMIS; DOMAIN.md section 5)";
constexpr const char* kSpreadBasis = "> 3 dB between lanes of one module (DOMAIN.md section 5, heuristic)";
constexpr const char* kTmaxBasis = "> 70 C (UFM PDR TMAX, DOMAIN.md section 1, heuristic)";
constexpr double kSpreadDb = 3.0;
constexpr double kTmaxC = 70.0;

std::string fmt2(double v) {
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string lane_name(const std::string& dir, int lane) {
  std::string s = dir == "tx" ? "TX power" : "RX power";
  if (lane > 0) s += " lane " + std::to_string(lane);
  return s;
}

struct Judge {
  Severity worst = Severity::kInfo;
  bool fired = false;
  std::vector<Evidence> evidence;
  std::vector<std::string> what;

  void add(Severity s, Evidence e, std::string line) {
    worst = fired ? std::max(worst, s) : s;
    fired = true;
    evidence.push_back(std::move(e));
    what.push_back(std::move(line));
  }
};

void judge_power(const std::string& dir, const std::vector<LanePower>& lanes,
                 const PowerLimits& lim, const std::string& source, Judge& j) {
  auto lim_dbm = [](const OpticalPower& p) { return p.as_dbm(); };
  for (const auto& lp : lanes) {
    auto v = lp.power.as_dbm();
    if (!v) continue;
    struct Check {
      std::optional<double> limit;
      bool low;
      Severity sev;
      const char* name;
    };
    const Check checks[] = {{lim_dbm(lim.low_alarm), true, Severity::kError, "low alarm"},
                            {lim_dbm(lim.low_warning), true, Severity::kWarn, "low warning"},
                            {lim_dbm(lim.high_alarm), false, Severity::kError, "high alarm"},
                            {lim_dbm(lim.high_warning), false, Severity::kWarn, "high warning"}};
    for (const auto& c : checks) {
      if (!c.limit) continue;
      bool out = c.low ? *v < *c.limit : *v > *c.limit;
      if (!out) continue;
      std::string name = lane_name(dir, lp.lane);
      Evidence e;
      e.metric = name;
      e.value = *v;
      e.unit = "dBm";
      e.threshold = *c.limit;
      e.threshold_text = std::string(c.low ? ">= " : "<= ") + fmt2(*c.limit) + " dBm, " + c.name +
                         ": " + kModuleLimits;
      e.source = source;
      j.add(c.sev, e,
            name + " " + fmt2(*v) + " dBm " + (c.low ? "below" : "above") + " the module's " +
                c.name + " " + fmt2(*c.limit) + " dBm");
      break;  // the alarm check comes first: one line per lane and side
    }
  }
  // Lane spread: only finite values (a dark lane is already below every low limit).
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  int lo_lane = 0, hi_lane = 0, n = 0;
  for (const auto& lp : lanes) {
    auto v = lp.power.as_dbm();
    if (!v || std::isinf(*v)) continue;
    ++n;
    if (*v < lo) lo = *v, lo_lane = lp.lane;
    if (*v > hi) hi = *v, hi_lane = lp.lane;
  }
  if (n >= 2 && hi - lo > kSpreadDb) {
    Evidence e;
    e.metric = (dir == "tx" ? std::string("TX") : std::string("RX")) + " power spread between lanes " +
               std::to_string(hi_lane) + " and " + std::to_string(lo_lane);
    e.value = hi - lo;
    e.unit = "dB";
    e.threshold = kSpreadDb;
    e.threshold_text = kSpreadBasis;
    e.source = source;
    j.add(Severity::kWarn, e,
          (dir == "tx" ? std::string("TX") : std::string("RX")) + " lanes " + fmt2(hi - lo) +
              " dB apart (lane " + std::to_string(lo_lane) + " " + fmt2(lo) + " dBm)");
  }
}

void judge_scalar(const std::string& name, const std::string& unit, std::optional<double> v,
                  const ScalarLimits& lim, const std::string& source, Judge& j) {
  if (!v) return;
  struct Check {
    std::optional<double> limit;
    bool low;
    Severity sev;
    const char* what;
  };
  const Check checks[] = {{lim.high_alarm, false, Severity::kError, "high alarm"},
                          {lim.high_warning, false, Severity::kWarn, "high warning"},
                          {lim.low_alarm, true, Severity::kError, "low alarm"},
                          {lim.low_warning, true, Severity::kWarn, "low warning"}};
  for (const auto& c : checks) {
    if (!c.limit) continue;
    bool out = c.low ? *v < *c.limit : *v >= *c.limit;
    if (!out) continue;
    Evidence e;
    e.metric = name;
    e.value = *v;
    e.unit = unit;
    e.threshold = *c.limit;
    e.threshold_text = std::string(c.what) + ": " + kModuleLimits;
    e.source = source;
    j.add(c.sev, e, name + " " + fmt2(*v) + " " + unit + " beyond the module's " + c.what + " " +
                        fmt2(*c.limit) + " " + unit);
    return;
  }
}

nlohmann::json opt(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json power_json(const OpticalPower& p) {
  if (!p.present()) return nullptr;
  nlohmann::json j;
  j["mw"] = opt(p.mw);
  // JSON has no infinity: "no light" is written as null dBm with mw 0.
  j["dbm"] = p.dbm && std::isinf(*p.dbm) ? nlohmann::json(nullptr) : opt(p.dbm);
  return j;
}

nlohmann::json limits_json(const PowerLimits& l) {
  return {{"high_alarm", power_json(l.high_alarm)},
          {"low_alarm", power_json(l.low_alarm)},
          {"high_warning", power_json(l.high_warning)},
          {"low_warning", power_json(l.low_warning)}};
}

nlohmann::json scalar_limits_json(const ScalarLimits& l) {
  return {{"high_alarm", opt(l.high_alarm)},
          {"low_alarm", opt(l.low_alarm)},
          {"high_warning", opt(l.high_warning)},
          {"low_warning", opt(l.low_warning)}};
}

}  // namespace

std::optional<double> OpticalPower::as_dbm() const {
  if (dbm) return dbm;
  if (!mw) return std::nullopt;
  if (*mw <= 0) return -std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(*mw);
}

std::vector<PowerMargin> power_margins(const ModuleDiagnostics& m) {
  std::vector<PowerMargin> out;
  auto side = [&](const std::string& dir, const std::vector<LanePower>& lanes, const PowerLimits& l) {
    for (const auto& lp : lanes) {
      auto v = lp.power.as_dbm();
      if (!v) continue;
      PowerMargin pm;
      pm.direction = dir;
      pm.lane = lp.lane;
      pm.value_dbm = *v;
      if (auto t = l.low_warning.as_dbm()) pm.above_low_warning_db = *v - *t;
      if (auto t = l.high_warning.as_dbm()) pm.below_high_warning_db = *t - *v;
      if (auto t = l.low_alarm.as_dbm()) pm.above_low_alarm_db = *v - *t;
      if (auto t = l.high_alarm.as_dbm()) pm.below_high_alarm_db = *t - *v;
      out.push_back(pm);
    }
  };
  side("tx", m.tx_power, m.tx_power_limits);
  side("rx", m.rx_power, m.rx_power_limits);
  return out;
}

std::vector<Finding> optics_findings(const ModuleDiagnostics& m) {
  Judge j;
  judge_power("tx", m.tx_power, m.tx_power_limits, m.source, j);
  judge_power("rx", m.rx_power, m.rx_power_limits, m.source, j);
  judge_scalar("module temperature", "C", m.temperature_c, m.temperature_limits_c, m.source, j);
  if (m.temperature_c && *m.temperature_c > kTmaxC &&
      !(m.temperature_limits_c.high_warning && *m.temperature_c >= *m.temperature_limits_c.high_warning)) {
    Evidence e;
    e.metric = "module temperature";
    e.value = *m.temperature_c;
    e.unit = "C";
    e.threshold = kTmaxC;
    e.threshold_text = kTmaxBasis;
    e.source = m.source;
    j.add(Severity::kWarn, e, "module temperature " + fmt2(*m.temperature_c) + " C above 70 C");
  }
  judge_scalar("module voltage", "V", m.voltage_v, m.voltage_limits_v, m.source, j);
  for (const auto& b : m.tx_bias_ma)
    judge_scalar(b.lane > 0 ? "TX bias lane " + std::to_string(b.lane) : "TX bias", "mA", b.ma,
                 m.tx_bias_limits_ma, m.source, j);
  for (const auto& flag : m.raised_flags) {
    bool alarm = flag.find("alarm") != std::string::npos || flag.find("Alarm") != std::string::npos;
    Evidence e;
    e.metric = flag;
    e.value_text = "On";
    e.threshold_text = "Off (flag raised by the module itself)";
    e.source = m.source;
    j.add(alarm ? Severity::kError : Severity::kWarn, e, "module flag raised: " + flag);
  }
  if (!j.fired) return {};
  Finding f;
  f.severity = j.worst;
  f.layer = Layer::kPhysical;
  f.code = "optics";
  f.subject = m.device;
  std::string list;
  for (const auto& w : j.what) list += (list.empty() ? "" : "; ") + w;
  f.message = "optics out of margin on " + m.device + ": " + list;
  f.evidence = std::move(j.evidence);
  f.action = "Clean the connectors and check the fibre for bends on both ends; compare with the "
             "far end's TX power; replace the transceiver or cable if it does not recover";
  return {f};
}

namespace {
std::string margin_text(const PowerMargin& pm) {
  std::vector<std::string> m2;
  if (pm.above_low_warning_db) {
    double d = *pm.above_low_warning_db;
    m2.push_back(d >= 0 ? "+" + fmt2(d) + " dB above low warning" : fmt2(-d) + " dB BELOW low warning");
  }
  if (pm.below_high_warning_db) {
    double d = *pm.below_high_warning_db;
    m2.push_back(d >= 0 ? fmt2(d) + " dB below high warning" : fmt2(-d) + " dB ABOVE high warning");
  }
  if (m2.empty()) return " (no thresholds in the input: not judged)";
  std::string out = " (";
  for (size_t i = 0; i < m2.size(); ++i) out += (i ? ", " : "") + m2[i];
  return out + ")";
}
}  // namespace

std::string optics_summary(const ModuleDiagnostics& m) {
  std::string out = m.device + ":";
  auto margins = power_margins(m);
  bool any = false;
  for (const char* dir : {"tx", "rx"}) {
    std::vector<const PowerMargin*> side;
    for (const auto& pm : margins)
      if (pm.direction == dir) side.push_back(&pm);
    if (side.empty()) continue;
    any = true;
    std::string name = std::string(" ") + (std::string(dir) == "tx" ? "TX" : "RX");
    if (side.size() <= 2) {
      for (const auto* pm : side)
        out += name + (pm->lane > 0 ? " lane " + std::to_string(pm->lane) : "") + " " +
               fmt2(pm->value_dbm) + " dBm" + margin_text(*pm) + ";";
      continue;
    }
    // Many lanes: the range, and the lane closest to a limit.
    const PowerMargin* worst = side.front();
    double lo = side.front()->value_dbm, hi = lo;
    auto room = [](const PowerMargin* pm) {
      double r = 1e9;
      if (pm->above_low_warning_db) r = std::min(r, *pm->above_low_warning_db);
      if (pm->below_high_warning_db) r = std::min(r, *pm->below_high_warning_db);
      return r;
    };
    for (const auto* pm : side) {
      lo = std::min(lo, pm->value_dbm);
      hi = std::max(hi, pm->value_dbm);
      if (room(pm) < room(worst)) worst = pm;
    }
    out += name + " " + std::to_string(side.size()) + " lanes " + fmt2(lo) + " .. " + fmt2(hi) +
           " dBm, closest to a limit: lane " + std::to_string(worst->lane) + " " +
           fmt2(worst->value_dbm) + " dBm" + margin_text(*worst) + ";";
  }
  if (m.temperature_c) {
    out += " temperature " + fmt2(*m.temperature_c) + " C;";
    any = true;
  }
  if (!any) out += " no optical readings;";
  out.pop_back();
  return out;
}

void to_json(nlohmann::json& j, const ModuleDiagnostics& m) {
  auto lanes = [](const std::vector<LanePower>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& lp : v) {
      nlohmann::json e = power_json(lp.power);
      e["lane"] = lp.lane;
      a.push_back(e);
    }
    return a;
  };
  j = nlohmann::json::object();
  j["device"] = m.device;
  j["source"] = m.source;
  j["tx_power"] = lanes(m.tx_power);
  j["rx_power"] = lanes(m.rx_power);
  j["tx_power_limits"] = limits_json(m.tx_power_limits);
  j["rx_power_limits"] = limits_json(m.rx_power_limits);
  j["temperature_c"] = opt(m.temperature_c);
  j["temperature_limits_c"] = scalar_limits_json(m.temperature_limits_c);
  j["voltage_v"] = opt(m.voltage_v);
  j["voltage_limits_v"] = scalar_limits_json(m.voltage_limits_v);
  nlohmann::json bias = nlohmann::json::array();
  for (const auto& b : m.tx_bias_ma) bias.push_back({{"lane", b.lane}, {"ma", b.ma}});
  j["tx_bias_ma"] = bias;
  j["tx_bias_limits_ma"] = scalar_limits_json(m.tx_bias_limits_ma);
  j["raised_flags"] = m.raised_flags;
  nlohmann::json margins = nlohmann::json::array();
  for (const auto& pm : power_margins(m)) {
    margins.push_back({{"direction", pm.direction},
                       {"lane", pm.lane},
                       {"value_dbm", std::isinf(pm.value_dbm) ? nlohmann::json(nullptr)
                                                              : nlohmann::json(pm.value_dbm)},
                       {"above_low_warning_db", opt(pm.above_low_warning_db)},
                       {"below_high_warning_db", opt(pm.below_high_warning_db)},
                       {"above_low_alarm_db", opt(pm.above_low_alarm_db)},
                       {"below_high_alarm_db", opt(pm.below_high_alarm_db)}});
  }
  j["margins"] = margins;
}

}  // namespace fabdiag
