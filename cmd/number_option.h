// The check every numeric command-line option gets (cmd/main.cpp wraps it in a CLI11 validator):
// a finite number within the option's range. CLI11's own Range lets NaN through (every
// comparison with NaN is false) and an unsigned option turns "-1" into 2^64-1, so neither is
// enough on its own.
#pragma once

#include <string>

namespace fabdiag::cmd {

/// "" when `text` is a finite decimal number (as strtod reads it, the whole text) within
/// [min, max]; otherwise why not, for the message after the option's name: "nan is not a
/// number", "inf is not a finite number", "-1 is negative: expected 2 to 1099511627776",
/// "0.5 is out of range: expected 2 to 1099511627776", "ten is not a number", "0x10 is not a
/// decimal number" (strtod's hex floats are refused).
std::string check_number(const std::string& text, double min, double max);

}  // namespace fabdiag::cmd
