#include "cmd/number_option.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace fabdiag::cmd {

namespace {

// 0.001, 86400, 1099511627776: the bounds as a person writes them.
std::string bound_text(double v) {
  if (std::floor(v) == v && std::fabs(v) < 1e18) return std::to_string(static_cast<long long>(v));
  std::string s = std::to_string(v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  return s;
}

}  // namespace

std::string check_number(const std::string& text, double min, double max) {
  const std::string expected = "expected " + bound_text(min) + " to " + bound_text(max);
  if (text.empty()) return "an empty value is not a number: " + expected;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return "'" + text + "' is not a number: " + expected;
  // strtod also reads C99 hex floats ("0x10" = 16): nobody means a timeout in hex.
  if (text.find_first_of("xXpP") != std::string::npos) return "'" + text + "' is not a decimal number: " + expected;
  if (std::isnan(v)) return "'" + text + "' is not a number: " + expected;
  if (std::isinf(v) || errno == ERANGE) return "'" + text + "' is not a finite number: " + expected;
  if (v < 0 && min >= 0) return "'" + text + "' is negative: " + expected;
  if (v < min || v > max) return "'" + text + "' is out of range: " + expected;
  return "";
}

}  // namespace fabdiag::cmd
