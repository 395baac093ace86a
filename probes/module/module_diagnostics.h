// Module (transceiver) diagnostics: THE model of one optical module's digital monitoring
// (DOM) for every source: the EEPROM decoder (probes/module/module_eeprom.h: pages from ethtool
// netlink, the legacy ioctl or a fixture) and the `ethtool -m` text importer
// (import/ethtool_m.h). Temperature, supply voltage, per-lane rx/tx optical power and tx
// bias, the module's own alarm/warning thresholds, and the alarm/warning flags it raised.
// Judged in one place: rules/optics.h. Units and offsets:
// docs/domain.md#module-eeprom-pages-and-units.
//
// Optical power is kept in mW, the unit the module stores (u16 x 0.1 uW, which `ethtool -m`
// prints exactly with 4 decimals; its dBm is that value rounded). A value and a threshold are
// always compared in the same unit, never a dBm number against a mW number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace fabdiag {

/// Memory map the module follows, from its identifier byte (SFF-8024).
enum class ModuleStandard {
  kUnknown,  ///< Not decoded from pages (an `ethtool -m` import, or an identifier not decoded here).
  kSff8636,  ///< QSFP/QSFP+/QSFP28 (0x0C, 0x0D, 0x11).
  kCmis,     ///< QSFP-DD, OSFP, DSFP, QSFP+/SFP+/SFP-DD with CMIS (0x18, 0x19, 0x1B, 0x1E-0x20).
  kSff8472,  ///< SFP/SFP+/SFP28 (0x03) with diagnostics at A2h.
};

/// "unknown", "sff8636", "cmis", "sff8472".
const char* to_string(ModuleStandard s);

/// A module's own limits for one quantity, in that quantity's unit; nullopt = not read.
struct ModuleThresholds {
  std::optional<double> high_alarm;
  std::optional<double> low_alarm;
  std::optional<double> high_warning;
  std::optional<double> low_warning;
  /// Where they were read ("page 03h bytes 176-183"); empty for an imported text.
  std::string where;
  bool any() const { return high_alarm || low_alarm || high_warning || low_warning; }
};

/// One optical lane (1-based; a single-lane module such as an SFP has lane 1). Power in mW,
/// bias in mA; nullopt when the module does not monitor it or it was not read. A power of
/// exactly 0 mW means no light (no dBm value).
struct ModuleLane {
  int lane = 0;
  std::optional<double> rx_power_mw;
  std::optional<double> tx_power_mw;
  std::optional<double> tx_bias_ma;
};

/// Diagnostics of the transceiver of one port.
struct ModuleDiagnostics {
  std::string netdev;        ///< The port's netdev; set by the reader or importer ("module" when unknown).
  uint8_t identifier = 0;    ///< SFF-8024 identifier byte (byte 0 of the lower page); 0 = unknown.
  std::string identifier_name;  ///< "QSFP28", "QSFP-DD", ...; empty when unknown.
  ModuleStandard standard = ModuleStandard::kUnknown;
  std::string vendor;        ///< Vendor name, trimmed (SFF-8636 148-163, CMIS 129-144, SFF-8472 20-35).
  std::string part_number;   ///< Vendor part number, trimmed.
  std::string serial;        ///< Vendor serial number, trimmed.
  /// CMIS: "ModuleReady", "ModuleLowPwr", ... (byte 3 bits 3:1); SFF-8636 from `ethtool -m`
  /// text: "ModuleLowPwr" when "Power set" and "Power override" are both On (low power forced).
  std::string module_state;
  bool flat_memory = false;  ///< No upper pages beyond 00h (no thresholds; CMIS: no lane monitors).
  bool rx_power_is_average = true;  ///< false: rx power is OMA (SFF-8636 byte 220 bit 3, SFF-8472 byte 92 bit 3).
  std::optional<double> temperature_c;  ///< Module temperature, degrees C.
  std::optional<double> vcc_v;          ///< Supply voltage, V.
  std::vector<ModuleLane> lanes;        ///< In lane order.
  ModuleThresholds temperature_limits_c;
  ModuleThresholds vcc_limits_v;
  ModuleThresholds rx_power_limits_mw;
  ModuleThresholds tx_power_limits_mw;
  ModuleThresholds tx_bias_limits_ma;
  /// Alarm/warning flags the module raised, as `ethtool -m` prints them when "On"
  /// ("Laser rx power low alarm (Chan 2)"). Not read from pages (the values are judged instead).
  std::vector<std::string> raised_flags;
  std::vector<std::string> notes;  ///< What could not be decoded and why ("flat memory: no thresholds").
  std::string source;              ///< Where it came from (netlink, ioctl, fixture path, imported file).

  /// The lane with this number, created (in lane order) when absent.
  ModuleLane& lane(int number);
};

/// dBm of a power in mW: 10 log10(mW); nullopt for 0 or less (no light).
std::optional<double> mw_to_dbm(double mw);
/// mW of a power in dBm: 10^(dBm / 10); -inf dBm gives 0 (no light).
double dbm_to_mw(double dbm);
/// The floor used where a dBm number is needed for no light (lane spread): -40 dBm.
constexpr double kNoLightDbm = -40.0;

/// Where one power reading sits between the module's limits, in dB (positive = inside).
struct PowerMargin {
  std::string direction;  ///< "tx" or "rx".
  int lane = 0;
  std::optional<double> value_dbm;              ///< nullopt = no light.
  std::optional<double> above_low_warning_db;   ///< value - low warning (no light: not computed).
  std::optional<double> below_high_warning_db;  ///< high warning - value.
  std::optional<double> above_low_alarm_db;     ///< value - low alarm.
  std::optional<double> below_high_alarm_db;    ///< high alarm - value.
  /// The smaller of the two warning margins; nullopt without warning thresholds or light.
  std::optional<double> nearest_warning_db() const;
};

/// Margins of every tx and rx power reading of `m` (tx first, then rx, in lane order), both
/// sides in dBm.
std::vector<PowerMargin> power_margins(const ModuleDiagnostics& m);

/// JSON: {netdev, identifier, identifier_name, standard, vendor, part_number, serial,
/// module_state, flat_memory, rx_power_is_average, temperature_c, vcc_v,
/// lanes[{lane, rx_power_mw, rx_power_dbm, tx_power_mw, tx_power_dbm, tx_bias_ma}],
/// thresholds{temperature_c, vcc_v, rx_power_mw, tx_power_mw, tx_bias_ma: {high_alarm,
/// low_alarm, high_warning, low_warning, where}}, margins[{direction, lane, value_dbm,
/// above_low_warning_db, below_high_warning_db, above_low_alarm_db, below_high_alarm_db}],
/// raised_flags, notes, source}; null for unknown values, and *_dbm null for no light (the
/// matching *_mw is 0).
void to_json(nlohmann::json& j, const ModuleDiagnostics& m);
/// Inverse of to_json(ModuleDiagnostics) (dBm and margins are derived, so they are not read
/// back). Throws nlohmann::json::exception on a member of the wrong type.
void from_json(const nlohmann::json& j, ModuleDiagnostics& m);

/// Parses to_string(ModuleStandard); kUnknown for anything else.
ModuleStandard parse_module_standard(const std::string& text);

}  // namespace fabdiag
