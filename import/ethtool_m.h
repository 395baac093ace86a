// Import of `ethtool -m <netdev>` text (module EEPROM decoded by ethtool: SFF-8472, SFF-8636,
// CMIS) into the one module model, ModuleDiagnostics (probes/module/module_diagnostics.h), judged by
// rules/optics.h like a module read from EEPROM pages.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "import/common.h"
#include "import/input_reader.h"

namespace fabdiag {

/// Reads the digital-diagnostics lines of `ethtool -m` ("Label : value"):
///   Laser output power / Transmit avg optical power [(Channel N)]   "0.6770 mW / -1.69 dBm"
///   Receiver signal average optical power / Rcvr signal avg optical power / Receiver signal OMA
///   Laser [tx] bias current [(Channel N)]  "6.308 mA";  Module temperature  "37.91 degrees C / ..."
///   Module voltage  "3.3034 V";  "... high|low alarm|warning threshold" lines (the module's
///   limits; a threshold line is never taken for a measured value); "... alarm|warning ... : On"
///   flags (raised by the module); Identifier "0x11 (QSFP28)", Vendor name, Vendor PN,
///   Vendor SN (the module's identity).
/// Powers are kept in mW: the printed mW (exact: the module's 0.1 uW steps), else the dBm
/// converted ("-inf dBm" = 0 mW, no light). A reading without a channel is lane 1 (an SFP).
/// Other lines are ignored. The module's netdev is named by a section
/// title ("### ethtool -m swp1"), else `device`, else "module". Each "###" section with another
/// netdev is another module; the same netdev again replaces the earlier reading.
/// Errors: kParse when no diagnostic value or threshold is found.
Result<CounterImport> import_ethtool_m(LineSource& lines, const std::string& source, const std::string& device,
                                       const ReadLimits& limits);

/// The same over a text held in memory, with the default limits.
Result<CounterImport> import_ethtool_m(std::string_view text, const std::string& source,
                                       const std::string& device);

/// An optical power in mW: "0.6770 mW / -1.69 dBm" -> 0.677 (the mW form when printed);
/// "-1.69 dBm" alone -> 0.6776; "-inf dBm" -> 0 (no light). nullopt when neither form is there
/// or the value is garbled: a negative, NaN or infinite mW and a NaN or +inf dBm are no power
/// (the other form is used when it is valid).
std::optional<double> parse_optical_power_mw(std::string_view text);

}  // namespace fabdiag
