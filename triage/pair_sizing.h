// Pair test sizes that adapt to the link (docs/localization.md#pair-test-size): the message must
// dwarf any burst or buffer on the path (a token bucket, socket buffers, a switch buffer), or a
// slow link passes a short test at the speed of the buffer. The screen's first round is run at
// growing sizes until every pair's rate settles, bounded in time; that size is used for the rest
// of the walk and the last run is the screen's first round.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "triage/localize.h"

namespace fabdiag::triage {

/// The growth rule.
struct PairSizingParams {
  uint64_t start_bytes = 1 << 20;     ///< First size (per direction).
  uint64_t max_bytes = 16ull << 20;   ///< Largest size: 4x Linux's default TCP buffer ceiling (4 MiB, tcp_wmem).
  int growth = 4;                     ///< Next size = growth x this one.
  double settle_tolerance = 0.05;     ///< Settled: every pair's rate within this of its rate at the previous size.
  double max_test_s = 0.5;            ///< Time bound: no larger size once the slowest pair test took this long.
};

/// One size tried.
struct SizingStep {
  uint64_t size_bytes = 0;
  double slowest_test_s = NAN;  ///< Longest pair test: size x iters / its rate (bytes/s per direction).
  double max_change = NAN;      ///< Largest |rate / rate at the previous size - 1| over the pairs; NaN at the first.
};

/// The outcome.
struct PairSizing {
  uint64_t size_bytes = 0;          ///< The size chosen (the last one measured that succeeded).
  std::vector<SizingStep> steps;    ///< In order of size.
  std::string stop;                 ///< "settled", "time_bound", "max_size" or "failed".
  std::vector<PairSample> samples;  ///< The pairs measured at size_bytes (empty when the first size failed).
};

/// Measures one round of the pairs at `size_bytes`; nullopt when the round failed.
using MeasureAt = std::function<std::optional<std::vector<PairSample>>(uint64_t size_bytes)>;

/// Runs `measure` at start_bytes, growth x start_bytes, ... until every pair's rate is within
/// settle_tolerance of the previous size's ("settled"), the slowest pair test reached max_test_s
/// ("time_bound"), the next size would pass max_bytes ("max_size"), or a round failed ("failed":
/// the previous size is kept). Pairs with a NaN rate are left out of both tests. `iters` is the
/// pair test's repetitions (the time of a test is size x iters / rate).
PairSizing size_pair_tests(const MeasureAt& measure, int iters, const PairSizingParams& p);

/// {size_bytes, stop, steps[] {size_bytes, slowest_test_s, max_change}}, NaN as null.
void to_json(nlohmann::json& j, const PairSizing& s);

}  // namespace fabdiag::triage
