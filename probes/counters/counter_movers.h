// Top movers: which counters moved most in a window, ranked for the `counters --watch` view.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "probes/counters/counter_delta.h"

namespace fabdiag {

/// Rank of a category in the watch view: health signals first (phy_error 0, link, retransmit,
/// discard, pause, cnp, ecn, other and unknown), traffic last.
int mover_category_rank(CounterCategory c);

/// The counters of `changes` that moved (delta > 0), at most `top` of them (0 = all), of
/// category `only` when set. Order: mover_category_rank, then rate per second (delta when the
/// window is unknown) descending, then device and name. Pointers into `changes`.
std::vector<const CounterChange*> rank_movers(const std::vector<CounterChange>& changes,
                                              std::optional<CounterCategory> only, size_t top);

}  // namespace fabdiag
