// The default deadline of a triage walk, derived from its sizes and rounds (README "Partial
// results"; docs/localization.md#dead-links-and-hosts): long enough for a walk whose links are
// slow, short enough that a hung host does not hold the run for long.
#pragma once

#include "triage/walk.h"

namespace fabdiag::triage {

/// Seconds for a walk over `nodes` nodes with `p`: 60 s (start-up, counter snapshots, the
/// decision) + each collective sweep's bytes at 10 MB/s + the screen's rounds (N-1, or N for odd
/// N, up to round_robin_max_nodes; else matching_rounds) and at most 4 x confirm_repeats + 2
/// confirmation rounds, each at the time of one pair test at 1 MB/s (2 s more each, at most
/// dead_after_s) + three pair tests given up (3 x dead_after_s). At least 120 s.
/// With pair_sizing the tests are taken at its max_bytes and the sizing's extra first-round
/// sizes (1 and 4 MiB before 16) count as rounds.
/// Example: 10 nodes, 1 MiB x (3 + 1), 30 s: 60 + 2 x 4.4 + 23 x 6.2 + 90 = 302 s; with the
/// default sizing (1 to 16 MiB): 60 + 8.8 + 25 x 30 + 90 = 909 s.
double default_deadline_s(int nodes, const WalkParams& p);

}  // namespace fabdiag::triage
