// The history of a baseline: every saved run's values, one series per measured key, so a diff
// can judge a new run against the median and spread of the last K runs instead of one sample
// (docs/localization.md#baselines-with-history).
//
// Keys: a collective series is (scope, collective, size_bytes), where scope is the one host of a
// single-node run and "" for a run over several hosts (or a fleet baseline); a pair series is
// (host_a, host_b, directed), host_a < host_b by name unless directed.
//
// File: STORE/NAME.history, a JSON document next to STORE/NAME.json (which keeps the latest run
// as a readable envelope). Layout, fabdiag.baseline_history/1:
//   {schema, name, fleet: bool, runs: [{at, saved_at, started_at, source, schema, hosts[]}],
//    series: [{kind: "collective", scope, collective, size_bytes, backend, dtype, ranks|null,
//              resolution_bytes_per_s, points[{at, bytes_per_s, host?}]}
//           | {kind: "pair", host_a, host_b, directed, points[...]}]}
// runs[] and points[] are oldest first; `at` is the run's start time (its saved time when the
// result does not say). A store without NAME.history (written before histories existed) reads
// as a one-run history of NAME.json.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "baseline/measurements.h"
#include "core/result.h"

namespace fabdiag::baseline {

/// Default retention: runs kept per key (a month of nightly runs).
inline constexpr size_t kDefaultKeepRuns = 30;

/// One value of a series.
struct SeriesPoint {
  std::string at;          ///< UTC ISO 8601 time of the run.
  double bytes_per_s = 0;  ///< busbw (collective) or pair bandwidth, bytes/s.
  std::string host;        ///< Fleet series: the node the value came from; else empty.
};

/// The values of one key over the saved runs.
struct Series {
  enum class Kind { kCollective, kPair };
  Kind kind = Kind::kCollective;
  std::string scope;             ///< Collective: the single host measured, "" = multi-host run.
  std::string collective;        ///< Collective: "all_reduce".
  uint64_t size_bytes = 0;       ///< Collective: message size.
  std::string backend, dtype;    ///< Collective: of the latest run ("" = unknown).
  std::optional<int64_t> ranks;  ///< Collective: of the latest run.
  double resolution_bytes_per_s = 0;  ///< Collective: print resolution of the source.
  std::string host_a, host_b;    ///< Pair: host names.
  bool directed = false;         ///< Pair: a -> b.
  std::vector<SeriesPoint> points;  ///< Oldest first.

  /// The last `k` values (all when k is 0 or there are fewer), oldest first.
  std::vector<double> last_values(size_t k) const;
};

/// What one saved run was.
struct RunRecord {
  std::string at;          ///< started_at, else saved_at.
  std::string saved_at;    ///< When `baseline save` stored it.
  std::string started_at;  ///< The result's envelope started_at ("" = unknown).
  std::string source;      ///< The file it was saved from.
  std::string schema;      ///< The result's schema.
  std::vector<std::string> hosts;
};

/// All saved runs of one baseline.
struct History {
  std::string name;
  bool fleet = false;            ///< Built by `baseline fleet`: one point per node, not per run.
  std::vector<RunRecord> runs;   ///< Oldest first.
  std::vector<Series> series;    ///< Collectives by (scope, name, size), then pairs by names.

  /// The collective series of (scope, collective, size), or nullptr.
  const Series* find_collective(const std::string& scope, const std::string& collective, uint64_t size) const;
  /// The pair series of a and b: the directed one when `directed` and it exists, else the
  /// undirected one of the two names; nullptr when neither exists.
  const Series* find_pair(const std::string& a, const std::string& b, bool directed) const;
};

/// The collective scope of a run with these hosts: the host when there is exactly one, else "".
std::string run_scope(const std::vector<std::string>& hosts);

/// Adds one run's values to `h` (a new series per new key; the first value per key when a
/// collective appears twice), and records `run`. Pair values follow PairMatrix::value.
void append_run(History& h, const Measurements& m, const RunRecord& run);

/// Keeps the last `keep` runs (keep >= 1): older points of every series and older runs[] are
/// dropped, series left empty are removed. Returns the number of points dropped. Fleet
/// histories are never pruned (returns 0).
size_t prune_history(History& h, size_t keep);

/// JSON of fabdiag.baseline_history/1 (file comment).
nlohmann::json history_to_json(const History& h);
/// Reads fabdiag.baseline_history/1. Errors: kParse naming `source` and the part that is wrong.
Result<History> history_from_json(const nlohmann::json& j, const std::string& source);

}  // namespace fabdiag::baseline
