// A fleet baseline: the busbw of many nodes' single-node results per (collective, size), with
// the nodes that stand out dropped, so one slow node in the build cannot lower the bar
// (docs/localization.md#fleet-baselines). Per key, with at least kFleetMinNodes values, a value
// whose modified z-score (core/stats.h, MAD based) is beyond kFleetOutlierZ is an outlier and
// left out; the kept values become the key's points (one per node), so a diff against the
// fleet baseline uses the fleet median as reference and the node-to-node spread as noise.
// Pairwise matrices are per cluster, not per node: they are not part of a fleet baseline.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "baseline/history.h"
#include "baseline/measurements.h"
#include "core/result.h"

namespace fabdiag::baseline {

/// |modified z| beyond this drops a node's value from the fleet (Iglewicz and Hoaglin's 3.5).
inline constexpr double kFleetOutlierZ = 3.5;
/// The node-to-node spread (MAD) is floored at this share of the median before the z-score:
/// healthy nodes that agree to 0.1% make MAD ~0, and a value 2% off would otherwise score
/// +-inf and be dropped (found by review: 8 healthy values dropped, z shown as inf).
inline constexpr double kFleetMadFloorShare = 0.02;
/// Values per key needed before outliers are dropped (with fewer, all are kept).
inline constexpr size_t kFleetMinNodes = 3;

/// One node's result.
struct FleetInput {
  std::string source;         ///< The file it came from.
  std::string started_at;     ///< Its envelope's started_at ("" = unknown).
  Measurements measurements;  ///< Its host is run_scope(measurements.hosts), else `source`.
};

/// A value left out of the fleet.
struct FleetOutlier {
  std::string host, collective;
  uint64_t size_bytes = 0;
  double bytes_per_s = 0;      ///< Its busbw.
  double median_bytes_per_s = 0;  ///< The median of all values of the key.
  double modified_z = 0;
};

/// The built baseline.
struct FleetBaseline {
  History history;            ///< fleet = true; one run record per input.
  nlohmann::json document;    ///< A fabdiag.bench/1 envelope of the kept medians (NAME.json).
  std::vector<FleetOutlier> outliers;
  std::vector<Error> gaps;    ///< Inputs or parts not used (pairwise matrices, no collectives).
};

/// Builds the fleet baseline of `inputs`. Errors: kInvalidArgument with fewer than 2 inputs
/// holding collective results.
Result<FleetBaseline> build_fleet(const std::vector<FleetInput>& inputs);

}  // namespace fabdiag::baseline
