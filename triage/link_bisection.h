// Stage 3 of docs/localization.md#one-slow-link (the design rule: "only if the screen failed and
// stage 2 explains nothing"): a slow link that no screen pair crossed. Three random matchings
// test a given pair with probability about 3/(N-1), so at scale the screen almost never sees a
// pair fault; the collective that was slow does. A ring all_reduce is as slow as its slowest
// ring edge and its ring joins the nodes in rank order, so when the all_reduce sweep is sick
// (busbw below sick_ratio x the screen's pair reference) and the screen and its confirmation
// name no node and no link, the walk probes the ring edges (i, i+1 mod N) with pair tests: as
// the control pairs of the confirmation rounds (even edges in the first, odd in the second), then
// in follow-up rounds for the edges not measured yet. A dark edge (ratio < pair_ratio and log z
// < -3.5 in its round) is re-tested until it has link_retests_for_family() slow re-tests (or one
// fast one clears it), and is named a link when both ends are fine with their other partners.
// Pure decision logic: the rounds run through a callback, so the walk, the unit tests and the
// simulation share it. Clusters up to round_robin_max_nodes never need it: their screen
// measures every pair.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "triage/localize.h"

namespace fabdiag::triage {

/// When and how long to probe (WalkParams::ring_probe).
struct RingProbeParams {
  bool on = true;           ///< Probe when the all_reduce is sick (and the screen was not all pairs).
  double sick_ratio = 0.9;  ///< all_reduce busbw below this x the pair reference is sick (docs/localization.md#one-slow-link).
  /// Pair rounds after the screen, the confirmation's included: the probe gets what the
  /// confirmation left (5: a 3-round screen plus 5 is the 8 rounds of issue 12's target; an edge
  /// first measured in the last-but-two round still gets its 2 re-tests).
  int max_rounds = 5;
};

/// busbw (bytes/s) of the largest message of the first "all_reduce" sweep in `bench`
/// (fabdiag.bench/1 data: {collective, results[] {size_bytes, busbw_bytes_per_s}}); NaN when there
/// is none. nccl-tests defines busbw so that it compares with the link's bandwidth at any rank
/// count (nccl-tests doc/PERFORMANCE.md), which makes the pair reference its expected value.
double all_reduce_busbw(const std::vector<nlohmann::json>& bench);

/// Whether the ring is worth probing: busbw < p.sick_ratio x s.pair_ref_bytes_per_s.
bool ring_is_sick(double busbw_bytes_per_s, const Screen& s, const RingProbeParams& p);

/// The edges of the ring in rank order, (i, i+1 mod n) written (low, high); n < 2: none, n == 2:
/// one.
std::vector<std::pair<int, int>> ring_edges(int n);

/// Runs one round of node-disjoint pair tests; samples carry the walk's round id; nullopt when
/// the round failed.
using RunPairRound = std::function<std::optional<std::vector<PairSample>>(const std::vector<std::pair<int, int>>&)>;

/// What the probe found.
struct RingProbe {
  std::vector<Suspect> links;             ///< Named links: kind "link", tests = re-tests, ratios to their round.
  std::vector<std::string> inconclusive;  ///< Dark edges still short of re-tests ("{i}" node ids).
  int rounds = 0;                         ///< Follow-up rounds run.
  int dark_edges = 0;                     ///< Edges whose first test was dark.
  int needed_retests = 0;                 ///< Slow re-tests an edge needed (link_retests_for_family()).
};

/// Stage 3 after the decision: `tested` is every pair test so far (screen and confirmation, with
/// the walk's round ids), `loc` the decision (its node suspects are no link ends). Runs up to
/// rp.max_rounds rounds through `run` (the walk passes what the confirmation left of them): the dark edges' re-tests first, then the edges never
/// measured, then any other ring edge between free nodes (the round's reference). Ends must have
/// been judged by the screen (>= min_partners partners) and not be named.
RingProbe probe_ring(const Screen& s, const Localization& loc, std::vector<PairSample> tested, const LocalizeParams& lp,
                     const RingProbeParams& rp, const RunPairRound& run);

}  // namespace fabdiag::triage
