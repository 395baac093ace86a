// Module (transceiver) diagnostics decoded from EEPROM pages: temperature, supply voltage,
// per-lane rx/tx optical power and tx bias, with the module's own alarm/warning thresholds.
// Pure functions over probes/module_pages.h; the pages come from ethtool netlink, the legacy
// ioctl or a fixture file. Offsets and units: DOMAIN.md section 5, from SFF-8636, OIF-CMIS 4/5,
// SFF-8472 and ethtool's qsfp.c / cmis.c / sfpdiag.c.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/result.h"
#include "probes/module_pages.h"

namespace fabdiag {

/// Memory map the module follows, from its identifier byte (SFF-8024).
enum class ModuleStandard {
  kUnknown,  ///< Identifier not decoded here (diagnostics empty, a note says which).
  kSff8636,  ///< QSFP/QSFP+/QSFP28 (0x0C, 0x0D, 0x11).
  kCmis,     ///< QSFP-DD, OSFP, DSFP, QSFP+/SFP+/SFP-DD with CMIS (0x18, 0x19, 0x1B, 0x1E-0x20).
  kSff8472,  ///< SFP/SFP+/SFP28 (0x03) with diagnostics at A2h.
};

/// "unknown", "sff8636", "cmis", "sff8472".
const char* to_string(ModuleStandard s);

/// SFF-8024 name of an identifier byte ("QSFP28", "QSFP-DD", "OSFP"), or "0x.." when unknown.
std::string module_identifier_name(uint8_t identifier);

/// A module's own limits for one quantity, in that quantity's unit; nullopt = not read.
struct ModuleThresholds {
  std::optional<double> high_alarm;
  std::optional<double> low_alarm;
  std::optional<double> high_warning;
  std::optional<double> low_warning;
  /// Where they were read ("page 03h bytes 176-183"), for evidence.
  std::string where;
  bool any() const { return high_alarm || low_alarm || high_warning || low_warning; }
};

/// One optical lane (1-based). Power in mW (raw u16 x 0.1 uW), bias in mA (raw x 2 uA x the
/// CMIS multiplier); nullopt when the module does not monitor it or the page was not read.
/// A power of exactly 0 mW means no light (no dBm value).
struct ModuleLane {
  int lane = 0;
  std::optional<double> rx_power_mw;
  std::optional<double> tx_power_mw;
  std::optional<double> tx_bias_ma;
};

/// Decoded diagnostics of one module.
struct ModuleDiagnostics {
  std::string netdev;        ///< Set by the reader (the decoder leaves it empty).
  uint8_t identifier = 0;    ///< Byte 0 of the lower page.
  std::string identifier_name;
  ModuleStandard standard = ModuleStandard::kUnknown;
  std::string vendor;        ///< Vendor name, trimmed (SFF-8636 148-163, CMIS 129-144, SFF-8472 20-35).
  std::string part_number;   ///< Vendor part number, trimmed.
  std::string serial;        ///< Vendor serial number, trimmed.
  std::string module_state;  ///< CMIS only: "ModuleReady", "ModuleLowPwr", ... (byte 3 bits 3:1).
  bool flat_memory = false;  ///< No upper pages beyond 00h (no thresholds; CMIS: no lane monitors).
  bool rx_power_is_average = true;  ///< false: rx power is OMA (SFF-8636 byte 220 bit 3, SFF-8472 byte 92 bit 3).
  std::optional<double> temperature_c;  ///< Module temperature, degrees C (s16 / 256).
  std::optional<double> vcc_v;          ///< Supply voltage, V (u16 x 100 uV).
  std::vector<ModuleLane> lanes;
  ModuleThresholds temperature_limits_c;
  ModuleThresholds vcc_limits_v;
  ModuleThresholds rx_power_limits_mw;
  ModuleThresholds tx_power_limits_mw;
  ModuleThresholds tx_bias_limits_ma;
  std::vector<std::string> notes;  ///< What could not be decoded and why ("flat memory: no thresholds").
  std::string source;              ///< Where the pages came from (netlink, ioctl, fixture path).
};

/// dBm of a power in mW: 10 log10(mW); nullopt for 0 or less (no light).
std::optional<double> mw_to_dbm(double mw);
/// The floor used where a dBm number is needed for no light (lane spread): -40 dBm.
constexpr double kNoLightDbm = -40.0;

/// Decodes the pages of one module. Needs at least byte 0 (identifier) of the lower page;
/// missing optional pages (thresholds, lane monitors) leave fields empty and add a note.
/// SFF-8472 with external calibration applies the A2h calibration constants (slopes, offsets,
/// rx power polynomial) to monitors and thresholds. Errors: kNotFound when the lower page was
/// not read (no module or nothing stored).
Result<ModuleDiagnostics> decode_module_eeprom(const ModuleMemory& mem);

/// JSON: {netdev, identifier, identifier_name, standard, vendor, part_number, serial,
/// module_state, flat_memory, rx_power_is_average, temperature_c, vcc_v,
/// lanes[{lane, rx_power_mw, rx_power_dbm, tx_power_mw, tx_power_dbm, tx_bias_ma}],
/// thresholds{temperature_c, vcc_v, rx_power_mw, tx_power_mw, tx_bias_ma: {high_alarm,
/// low_alarm, high_warning, low_warning}}, notes, source}; null for unknown values, and
/// *_dbm null for no light (the matching *_mw is 0).
void to_json(nlohmann::json& j, const ModuleDiagnostics& m);

}  // namespace fabdiag
