#include "probes/module_diagnostics.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

namespace fabdiag {
namespace {

nlohmann::json opt(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json dbm_json(const std::optional<double>& mw) {
  if (!mw) return nullptr;
  return opt(mw_to_dbm(*mw));
}

nlohmann::json thresholds_json(const ModuleThresholds& t) {
  return nlohmann::json{{"high_alarm", opt(t.high_alarm)},
                        {"low_alarm", opt(t.low_alarm)},
                        {"high_warning", opt(t.high_warning)},
                        {"low_warning", opt(t.low_warning)},
                        {"where", t.where}};
}

std::optional<double> limit_dbm(const std::optional<double>& mw) {
  if (!mw) return std::nullopt;
  return mw_to_dbm(*mw).value_or(kNoLightDbm);  // a 0 mW limit: as low as a limit goes
}

}  // namespace

const char* to_string(ModuleStandard s) {
  switch (s) {
    case ModuleStandard::kSff8636: return "sff8636";
    case ModuleStandard::kCmis: return "cmis";
    case ModuleStandard::kSff8472: return "sff8472";
    case ModuleStandard::kUnknown: break;
  }
  return "unknown";
}

ModuleLane& ModuleDiagnostics::lane(int number) {
  auto it = std::find_if(lanes.begin(), lanes.end(), [&](const ModuleLane& l) { return l.lane >= number; });
  if (it != lanes.end() && it->lane == number) return *it;
  ModuleLane l;
  l.lane = number;
  return *lanes.insert(it, l);
}

std::optional<double> mw_to_dbm(double mw) {
  if (!(mw > 0)) return std::nullopt;
  return 10.0 * std::log10(mw);
}

double dbm_to_mw(double dbm) {
  if (std::isinf(dbm) && dbm < 0) return 0.0;
  return std::pow(10.0, dbm / 10.0);
}

std::optional<double> PowerMargin::nearest_warning_db() const {
  if (above_low_warning_db && below_high_warning_db)
    return std::min(*above_low_warning_db, *below_high_warning_db);
  return above_low_warning_db ? above_low_warning_db : below_high_warning_db;
}

std::vector<PowerMargin> power_margins(const ModuleDiagnostics& m) {
  std::vector<PowerMargin> out;
  for (bool rx : {false, true}) {
    const ModuleThresholds& t = rx ? m.rx_power_limits_mw : m.tx_power_limits_mw;
    for (const auto& l : m.lanes) {
      auto mw = rx ? l.rx_power_mw : l.tx_power_mw;
      if (!mw) continue;
      PowerMargin pm;
      pm.direction = rx ? "rx" : "tx";
      pm.lane = l.lane;
      pm.value_dbm = mw_to_dbm(*mw);
      if (pm.value_dbm) {
        double v = *pm.value_dbm;
        if (auto x = limit_dbm(t.low_warning)) pm.above_low_warning_db = v - *x;
        if (auto x = limit_dbm(t.high_warning)) pm.below_high_warning_db = *x - v;
        if (auto x = limit_dbm(t.low_alarm)) pm.above_low_alarm_db = v - *x;
        if (auto x = limit_dbm(t.high_alarm)) pm.below_high_alarm_db = *x - v;
      }
      out.push_back(pm);
    }
  }
  return out;
}

void to_json(nlohmann::json& j, const ModuleDiagnostics& m) {
  nlohmann::json lanes = nlohmann::json::array();
  for (const auto& l : m.lanes)
    lanes.push_back({{"lane", l.lane},
                     {"rx_power_mw", opt(l.rx_power_mw)},
                     {"rx_power_dbm", dbm_json(l.rx_power_mw)},
                     {"tx_power_mw", opt(l.tx_power_mw)},
                     {"tx_power_dbm", dbm_json(l.tx_power_mw)},
                     {"tx_bias_ma", opt(l.tx_bias_ma)}});
  nlohmann::json margins = nlohmann::json::array();
  for (const auto& pm : power_margins(m))
    margins.push_back({{"direction", pm.direction},
                       {"lane", pm.lane},
                       {"value_dbm", opt(pm.value_dbm)},
                       {"above_low_warning_db", opt(pm.above_low_warning_db)},
                       {"below_high_warning_db", opt(pm.below_high_warning_db)},
                       {"above_low_alarm_db", opt(pm.above_low_alarm_db)},
                       {"below_high_alarm_db", opt(pm.below_high_alarm_db)}});
  j = nlohmann::json{{"netdev", m.netdev},
                     {"identifier", m.identifier},
                     {"identifier_name", m.identifier_name},
                     {"standard", to_string(m.standard)},
                     {"vendor", m.vendor},
                     {"part_number", m.part_number},
                     {"serial", m.serial},
                     {"module_state", m.module_state},
                     {"flat_memory", m.flat_memory},
                     {"rx_power_is_average", m.rx_power_is_average},
                     {"temperature_c", opt(m.temperature_c)},
                     {"vcc_v", opt(m.vcc_v)},
                     {"lanes", lanes},
                     {"thresholds",
                      {{"temperature_c", thresholds_json(m.temperature_limits_c)},
                       {"vcc_v", thresholds_json(m.vcc_limits_v)},
                       {"rx_power_mw", thresholds_json(m.rx_power_limits_mw)},
                       {"tx_power_mw", thresholds_json(m.tx_power_limits_mw)},
                       {"tx_bias_ma", thresholds_json(m.tx_bias_limits_ma)}}},
                     {"margins", margins},
                     {"raised_flags", m.raised_flags},
                     {"notes", m.notes},
                     {"source", m.source}};
}

}  // namespace fabdiag
