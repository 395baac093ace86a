#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "triage/localize.h"

using namespace fabdiag::triage;

namespace {

// A toy cluster: every node has a speed factor, some links an extra factor, and each test gets
// multiplicative noise with occasional deep dips, like the emulated cluster
// (docs/emulation.md#noise: pairs up to 6x below the median with no fault).
struct ToyCluster {
  int n;
  std::vector<double> node_factor;
  std::vector<std::pair<std::pair<int, int>, double>> link_factor;
  std::mt19937 rng;
  explicit ToyCluster(int nodes, unsigned seed = 1) : n(nodes), node_factor(static_cast<size_t>(nodes), 1.0), rng(seed) {}
  double measure(int a, int b) {
    std::lognormal_distribution<double> noise(0.0, 0.3);
    std::uniform_real_distribution<double> u(0, 1);
    double v = 300e6 * std::min(node_factor[static_cast<size_t>(a)], node_factor[static_cast<size_t>(b)]);
    for (auto& [l, f] : link_factor)
      if ((l.first == a && l.second == b) || (l.first == b && l.second == a)) v *= f;
    v *= noise(rng);
    if (u(rng) < 0.08) v /= 2 + 4 * u(rng);  // deep dip: up to 6x
    return v;
  }
  std::vector<PairSample> round_robin() {
    std::vector<PairSample> out;
    int round = 0;
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b) out.push_back(PairSample{a, b, measure(a, b), round++});
    return out;
  }
  std::vector<PairSample> run(const std::vector<PlannedRound>& plan) {
    std::vector<PairSample> out;
    for (size_t r = 0; r < plan.size(); ++r)
      for (const auto& pp : plan[r].pairs) out.push_back(PairSample{pp.a, pp.b, measure(pp.a, pp.b), static_cast<int>(r)});
    return out;
  }
  Localization triage(const LocalizeParams& p = {}) {
    Screen s = screen_pairs(n, round_robin(), p);
    auto plan = plan_confirmation(s, p);
    return decide(s, plan, run(plan), p);
  }
};

std::vector<std::vector<int>> suspects_of(const Localization& l, const std::string& kind) {
  std::vector<std::vector<int>> out;
  for (const auto& s : l.suspects)
    if (s.kind == kind) out.push_back(s.nodes);
  return out;
}

}  // namespace

TEST_CASE("one throttled node is the only suspect") {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    ToyCluster c(8, seed);
    c.node_factor[2] = 0.03;  // 100 Mbit/s against ~300 MB/s
    auto l = c.triage();
    CAPTURE(seed);
    CHECK(suspects_of(l, "node") == std::vector<std::vector<int>>{{2}});
    CHECK(suspects_of(l, "link").empty());
  }
}

TEST_CASE("one throttled link is named as a link and neither end as a node") {
  int exact = 0;
  for (unsigned seed = 1; seed <= 30; ++seed) {
    ToyCluster c(8, seed);
    c.link_factor.push_back({{1, 5}, 0.03});
    auto l = c.triage();
    CAPTURE(seed);
    CHECK(suspects_of(l, "node").empty());
    if (suspects_of(l, "link") == std::vector<std::vector<int>>{{1, 5}}) ++exact;
  }
  CHECK(exact >= 29);  // docs/localization.md#simulation: one bad pair 0.92-0.99 exact
}

TEST_CASE("healthy noisy clusters give no suspect") {
  int false_positives = 0;
  for (unsigned seed = 1; seed <= 100; ++seed) {
    ToyCluster c(8, seed);
    false_positives += static_cast<int>(c.triage().suspects.size());
  }
  CHECK(false_positives == 0);
}

TEST_CASE("three slow nodes of eight, and odd N") {
  ToyCluster c(8, 7);
  for (int i : {0, 3, 6}) c.node_factor[static_cast<size_t>(i)] = 0.03;
  auto nodes = suspects_of(c.triage(), "node");
  std::sort(nodes.begin(), nodes.end());
  CHECK(nodes == std::vector<std::vector<int>>{{0}, {3}, {6}});

  ToyCluster odd(7, 3);
  odd.node_factor[4] = 0.03;
  CHECK(suspects_of(odd.triage(), "node") == std::vector<std::vector<int>>{{4}});
}

TEST_CASE("screen alone never names: a candidate without confirmation tests is inconclusive") {
  std::vector<PairSample> samples;
  int r = 0;
  for (int a = 0; a < 4; ++a)
    for (int b = a + 1; b < 4; ++b) samples.push_back(PairSample{a, b, (a == 0 || b == 0) ? 5e6 : 3e8, r++});
  LocalizeParams p;
  Screen s = screen_pairs(4, samples, p);
  CHECK(s.node_candidates == std::vector<int>{0});
  CHECK(s.good == std::vector<int>{1, 2, 3});
  auto plan = plan_confirmation(s, p);
  // The screen is the first of 3 votes (triage/votes.h): 2 confirmation rounds, each pairing
  // node 0 with a different good partner.
  REQUIRE(plan.size() == 2);
  std::vector<int> partners;
  for (const auto& round : plan) {
    REQUIRE(round.pairs.size() >= 1);
    CHECK(round.pairs[0].role == Role::kConfirmNode);
    partners.push_back(round.pairs[0].b);
  }
  std::sort(partners.begin(), partners.end());
  CHECK(partners == std::vector<int>{1, 2});
  auto l = decide(s, plan, {}, p);  // no confirmation samples arrived
  CHECK(l.suspects.empty());
  CHECK(l.inconclusive.size() == 1);
}

TEST_CASE("the screen is the first confirmation vote: one slow test more names, two fast clear") {
  std::vector<PairSample> samples;
  int r = 0;
  for (int a = 0; a < 4; ++a)
    for (int b = a + 1; b < 4; ++b) samples.push_back(PairSample{a, b, (a == 0 || b == 0) ? 5e6 : 3e8, r++});
  LocalizeParams p;
  Screen s = screen_pairs(4, samples, p);
  auto plan = plan_confirmation(s, p);
  REQUIRE(plan.size() == 2);
  // Node 0 slow in the confirmation rounds listed, fast in the others; controls fast.
  auto run = [&](std::vector<int> slow_rounds) {
    std::vector<PairSample> out;
    for (size_t k = 0; k < plan.size(); ++k)
      for (const auto& pp : plan[k].pairs) {
        bool slow = (pp.a == 0 || pp.b == 0) &&
                    std::find(slow_rounds.begin(), slow_rounds.end(), static_cast<int>(k)) != slow_rounds.end();
        out.push_back(PairSample{pp.a, pp.b, slow ? 5e6 : 3e8, static_cast<int>(k)});
      }
    return out;
  };
  auto named = decide(s, plan, run({1}), p);
  REQUIRE(named.suspects.size() == 1);
  CHECK(named.suspects[0].nodes == std::vector<int>{0});
  CHECK(named.suspects[0].votes == 2);   // the screen's and round 2's
  CHECK(named.suspects[0].trials == 3);  // the screen and 2 confirmation tests
  auto cleared = decide(s, plan, run({}), p);
  CHECK(cleared.suspects.empty());
  REQUIRE(cleared.cleared.size() == 1);
  CHECK(cleared.cleared[0].first == 0);
}

TEST_CASE("too few partners is reported, not judged") {
  std::vector<PairSample> samples = {{0, 1, 1e6, 0}};
  LocalizeParams p;
  Screen s = screen_pairs(2, samples, p);
  CHECK(s.node_candidates.empty());
  CHECK(s.too_few_partners == std::vector<int>{0, 1});
  auto l = decide(s, plan_confirmation(s, p), {}, p);
  CHECK(l.inconclusive.size() == 2);
}

TEST_CASE("hard (counter) suspects get confirmation tests and can be cleared") {
  ToyCluster c(8, 11);
  LocalizeParams p;
  Screen s = screen_pairs(8, c.round_robin(), p);
  CHECK(s.node_candidates.empty());
  auto plan = plan_confirmation(s, p, {5});
  REQUIRE(plan.size() == 3);
  auto l = decide(s, plan, c.run(plan), p);
  CHECK(l.suspects.empty());
  REQUIRE(l.cleared.size() == 1);
  CHECK(l.cleared[0].first == 5);
}
