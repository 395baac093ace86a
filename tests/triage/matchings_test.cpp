#include <doctest/doctest.h>

#include <set>

#include "triage/matchings.h"

using namespace fabdiag::triage;

TEST_CASE("random matchings: disjoint rounds, no repeated pair, deterministic") {
  for (int n : {2, 3, 4, 7, 8, 9, 64, 101, 1024}) {
    auto rounds = random_matchings(n, 3, 42);
    CAPTURE(n);
    CHECK(static_cast<int>(rounds.size()) == std::min(3, n % 2 == 0 ? n - 1 : n));
    std::set<std::pair<int, int>> pairs;
    for (const auto& r : rounds) {
      CHECK(static_cast<int>(r.size()) == n / 2);
      std::set<int> nodes;
      for (auto [a, b] : r) {
        CHECK(a < b);
        CHECK(nodes.insert(a).second);
        CHECK(nodes.insert(b).second);
        CHECK(pairs.insert({a, b}).second);
      }
    }
    CHECK(random_matchings(n, 3, 42) == rounds);
  }
  CHECK(random_matchings(1, 3, 1).empty());
}
