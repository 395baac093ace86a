#include "probes/module/module_diagnostics.h"

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

namespace {
void opt_from(const nlohmann::json& j, const char* key, std::optional<double>& out) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null()) out = it->get<double>();
}
ModuleThresholds thresholds_from(const nlohmann::json& j) {
  ModuleThresholds t;
  if (!j.is_object()) return t;
  opt_from(j, "high_alarm", t.high_alarm);
  opt_from(j, "low_alarm", t.low_alarm);
  opt_from(j, "high_warning", t.high_warning);
  opt_from(j, "low_warning", t.low_warning);
  t.where = j.value("where", "");
  return t;
}
}  // namespace

ModuleStandard parse_module_standard(const std::string& text) {
  for (ModuleStandard s : {ModuleStandard::kSff8636, ModuleStandard::kCmis, ModuleStandard::kSff8472})
    if (text == to_string(s)) return s;
  return ModuleStandard::kUnknown;
}

void from_json(const nlohmann::json& j, ModuleDiagnostics& m) {
  m.netdev = j.value("netdev", "");
  m.identifier = j.value("identifier", uint8_t{0});
  m.identifier_name = j.value("identifier_name", "");
  m.standard = parse_module_standard(j.value("standard", ""));
  m.vendor = j.value("vendor", "");
  m.part_number = j.value("part_number", "");
  m.serial = j.value("serial", "");
  m.module_state = j.value("module_state", "");
  m.flat_memory = j.value("flat_memory", false);
  m.rx_power_is_average = j.value("rx_power_is_average", true);
  opt_from(j, "temperature_c", m.temperature_c);
  opt_from(j, "vcc_v", m.vcc_v);
  for (const auto& l : j.value("lanes", nlohmann::json::array())) {
    ModuleLane lane;
    lane.lane = l.value("lane", 0);
    opt_from(l, "rx_power_mw", lane.rx_power_mw);
    opt_from(l, "tx_power_mw", lane.tx_power_mw);
    opt_from(l, "tx_bias_ma", lane.tx_bias_ma);
    m.lanes.push_back(lane);
  }
  const nlohmann::json th = j.value("thresholds", nlohmann::json::object());
  m.temperature_limits_c = thresholds_from(th.value("temperature_c", nlohmann::json()));
  m.vcc_limits_v = thresholds_from(th.value("vcc_v", nlohmann::json()));
  m.rx_power_limits_mw = thresholds_from(th.value("rx_power_mw", nlohmann::json()));
  m.tx_power_limits_mw = thresholds_from(th.value("tx_power_mw", nlohmann::json()));
  m.tx_bias_limits_ma = thresholds_from(th.value("tx_bias_ma", nlohmann::json()));
  m.raised_flags = j.value("raised_flags", std::vector<std::string>{});
  m.notes = j.value("notes", std::vector<std::string>{});
  m.source = j.value("source", "");
}

}  // namespace fabdiag
