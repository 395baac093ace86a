// Sync-point skew of a collective (C4D-style, docs/localization.md#stragglers): every rank stamps
// each call of the collective at entry (just before the call) and exit (just after it returns),
// in seconds since that rank left a common barrier. A collective is a sync point: no rank can
// leave it before the last one has entered, so a rank that enters late makes every other rank
// wait inside the call, while its own time in the call is short. Per rank this gives the median
// over the calls of its entry lateness (its entry minus the earliest entry of that call) and of
// its wait (exit minus entry).
#pragma once

#include <vector>

namespace fabdiag::perf {

/// The skew of one size, per rank (index = rank).
struct SyncSkew {
  std::vector<double> entry_lateness_s;  ///< Median over calls of entry - earliest entry of the call.
  std::vector<double> wait_s;            ///< Median over calls of exit - entry (time in the call).
  /// Median over calls of (latest exit - earliest entry): how long one step (host work and the
  /// collective) takes, the scale lateness is judged against.
  double iteration_s = 0;
};

/// The skew of the stamps `entry_s[r][i]` / `exit_s[r][i]` (rank r, call i; seconds on each
/// rank's barrier-aligned clock). Calls are counted over the shortest list of any rank; ranks
/// whose lists are empty, or no ranks, give empty vectors and iteration_s 0. The barrier's
/// release skew (tens of microseconds over TCP) is the floor of what it can resolve.
SyncSkew sync_skew(const std::vector<std::vector<double>>& entry_s, const std::vector<std::vector<double>>& exit_s);

}  // namespace fabdiag::perf
