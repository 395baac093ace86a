// Optics judgement: the ONE place where a module's diagnostics (probes/module/module_diagnostics.h,
// from the EEPROM decoder or an `ethtool -m` import) become a finding, docs/thresholds.md#optics
// (units: docs/domain.md#module-eeprom-pages-and-units). Thresholds: the module's own alarm/warning
// values; the 3 dB lane spread and the 70 C limit are heuristics (70 C = UFM PDR TMAX,
// docs/thresholds.md#optics).
#pragma once

#include <optional>
#include <string>

#include "core/finding.h"
#include "probes/module/module_diagnostics.h"

namespace fabdiag {

/// Largest rx or tx power difference between lanes of one module before it is a problem, dB.
constexpr double kOpticsLaneSpreadDb = 3.0;
/// Module temperature above which a module is hot even when its thresholds say otherwise, C.
constexpr double kOpticsMaxTemperatureC = 70.0;

/// Judges `m` into at most one finding (the symptom "optics out of margin"), code "optics",
/// layer L4, subject m.netdev, severity the worst of its parts; evidence per part:
///  - a lane's rx or tx power below the module's low alarm (error) or low warning (warn), above
///    its high alarm (error) or high warning (warn); value and threshold compared in one unit,
///    shown in dBm ("no light" for 0 mW); a negative dBm value is not low by itself;
///  - lanes of one direction more than 3 dB apart (warn; no light counts as -40 dBm), not
///    repeated for a direction that already has a low-power part (its evidence names the lanes);
///  - temperature at or above the high alarm (error) or high warning (warn), below the low
///    alarm/warning, or above 70 C (warn); supply voltage and tx bias outside their limits;
///  - alarm/warning flags the module raised (alarm = error, warning = warn).
/// Quantities the module does not report, and thresholds it does not have, are not judged.
/// nullopt when every value is inside.
std::optional<Finding> optics_finding(const ModuleDiagnostics& m);

/// One line for a person: "swp1: TX -1.69 dBm (+6.50 dB above low warning, 2.19 dB below high
/// warning); RX ...; temperature 41.30 C". Lane numbers only for multi-lane modules; a module
/// with more than two lanes gets its range and the lane closest to a limit.
std::string optics_summary(const ModuleDiagnostics& m);

}  // namespace fabdiag
