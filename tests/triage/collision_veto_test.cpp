// The screen's full-rate test as a fast vote (LocalizeParams::confirm_ratio with fabric rules):
// a healthy node whose screen median ECMP collisions halved is cleared by its one clean test,
// a slow node is still named, and an oversubscribed fabric (intra-leaf pairs faster by design)
// gets no such veto.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "triage/localize.h"

using namespace fabdiag::triage;

namespace {

constexpr double kRate = 4e10;  // bytes/s per direction of a healthy pair

// 64 nodes, screen = three perfect matchings (partner i^1, i^2, i^4), a small spread so that
// the z-scores have a scale. `halved` pairs (collisions, a slow node) run at half rate.
struct Fixture {
  std::set<std::pair<int, int>> halved;
  double value(int a, int b) const {
    const double spread = 1.0 + 0.01 * static_cast<double>((a * 7 + b * 13) % 5 - 2);
    const bool half = halved.count({std::min(a, b), std::max(a, b)}) > 0;
    return kRate * spread * (half ? 0.5 : 1.0);
  }
  std::vector<PairSample> screen() const {
    std::vector<PairSample> out;
    for (int r = 0; r < 3; ++r)
      for (int a = 0; a < 64; ++a) {
        const int b = a ^ (1 << r);
        if (a < b) out.push_back(PairSample{a, b, value(a, b), r});
      }
    return out;
  }
  // Confirmation tests of `slow_node`'s pairs halved (its collisions go on, or it is slow).
  std::vector<PairSample> run(const std::vector<PlannedRound>& plan, int slow_node) const {
    std::vector<PairSample> out;
    for (size_t r = 0; r < plan.size(); ++r)
      for (const auto& pp : plan[r].pairs) {
        const bool half = pp.a == slow_node || pp.b == slow_node;
        out.push_back(PairSample{pp.a, pp.b, kRate * (half ? 0.5 : 1.0), static_cast<int>(r)});
      }
    return out;
  }
};

Localization localize(const Fixture& f, int slow_node, const LocalizeParams& p) {
  Screen s = screen_pairs(64, f.screen(), p);
  auto plan = plan_confirmation(s, p);
  return decide(s, plan, f.run(plan, slow_node), p);
}

bool named(const Localization& loc, int node) {
  return std::any_of(loc.suspects.begin(), loc.suspects.end(),
                     [&](const Suspect& x) { return x.kind == "node" && x.nodes == std::vector<int>{node}; });
}

}  // namespace

TEST_CASE("a node whose screen median two collisions halved is cleared by its full-rate screen test") {
  Fixture f;
  f.halved = {{4, 5}, {5, 7}};  // node 5's partners 4 (5^1) and 7 (5^2) collided; 1 (5^4) did not
  const LocalizeParams p = fabric_params();
  Screen s = screen_pairs(64, f.screen(), p);
  REQUIRE(std::count(s.node_candidates.begin(), s.node_candidates.end(), 5) == 1);  // median halved
  CHECK(s.node_best_bytes_per_s[5] >= 0.94 * s.node_ref_bytes_per_s);
  // Both confirmation tests collide too: without the screen's clean test it would be named.
  Localization loc = localize(f, 5, p);
  CHECK_FALSE(named(loc, 5));
  const auto it = std::find_if(loc.cleared.begin(), loc.cleared.end(), [](const auto& c) { return c.first == 5; });
  REQUIRE(it != loc.cleared.end());
  CHECK(it->second.find("screen tests ran at full rate") != std::string::npos);
}

TEST_CASE("a slow node, every screen test halved, is still named under the same rules") {
  Fixture f;
  f.halved = {{4, 5}, {5, 7}, {1, 5}};
  Localization loc = localize(f, 5, fabric_params());
  CHECK(named(loc, 5));
  CHECK(loc.suspects.size() == 1);
}

TEST_CASE("on an oversubscribed fabric a full-rate screen test is no veto (intra-leaf pairs run faster by design)") {
  Fixture f;
  f.halved = {{4, 5}, {5, 7}};
  LocalizeParams p = fabric_params();
  p.oversubscription = 2;
  CHECK(named(localize(f, 5, p), 5));
}
