// A number as a table cell of an imported result: what the tool printed, give or take.
#pragma once

#include <cmath>
#include <cstdio>
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

/// Bytes per second as GB/s (10^9 bytes/s) with two decimals ("12.35"); "-" when not finite
/// (a pair that was not measured), as the pairwise tables of `import pairs|mpigraph` show them.
inline std::string table_gbs(double bytes_per_s) {
  if (!std::isfinite(bytes_per_s)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", bytes_per_s / 1e9);
  return buf;
}

}  // namespace fabdiag::cmd
