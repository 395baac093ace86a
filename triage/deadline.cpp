#include "triage/deadline.h"

#include <algorithm>
#include <cmath>

namespace fabdiag::triage {

double default_deadline_s(int nodes, const WalkParams& p) {
  constexpr double kSweepFloorBytesPerS = 10e6;  // slower than this, a sweep is not worth waiting for
  constexpr double kPairFloorBytesPerS = 1e6;    // a pair test slower than this is as good as dead
  double sweeps_s = 0;
  for (const auto& s : p.sweeps) {
    double bytes = 0;
    for (double b = static_cast<double>(s.min_bytes); b <= static_cast<double>(s.max_bytes) && b > 0;
         b *= std::max(2.0, s.factor))
      bytes += b * (s.warmup + s.iters);
    sweeps_s += bytes / kSweepFloorBytesPerS;
  }
  const int screen_rounds = nodes <= p.round_robin_max_nodes ? (nodes % 2 == 0 ? nodes - 1 : nodes) : p.matching_rounds;
  const int confirm_rounds = 4 * p.localize.confirm_repeats + 2;
  // Adaptive sizing (pair_sizing): the screen's first round is measured at up to log_growth(max /
  // start) + 1 sizes, and every later test may run at the largest.
  uint64_t pair_bytes = p.pair_size_bytes;
  int sizing_rounds = 0;
  if (p.pair_sizing) {
    pair_bytes = std::max(pair_bytes, p.pair_sizing->max_bytes);
    for (uint64_t b = p.pair_sizing->start_bytes; b > 0 && b < p.pair_sizing->max_bytes;
         b *= static_cast<uint64_t>(std::max(2, p.pair_sizing->growth)))
      ++sizing_rounds;
  }
  double pair_test_s = static_cast<double>(pair_bytes) * (p.pair_iters + 1) / kPairFloorBytesPerS + 2;
  if (p.dead_after_s > 0) pair_test_s = std::min(pair_test_s, p.dead_after_s);
  const double deadline_s = 60 + sweeps_s + (screen_rounds + sizing_rounds + confirm_rounds) * pair_test_s + 3 * std::max(0.0, p.dead_after_s);
  return std::max(120.0, std::ceil(deadline_s));
}

}  // namespace fabdiag::triage
