// Small builders the accept check files share: an empty check row, a not-checked row with its
// reason, a number read from a JSON member, a number shown for people.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "accept/evaluate.h"

namespace fabdiag::accept {

/// A row of `check` about `subject` at `scope`, in `unit`, nothing measured yet.
inline CheckResult check_row(const std::string& scope, const std::string& subject, const std::string& check,
                             const std::string& unit) {
  CheckResult c;
  c.scope = scope;
  c.subject = subject;
  c.check = check;
  c.unit = unit;
  return c;
}

/// A node row that could not be checked, and why.
inline CheckResult not_checked_row(const std::string& host, const std::string& check, const std::string& unit,
                                   const std::string& why) {
  CheckResult c = check_row("node", host, check, unit);
  c.reason = why;
  return c;
}

/// j[key] when it is a number, else nullopt.
inline std::optional<double> json_number(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

/// 400 -> "400", 2.5 -> "2.5" (at most 6 significant digits).
inline std::string short_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

/// The strings of a JSON array joined with ", " ("GPU0, GPU1").
inline std::string join_names(const nlohmann::json& names) {
  std::string out;
  for (const auto& n : names)
    if (n.is_string()) out += (out.empty() ? "" : ", ") + n.get<std::string>();
  return out;
}

}  // namespace fabdiag::accept
