// Module (transceiver) diagnostics decoded from EEPROM pages into the one module model
// (probes/module/module_diagnostics.h): temperature, supply voltage, per-lane rx/tx optical power and
// tx bias, with the module's own alarm/warning thresholds.
// Pure functions over probes/module/module_pages.h; the pages come from ethtool netlink, the legacy
// ioctl or a fixture file. Offsets and units: docs/domain.md#module-eeprom-pages-and-units,
// from SFF-8636, OIF-CMIS 4/5, SFF-8472 and ethtool's qsfp.c / cmis.c / sfpdiag.c.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "probes/module/module_diagnostics.h"
#include "probes/module/module_pages.h"

namespace fabdiag {

/// SFF-8024 name of an identifier byte ("QSFP28", "QSFP-DD", "OSFP"), or "0x.." when unknown.
std::string module_identifier_name(uint8_t identifier);

/// Decodes the pages of one module. Needs at least byte 0 (identifier) of the lower page;
/// missing optional pages (thresholds, lane monitors) leave fields empty and add a note.
/// SFF-8472 with external calibration applies the A2h calibration constants (slopes, offsets,
/// rx power polynomial) to monitors and thresholds. Errors: kNotFound when the lower page was
/// not read (no module or nothing stored).
Result<ModuleDiagnostics> decode_module_eeprom(const ModuleMemory& mem);

}  // namespace fabdiag
