// Optical module diagnostics (digital optical monitoring, DOM): the measured levels of one
// transceiver with the module's own alarm and warning thresholds, their margins, and the
// judgement of DOMAIN.md sections 5 and 10 ("Low optical power / hot module"). Filled by
// `fabdiag import ethtool-m` (probes/import_ethtool_m.h) or by a module EEPROM decoder; judged
// here only when values are present.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/finding.h"

namespace fabdiag {

/// One optical power as the module or ethtool gives it. ethtool prints both forms
/// ("0.6770 mW / -1.69 dBm"); they are kept as printed, and a comparison always converts to
/// dBm first (a dBm number is never compared with a mW number).
struct OpticalPower {
  std::optional<double> mw;   ///< Milliwatts.
  std::optional<double> dbm;  ///< dBm as printed (-inf = no light).
  /// dBm as printed, else 10 * log10(mw) (-inf for 0 mW); nullopt when neither is known.
  std::optional<double> as_dbm() const;
  bool present() const { return mw.has_value() || dbm.has_value(); }
};

/// Alarm and warning limits of a power, as the module stores them (SFF-8472 A2h, SFF-8636
/// page 03h, CMIS page 02h). Absent = the module (or the capture) has none.
struct PowerLimits {
  OpticalPower high_alarm, low_alarm, high_warning, low_warning;
  bool any() const {
    return high_alarm.present() || low_alarm.present() || high_warning.present() ||
           low_warning.present();
  }
};

/// Alarm and warning limits of a scalar (temperature in degrees C, voltage in V, bias in mA).
struct ScalarLimits {
  std::optional<double> high_alarm, low_alarm, high_warning, low_warning;
};

/// One lane's (channel's) optical power; lane 0 = a single-lane module (SFP) or no channel number.
struct LanePower {
  int lane = 0;
  OpticalPower power;
};

/// One lane's laser bias current in mA; lane 0 as above.
struct LaneBias {
  int lane = 0;
  double ma = 0;
};

/// Diagnostics of the transceiver of one port.
struct ModuleDiagnostics {
  std::string device;  ///< Netdev it belongs to ("swp1"), as given by the capture or the user.
  std::string source;  ///< Where it was read: the imported file, or the EEPROM path.
  std::vector<LanePower> tx_power;  ///< Laser output power per lane.
  std::vector<LanePower> rx_power;  ///< Received optical power per lane (average or OMA).
  PowerLimits tx_power_limits;
  PowerLimits rx_power_limits;
  std::optional<double> temperature_c;
  ScalarLimits temperature_limits_c;
  std::optional<double> voltage_v;
  ScalarLimits voltage_limits_v;
  std::vector<LaneBias> tx_bias_ma;
  ScalarLimits tx_bias_limits_ma;
  /// Alarm/warning flags the module raised ("On"), as printed ("Laser rx power low alarm (Channel 2)").
  std::vector<std::string> raised_flags;
};

/// Where one power reading sits between the module's limits, in dB (positive = inside).
struct PowerMargin {
  std::string direction;  ///< "tx" or "rx".
  int lane = 0;
  double value_dbm = 0;
  std::optional<double> above_low_warning_db;   ///< value - low warning.
  std::optional<double> below_high_warning_db;  ///< high warning - value.
  std::optional<double> above_low_alarm_db;     ///< value - low alarm.
  std::optional<double> below_high_alarm_db;    ///< high alarm - value.
};

/// Margins of every tx and rx power reading of `m` (tx first, then rx, in lane order).
/// Both sides are taken in dBm: as printed, else converted from mW (never dBm against mW).
std::vector<PowerMargin> power_margins(const ModuleDiagnostics& m);

/// Judges `m` into at most one finding, code "optics", layer L4, subject m.device:
///  - a power below the module's low alarm (error) or low warning (warn), above its high alarm
///    (error) or high warning (warn); a negative dBm value is not low by itself;
///  - lanes of one direction more than 3 dB apart (warn; DOMAIN.md section 5, heuristic);
///  - temperature at or above the high alarm (error) or high warning (warn), or above 70 C
///    (warn; UFM PDR TMAX, DOMAIN.md section 1); voltage and bias outside their limits;
///  - alarm flags the module raised (alarm = error, warning = warn).
/// Evidence names the value, the limit and its source. Nothing when every value is inside.
std::vector<Finding> optics_findings(const ModuleDiagnostics& m);

/// One line for a person: "swp1: TX -1.69 dBm (+6.51 dB above low warning, 2.19 dB below
/// high warning); RX -2.36 dBm (+12.04 dB above low warning, 2.86 dB below high warning)".
std::string optics_summary(const ModuleDiagnostics& m);

/// JSON: {device, source, tx_power[{lane, mw, dbm}], rx_power[...], tx_power_limits{...},
/// rx_power_limits{...}, temperature_c, temperature_limits_c, voltage_v, voltage_limits_v,
/// tx_bias_ma[...], tx_bias_limits_ma, raised_flags[], margins[]}; absent values are null.
void to_json(nlohmann::json& j, const ModuleDiagnostics& m);

}  // namespace fabdiag
