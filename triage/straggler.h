// Stragglers from the collective itself (docs/localization.md#stragglers): the collective sweeps'
// skew probe (perf/sync_skew.h) gives, per size, each rank's median entry lateness and its median
// wait in the call. A rank that enters late while the others wait for it is a straggler (a slow or
// busy CPU, a slow GPU) that no pair test can see: a pair test has no sync point with the rest.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "triage/walk.h"

namespace fabdiag::triage {

/// One size of a sweep's skew probe; per rank (index = rank), seconds.
struct SkewRow {
  uint64_t size_bytes = 0;
  std::vector<double> entry_lateness_s;  ///< fabdiag.bench/1 results[].entry_lateness_s
  std::vector<double> wait_s;            ///< results[].wait_s
  double iteration_s = 0;                ///< results[].skew_iteration_s
};

/// The skew probe of one sweep.
struct SweepSkew {
  std::string collective;
  std::vector<std::string> hosts;  ///< Per rank.
  std::vector<SkewRow> rows;       ///< Only the sizes whose probe covered every rank.
};

/// The straggler rule's limits. A rank is late at a size when its entry lateness is above
/// max(median_factor x the median rank's lateness, iteration_share x the step time, floor_s)
/// and its own wait is below the median rank's wait (the others waited for it, C4D's
/// signature). It is a straggler of the sweep when late at more than half of the sizes
/// (2 of 3). Needs >= 3 ranks: with two, the median is the mean of the late one and the other.
struct StragglerRule {
  double median_factor = 3;     ///< Against the median rank's lateness: noise every rank has.
  double iteration_share = 0.2; ///< Of the step time: a delay that matters to the job.
  double floor_s = 1e-3;        ///< Absolute: below the scheduler's noise on a shared host.
};

/// A size at which a rank was late, with the numbers the rule compared.
struct LateRow {
  uint64_t size_bytes = 0;
  double lateness_s = 0;     ///< The rank's median entry lateness.
  double threshold_s = 0;    ///< The limit it exceeded.
  double own_wait_s = 0;     ///< The rank's median time in the call.
  double others_wait_s = 0;  ///< The median rank's time in the call.
  double iteration_s = 0;    ///< The step time.
};

/// A rank the rule names in one sweep.
struct Straggler {
  int rank = 0;
  std::string host;
  std::string collective;
  int sizes = 0;              ///< Sizes the probe covered.
  std::vector<LateRow> late;  ///< The sizes it was late at (more than half of `sizes`).
};

/// The stragglers of one sweep by `rule`, by rank. Empty with fewer than 3 ranks or no rows.
std::vector<Straggler> judge_stragglers(const SweepSkew& sweep, const StragglerRule& rule = {});

/// The skew probe of a fabdiag.bench/1 `data` object (collective, hosts[], results[] with
/// entry_lateness_s[], wait_s[], skew_iteration_s). Rows without the fields, with lists not one
/// number per rank, or a non-object input, are left out (an import, a run without the probe).
SweepSkew sweep_skew_from_json(const nlohmann::json& bench);

/// Appends to rep.suspects one `straggler` suspect per host that some sweep of rep.bench names
/// (kind "straggler", layer collective), with its lateness, the threshold and the others' wait
/// per late size as evidence. Ranks of a host named by several sweeps give one suspect. The host
/// leaves rep.cleared (its pair tests cleared it; the sync point did not). A host already named
/// a `node` suspect (its pair tests are slow) gets no straggler suspect: its late entries, which
/// its slow links explain, are appended to that suspect's evidence. A sweep with `stopped_early`
/// is not judged: it ran at the speed of a fault the screen named, which skews every rank's exit
/// and so the next entry (triage/sweep_early_stop.h).
void add_straggler_suspects(TriageReport& rep, const StragglerRule& rule = {});

}  // namespace fabdiag::triage
