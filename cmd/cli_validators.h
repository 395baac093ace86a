// CLI11 validators shared by the options of cmd/main.cpp, cmd/baseline.cpp and cmd/accept.cpp.
// Header-only and included by those alone: the translation units that pay for CLI11.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cmd/number_option.h"

namespace fabdiag::cmd {

// A finite number in [lo, hi] (cmd/number_option.h): NaN, inf, and "-1" for an unsigned option
// are refused with a message naming the option (CLI11 prefixes it), exit 2.
inline CLI::Validator number_in(double lo, double hi) {
  return CLI::Validator([lo, hi](std::string& text) { return check_number(text, lo, hi); },
                        "NUMBER in [" + CLI::detail::to_string(lo) + " - " + CLI::detail::to_string(hi) + "]");
}

}  // namespace fabdiag::cmd
