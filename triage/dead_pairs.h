// Dead and dying: pair tests that never completed (docs/localization.md#dead-links-and-hosts).
// A pair test gives up after a time limit (perf::PairwiseOptions::give_up_after_s) and comes back
// with PairSample::no_completion_s set; the screen and the decision leave it out, and this names
// what it points at, so the rest of the verdict is kept.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "triage/localize.h"

namespace fabdiag::triage {

/// One dead verdict.
struct DeadSuspect {
  std::string kind;         ///< "node" (no test of it completed) or "link" (this pair alone).
  std::vector<int> nodes;   ///< The node, or the two ends of the link (lower first).
  double no_completion_s = 0;  ///< The longest wait of its dead tests (s).
  int dead_tests = 0;       ///< Its tests that did not complete.
};

/// From the samples (screen and confirmation): a node with at least 2 dead tests and no
/// completed test is a dead node (its pairs are explained by it); every other dead pair is a
/// dead link. Ordered: nodes first, then links, each by node id.
std::vector<DeadSuspect> judge_dead(int nodes, const std::vector<PairSample>& samples);

/// True when (a, b) has a dead test in `samples`, or one of them is a dead node of judge_dead():
/// the walk does not test it again (a new exchange would wait behind the first one).
bool known_dead(int a, int b, const std::vector<DeadSuspect>& dead);

/// "dead link node05<->node08: no completion in 30 s" / "dead host node05: no completion with
/// any of its 3 partners in 30 s".
std::string dead_text(const DeadSuspect& d, const std::vector<std::string>& hosts);

}  // namespace fabdiag::triage
