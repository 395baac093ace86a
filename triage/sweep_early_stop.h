// When the triage walk lets its collective sweeps stop before their largest size
// (docs/localization.md#sweeps-that-stop-early). The screen runs before the sweeps; when it
// already names a slow node or link, a sweep through that fault runs at the fault's speed, and
// every larger size costs the slow node's time (issue 12: with one node at 100 Mbit/s the two
// sweeps took 57-77 % of triage's time to a verdict) without telling the walk more. So the sweep
// ends at the first size that shows the fault clearly: busbw below `ratio` x the screen's pair
// reference, at a size of at least `min_bytes`, after that size's skew probe
// (perf/sweep_stop.h). Without a candidate the sweeps run in full: a straggler shows only there.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "perf/sweep_stop.h"
#include "triage/localize.h"

namespace fabdiag::triage {

/// The rule's parameters (WalkParams::sweep_stop).
struct SweepStopParams {
  bool on = true;                    ///< `fabdiag triage --full-sweeps` turns it off.
  /// busbw below ratio x the pair reference shows the fault: half of what the healthy pairs
  /// carry, where a healthy fabric's all_reduce busbw reaches most of the link's rate
  /// (docs/thresholds.md#sweep-early-stop).
  double ratio = 0.5;
  uint64_t min_bytes = 1ull << 20;   ///< Smaller sizes never stop a sweep: latency-bound anywhere.
};

/// The stop limit for the sweeps after `screen` (hosts[i] names node i): with p.on, at least one
/// node or link candidate in the screen, and a finite, positive pair reference: {p.ratio x
/// s.pair_ref_bytes_per_s, p.min_bytes, a sentence naming the candidates and the numbers};
/// otherwise a limit of 0 (never stops) and an empty reason.
perf::SweepStop sweep_stop_after(const Screen& s, const std::vector<std::string>& hosts, const SweepStopParams& p);

}  // namespace fabdiag::triage
