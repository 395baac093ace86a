// A number as a table cell of an imported result: what the tool printed, give or take.
#pragma once

#include <string>

namespace fabdiag::cmd {

/// `v` with at most six decimals and no trailing zeros ("1.5", "2048", "0.000125"), as the
/// tables of `import osu|imb|perftest` show measured values (the JSON keeps the double).
inline std::string table_number(double v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

}  // namespace fabdiag::cmd
