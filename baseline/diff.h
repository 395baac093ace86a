// Diff of a result against a baseline's history: busbw per (collective, size_bytes) and
// bandwidth per host pair, judged against the median of the last K runs and their spread.
//
// Rules (docs/localization.md#baselines-with-history: "reference first", 0.90 for collectives):
//   reference    ref = median of the key's last K saved values (all of them for a fleet
//                baseline); spread s = robust_sigma of those values (1.4826 x MAD with the
//                small-sample correction, baseline/trend.h) when there are >= 3 of them, unknown
//                with 1 or 2. Five values give a rough MAD, so s is at least the pooled noise
//                times ref: the median over the diff's keys of the same kind (collectives of one
//                scope, or pairs) of their night-to-night steps, pooled: robust_sigma of all
//                steps / median, over sqrt(2).
//   noise band   n = k x s x sqrt(1 + pi / (2 x runs)): k spreads of the current value plus the
//                uncertainty of a median of `runs` values. k = 3.5 by default, the modified
//                z-score limit of docs/localization.md#rules-for-deciding-under-noise.
//   regression   current < (1 - tolerance) x ref AND ref - current > n (s known), or the
//                tolerance alone when s is unknown. Warn; error only when s is known and
//                current < (1 - 2 x tolerance) x ref AND ref - current > 2 x n: with one or two
//                runs nobody knows the run-to-run noise, so a drop is never an error.
//   improvement  current > (1 + tolerance) x ref AND current - ref > n; info.
//   ok           otherwise (a drop beyond the tolerance but within k x s is ok, `within_noise`),
//                and whenever |current - ref| is within the print resolution of the sources
//                (nccl-tests prints 0.01 GB/s) or ref is 0.
//   drift        the last K values plus the current one fall steadily (baseline/trend.h):
//                info, warn when the fitted decline over the window reaches the tolerance.
//                Not judged on fleet baselines or on rows that already regressed.
// Findings are rolled up to their cause by baseline/rollup.h.
//   missing      measured on one side only. Pairs are matched by host NAME, never by index;
//                hosts present on one side only are gaps (not regressions), as are sizes and
//                pairs measured on one side only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "baseline/history.h"
#include "baseline/measurements.h"
#include "baseline/trend.h"
#include "core/finding.h"
#include "core/result.h"

namespace fabdiag::baseline {

/// Default tolerance: a 10 % drop is a regression (nccl-tests, NGC and AzNHC practice).
inline constexpr double kDefaultTolerance = 0.10;
/// Default K: runs of the history a value is compared with (a week of nightly runs).
inline constexpr size_t kDefaultLastRuns = 7;
/// Default k: a drop must exceed k x spread (3.5: the modified z-score limit, rule 2 of
/// docs/localization.md#rules-for-deciding-under-noise).
inline constexpr double kDefaultSpreadK = 3.5;
/// Values needed before a spread (MAD) is computed and an error can be raised.
inline constexpr size_t kMinSpreadRuns = 3;

/// A fraction as a percentage with one decimal: 0.953 -> "95.3%".
std::string percent_text(double fraction);

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
  std::string scope;            ///< Collective rows: history scope compared with (history.h).
  /// The reference: median of the last K saved values (busbw or pair bandwidth), bytes/s.
  std::optional<double> baseline_bytes_per_s;
  std::optional<double> current_bytes_per_s;   ///< ... in the current result.
  std::optional<double> ratio;  ///< current / reference; nullopt when missing or reference is 0.
  size_t runs = 0;              ///< Saved values the reference is the median of.
  /// max(robust_sigma of them, pooled noise x reference) with >= 3 values, bytes/s.
  std::optional<double> spread_bytes_per_s;
  bool within_noise = false;    ///< Ok although below the tolerance: within k x spread.
  std::optional<Trend> trend;   ///< Of the last K values plus the current one (>= 2 values).
  bool drift = false;           ///< trend is a steady decline (trend.h is_drift).
  DiffStatus status = DiffStatus::kOk;
  std::string missing_in;       ///< Missing rows: "baseline" or "current".
  std::optional<Severity> severity;  ///< Regressions: warn or error.

  /// "all_reduce 268435456 B", "node01<->node02" or "node01->node02".
  std::string subject() const;
};

/// Parameters of a diff.
struct DiffOptions {
  double tolerance = kDefaultTolerance;  ///< Relative drop allowed, 0 < tolerance < 0.5.
  size_t last_runs = kDefaultLastRuns;   ///< K: saved runs compared with, >= 1.
  double spread_k = kDefaultSpreadK;     ///< k: drops within k x spread are noise, > 0.
  std::string baseline_label = "baseline";  ///< Baseline name used in messages.
  std::string current_label = "current";    ///< Current file used in messages and gaps.
};

/// The typed result of `baseline diff` (data of a fabdiag.baseline_diff/1 envelope).
struct BaselineDiff {
  double tolerance = kDefaultTolerance;
  size_t last_runs = kDefaultLastRuns;
  double spread_k = kDefaultSpreadK;
  size_t history_runs = 0;      ///< Runs in the baseline's history.
  bool fleet = false;           ///< The baseline is a fleet baseline.
  std::vector<std::string> suspect_hosts;  ///< The current triage's suspects (rolled up first).
  std::string baseline_label, current_label;
  std::string baseline_schema, current_schema;
  std::vector<DiffRow> rows;  ///< Collectives by (name, size), then pairs by host names.
  std::vector<std::string> hosts_only_in_baseline;  ///< Pairwise hosts, sorted.
  std::vector<std::string> hosts_only_in_current;
  /// Rolled up (rollup.h): one per node, link or collective that changed, drift, parameter notes.
  std::vector<Finding> findings;
  std::vector<Error> gaps;        ///< What could be compared on one side only.

  /// Rows with `status`.
  size_t count(DiffStatus status) const;
};

/// Checks 0 < tolerance < 0.5 (at 0.5 and above the error level 1 - 2 x tol is unreachable).
/// Errors: kInvalidArgument naming the value.
Status validate_tolerance(double tolerance);

/// Checks last_runs >= 1 and spread_k > 0 (and the tolerance). Errors: kInvalidArgument
/// naming the option (--last, --spread-k, --tolerance).
Status validate_diff_options(const DiffOptions& options);

/// Compares `current` against `history`. Collectives are compared with the series of the
/// current run's scope (run_scope of its hosts), else scope "" (a multi-host or fleet
/// baseline), else the only scope the history has. Rows where both sides lack a value are
/// omitted. Errors: kInvalidArgument for bad options or when the two share nothing to compare
/// (e.g. a bench baseline and a pairwise result).
Result<BaselineDiff> diff_history(const History& history, const Measurements& current, const DiffOptions& options);

/// diff_history against a one-run history of `baseline` (tolerance only, never error).
Result<BaselineDiff> diff_measurements(const Measurements& baseline, const Measurements& current,
                                       const DiffOptions& options);

/// JSON data of fabdiag.baseline_diff/1: {baseline, current, baseline_schema, current_schema,
/// tolerance, last_runs, spread_k, history_runs, fleet, suspect_hosts, summary {ok, regression,
/// improvement, missing, within_noise, drift}, hosts_only_in_baseline, hosts_only_in_current,
/// rows[{kind: "collective"|"pair", collective+size_bytes+scope | host_a+host_b+directed,
/// baseline_bytes_per_s (the reference), current_bytes_per_s, ratio, runs, spread_bytes_per_s,
/// within_noise, relative_slope_per_run, drift, status, missing_in?, severity?}]}. Values in
/// bytes/s, null when absent.
void to_json(nlohmann::json& j, const BaselineDiff& d);

}  // namespace fabdiag::baseline
