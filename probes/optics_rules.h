// Findings from module (transceiver) diagnostics: optical power below the module's own
// thresholds, lanes of one module far apart, a hot module. Layer L4 (physical). Thresholds:
// the module's alarm/warning values from its EEPROM; the 3 dB lane spread and the 70 C limit are
// the heuristics of DOMAIN.md sections 5 and 10 (70 C = UFM PDR TMAX).
#pragma once

#include <string>
#include <vector>

#include "core/finding.h"
#include "probes/module_eeprom.h"

namespace fabdiag {

/// Largest rx or tx power difference between lanes of one module before it is a finding, dB.
constexpr double kOpticsLaneSpreadDb = 3.0;
/// Module temperature above which a module is hot even when its thresholds say otherwise, C.
constexpr double kOpticsMaxTemperatureC = 70.0;

/// Findings for one module; `subject` names it (the netdev).
///   optics_rx_power_low / optics_tx_power_low: a lane below the module's low-alarm threshold
///     (error) or low-warning threshold (warn); one finding per direction, evidence per lane
///     (dBm; "no light" for 0 mW).
///   optics_rx_lane_spread / optics_tx_lane_spread (warn): max - min lane power > 3 dB (no light
///     counts as -40 dBm); not raised for a direction that already has a *_power_low finding,
///     whose evidence names the lanes.
///   optics_temperature_high: >= the high-alarm threshold (error), >= the high-warning
///     threshold or > 70 C (warn).
/// Nothing for quantities the module does not report; no threshold = no threshold rule.
std::vector<Finding> optics_findings(const ModuleDiagnostics& module, const std::string& subject);

}  // namespace fabdiag
