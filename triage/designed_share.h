// What an R:1 oversubscribed leaf/spine fabric is designed to give a cross-leaf pair test
// (docs/localization.md#uplinks-and-leaves): the judgments of the screen, the confirmation and
// the ring probe read every test against it, so that uplink contention the design promises is
// not taken for a slow node or link.
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "triage/localize.h"

namespace fabdiag::triage {

/// Designed shares of the pair tests of one or more rounds. A leaf L of n_L hosts has uplinks for
/// n_L / R hosts' rate (R = LocalizeParams::oversubscription); when f_L pair tests of one round
/// leave it, each gets min(1, n_L / (R f_L)) of a host's rate, and a test between leaves L and M
/// the smaller of the two. Intra-leaf tests, tests of a node without a leaf, and every test when
/// R <= 1 or LocalizeParams::leaf_of is empty get 1.
class DesignedShares {
 public:
  explicit DesignedShares(const LocalizeParams& p);
  /// Counts a test of `round` between nodes a and b (every test of a round, before share()).
  void add(int round, int a, int b);
  /// The designed share (0, 1] of the test of `round` between a and b.
  double share(int round, int a, int b) const;

 private:
  int leaf(int node) const;
  const LocalizeParams& p_;
  std::vector<int> hosts_of_leaf_;
  std::map<std::pair<int, int>, int> cross_tests_;  // (round, leaf) -> tests leaving the leaf
};

}  // namespace fabdiag::triage
