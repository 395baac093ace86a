#include "triage/designed_share.h"

#include <algorithm>

namespace fabdiag::triage {

DesignedShares::DesignedShares(const LocalizeParams& p) : p_(p) {
  if (p.oversubscription <= 1) return;
  for (int l : p.leaf_of) {
    if (l < 0) continue;
    if (static_cast<size_t>(l) >= hosts_of_leaf_.size()) hosts_of_leaf_.resize(static_cast<size_t>(l) + 1, 0);
    ++hosts_of_leaf_[static_cast<size_t>(l)];
  }
}

int DesignedShares::leaf(int node) const {
  if (hosts_of_leaf_.empty() || node < 0 || static_cast<size_t>(node) >= p_.leaf_of.size()) return -1;
  return p_.leaf_of[static_cast<size_t>(node)];
}

void DesignedShares::add(int round, int a, int b) {
  const int la = leaf(a), lb = leaf(b);
  if (la < 0 || lb < 0 || la == lb) return;
  ++cross_tests_[{round, la}];
  ++cross_tests_[{round, lb}];
}

double DesignedShares::share(int round, int a, int b) const {
  const int la = leaf(a), lb = leaf(b);
  if (la < 0 || lb < 0 || la == lb) return 1;
  double s = 1;
  for (int l : {la, lb}) {
    auto it = cross_tests_.find({round, l});
    const int tests = it == cross_tests_.end() ? 1 : std::max(1, it->second);
    s = std::min(s, hosts_of_leaf_[static_cast<size_t>(l)] / (p_.oversubscription * tests));
  }
  return s;
}

}  // namespace fabdiag::triage
