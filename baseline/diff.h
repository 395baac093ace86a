// Diff of a result against a baseline: busbw per (collective, size_bytes) and bandwidth per
// host pair, as ratios current/baseline judged against a tolerance.
//
// Rules (docs/localization.md#baselines: "reference first", 0.90 of the baseline for collectives):
//   regression   current < (1 - tolerance) x baseline; warn, error when current <
//                (1 - 2 x tolerance) x baseline. Collectives: L1 `busbw_regression`; pairs: L2
//                `pair_bandwidth_regression`.
//   improvement  current > (1 + tolerance) x baseline; info `busbw_improvement` /
//                `pair_bandwidth_improvement`.
//   ok           otherwise, and whenever |current - baseline| is within the print resolution
//                of the sources (nccl-tests prints 0.01 GB/s) or the baseline is 0.
//   missing      measured on one side only. Pairs are matched by host NAME, never by index;
//                hosts present on one side only are gaps (not regressions), as are sizes and
//                pairs measured on one side only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "baseline/measurements.h"
#include "core/finding.h"
#include "core/result.h"

namespace fabdiag::baseline {

/// Default tolerance: a 10 % drop is a regression (nccl-tests, NGC and AzNHC practice).
inline constexpr double kDefaultTolerance = 0.10;

/// How one compared value came out.
enum class DiffStatus { kOk, kRegression, kImprovement, kMissing };
/// "ok", "regression", "improvement", "missing".
const char* to_string(DiffStatus s);

/// One compared value.
struct DiffRow {
  enum class Kind { kCollective, kPair };
  Kind kind = Kind::kCollective;
  std::string collective;       ///< Collective rows: "all_reduce".
  uint64_t size_bytes = 0;      ///< Collective rows: message size.
  std::string host_a, host_b;   ///< Pair rows: host names (a < b by name unless `directed`).
  bool directed = false;        ///< Pair rows: a -> b (row host -> column host of the matrix).
  std::optional<double> baseline_bytes_per_s;  ///< busbw or pair bandwidth in the baseline.
  std::optional<double> current_bytes_per_s;   ///< ... in the current result.
  std::optional<double> ratio;  ///< current / baseline; nullopt when missing or baseline is 0.
  DiffStatus status = DiffStatus::kOk;
  std::string missing_in;       ///< Missing rows: "baseline" or "current".
  std::optional<Severity> severity;  ///< Regressions: warn or error.

  /// "all_reduce 268435456 B", "node01<->node02" or "node01->node02".
  std::string subject() const;
};

/// Parameters of a diff.
struct DiffOptions {
  double tolerance = kDefaultTolerance;  ///< Relative drop allowed, 0 < tolerance < 0.5.
  std::string baseline_label = "baseline";  ///< Baseline name used in messages.
  std::string current_label = "current";    ///< Current file used in messages and gaps.
};

/// The typed result of `baseline diff` (data of a fabdiag.baseline_diff/1 envelope).
struct BaselineDiff {
  double tolerance = kDefaultTolerance;
  std::string baseline_label, current_label;
  std::string baseline_schema, current_schema;
  std::vector<DiffRow> rows;  ///< Collectives by (name, size), then pairs by host names.
  std::vector<std::string> hosts_only_in_baseline;  ///< Pairwise hosts, sorted.
  std::vector<std::string> hosts_only_in_current;
  std::vector<Finding> findings;  ///< One per regression or improvement, plus parameter notes.
  std::vector<Error> gaps;        ///< What could be compared on one side only.

  /// Rows with `status`.
  size_t count(DiffStatus status) const;
};

/// Checks 0 < tolerance < 0.5 (at 0.5 and above the error level 1 - 2 x tol is unreachable).
/// Errors: kInvalidArgument naming the value.
Status validate_tolerance(double tolerance);

/// Compares `current` against `baseline`. Rows where both sides lack a value are omitted.
/// Errors: kInvalidArgument for a bad tolerance or when the two share nothing to compare
/// (e.g. a bench baseline and a pairwise result).
Result<BaselineDiff> diff_measurements(const Measurements& baseline, const Measurements& current,
                                       const DiffOptions& options);

/// JSON data of fabdiag.baseline_diff/1: {baseline, current, baseline_schema, current_schema,
/// tolerance, summary {ok, regression, improvement, missing}, hosts_only_in_baseline,
/// hosts_only_in_current, rows[{kind: "collective"|"pair", collective+size_bytes |
/// host_a+host_b+directed, baseline_bytes_per_s, current_bytes_per_s, ratio, status,
/// missing_in?, severity?}]}. Values in bytes/s, null when absent.
void to_json(nlohmann::json& j, const BaselineDiff& d);

}  // namespace fabdiag::baseline
