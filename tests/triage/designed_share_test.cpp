// The designed share of a cross-leaf pair test on an R:1 fabric (triage/designed_share.h).
#include <doctest/doctest.h>

#include "triage/designed_share.h"

using namespace fabdiag::triage;

namespace {

// Two leaves of 4 hosts: nodes 0-3 under leaf 0, 4-7 under leaf 1; node 8 under none.
LocalizeParams two_leaves(double oversubscription) {
  LocalizeParams p;
  p.oversubscription = oversubscription;
  p.leaf_of = {0, 0, 0, 0, 1, 1, 1, 1, -1};
  return p;
}

}  // namespace

TEST_CASE("designed share: every host of a leaf across at 2:1 gets half, one test alone gets all") {
  LocalizeParams p = two_leaves(2);
  DesignedShares d(p);
  for (int i = 0; i < 4; ++i) d.add(0, i, i + 4);  // round 0: all 4 hosts of each leaf across
  d.add(1, 0, 4);                                  // round 1: one cross-leaf test
  d.add(1, 1, 2);                                  // and an intra-leaf one
  CHECK(d.share(0, 0, 4) == doctest::Approx(0.5));
  CHECK(d.share(0, 3, 7) == doctest::Approx(0.5));
  CHECK(d.share(1, 0, 4) == doctest::Approx(1.0));
  CHECK(d.share(1, 1, 2) == doctest::Approx(1.0));
}

TEST_CASE("designed share: 3 tests leaving a leaf of 4 at 2:1 get 2/3, the busier leaf decides") {
  LocalizeParams p = two_leaves(2);
  p.leaf_of = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2};  // a third leaf of 2 hosts
  DesignedShares d(p);
  d.add(0, 0, 4);
  d.add(0, 1, 5);
  d.add(0, 2, 8);  // leaf 0: 3 out; leaf 1: 2 out; leaf 2: 1 out of a 1-host budget
  CHECK(d.share(0, 0, 4) == doctest::Approx(2.0 / 3));
  CHECK(d.share(0, 2, 8) == doctest::Approx(2.0 / 3));
  d.add(0, 9, 6);  // leaf 2 now 2 out of its 2 hosts / 2 = 1 host's rate
  CHECK(d.share(0, 9, 6) == doctest::Approx(0.5));
}

TEST_CASE("designed share: 1 without oversubscription, without leaves, or for a host of no leaf") {
  DesignedShares none(two_leaves(1));
  none.add(0, 0, 4);
  CHECK(none.share(0, 0, 4) == 1.0);
  LocalizeParams no_map;
  no_map.oversubscription = 4;
  DesignedShares unknown(no_map);
  unknown.add(0, 0, 4);
  CHECK(unknown.share(0, 0, 4) == 1.0);
  LocalizeParams p = two_leaves(2);
  DesignedShares d(p);
  for (int i = 0; i < 4; ++i) d.add(0, i, 8);
  CHECK(d.share(0, 0, 8) == 1.0);  // node 8 has no leaf: nothing is known of its path
  CHECK(d.share(0, 0, 99) == 1.0);  // a node outside the map
}
