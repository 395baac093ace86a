// Repeats summarised: a huge input must not give an output as large as itself. Lists of errors
// and findings keep their first entries of each kind and say how many more there were
// ("... and 12345 more like this"), so the count is never lost, only the copies.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/finding.h"
#include "core/result.h"

namespace fabdiag {

/// The default bound on listed repeats (`fabdiag import --max-findings`).
inline constexpr size_t kDefaultMaxListed = 200;

/// Errors collected while reading, bounded: at most `max_per_kind` errors of each kind are
/// kept (0 = no bound); the others are counted. The kind is a caller-given key naming what
/// went wrong ("row does not match its columns"), not the line.
class BoundedErrors {
 public:
  explicit BoundedErrors(size_t max_per_kind = kDefaultMaxListed) : max_(max_per_kind) {}
  /// Keeps `e` when its kind has fewer than max_per_kind entries, else counts it.
  void add(const std::string& kind, Error e);
  /// Errors kept, in the order added, each kind with dropped entries followed by one
  /// summary of the same code: "... and N more like this: <kind> (last at <source>)".
  std::vector<Error> take();
  /// Errors added (kept and dropped).
  size_t total() const { return total_; }
  /// Errors counted only (not kept).
  size_t dropped() const { return dropped_total_; }

 private:
  struct Dropped {
    size_t count = 0;
    ErrorCode code = ErrorCode::kParse;
    std::string last_source;
    size_t after = 0;  // index in kept_ of the kind's last kept entry
  };
  size_t max_;
  size_t total_ = 0, dropped_total_ = 0;
  std::vector<Error> kept_;
  std::map<std::string, size_t> per_kind_;
  std::map<std::string, Dropped> dropped_;
};

/// Bounds `findings` to `max_per_code` of each code (0 = no bound). The findings past the
/// bound are replaced by one finding of that code right after its last kept one: severity
/// the worst dropped, subject "N more", message "... and N more like this (<code>): subjects
/// a, b, ... (the first ten)", evidence {metric "findings not listed", value N}. Returns how
/// many were dropped.
size_t cap_findings(std::vector<Finding>& findings, size_t max_per_code);

/// The kind of an error message for the bounds above: the message up to its first digit or quote
/// ("row 17 does not match \"x\"" -> "row ").
std::string error_kind(const std::string& message);

/// Bounds `errors` the same way by their message's kind (the message up to its first digit
/// or quote, so "row 17 does not match" and "row 18 does not match" are one kind). Returns how
/// many were dropped.
size_t cap_errors(std::vector<Error>& errors, size_t max_per_kind);

}  // namespace fabdiag
