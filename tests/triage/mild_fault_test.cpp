#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "triage/localize.h"
#include "triage/small_cluster.h"

using namespace fabdiag::triage;

namespace {

// A fabric with 3 % log-normal test noise: a pair runs at the slower end's factor.
struct NoisyFabric {
  std::vector<double> factor;
  std::mt19937 rng;
  NoisyFabric(int n, unsigned seed) : factor(static_cast<size_t>(n), 1.0), rng(seed) {}
  double measure(int a, int b) {
    std::lognormal_distribution<double> noise(0.0, 0.03);
    return 4e10 * std::min(factor[static_cast<size_t>(a)], factor[static_cast<size_t>(b)]) * noise(rng);
  }
  std::vector<PairSample> all_pairs() {
    std::vector<PairSample> out;
    const int n = static_cast<int>(factor.size());
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b) out.push_back(PairSample{a, b, measure(a, b), 0});
    return out;
  }
  std::vector<PairSample> run(const std::vector<PlannedRound>& plan) {
    std::vector<PairSample> out;
    for (size_t r = 0; r < plan.size(); ++r)
      for (const auto& pp : plan[r].pairs) out.push_back(PairSample{pp.a, pp.b, measure(pp.a, pp.b), static_cast<int>(r)});
    return out;
  }
};

Localization localize(NoisyFabric& f, const LocalizeParams& p) {
  Screen s = screen_pairs(static_cast<int>(f.factor.size()), f.all_pairs(), p);
  auto plan = plan_confirmation(s, p);
  return decide(s, plan, f.run(plan), p);
}

}  // namespace

TEST_CASE("a 0.85x node among 64 under 3 % noise is the only suspect") {
  NoisyFabric f(64, 7);
  f.factor[17] = 0.85;
  Localization loc = localize(f, fabric_params());
  REQUIRE(loc.suspects.size() == 1);
  CHECK(loc.suspects[0].kind == "node");
  CHECK(loc.suspects[0].nodes == std::vector<int>{17});
  CHECK(loc.suspects[0].screen_ratio == doctest::Approx(0.85 / 1.026).epsilon(0.03));
  CHECK(loc.suspects[0].votes >= 2);
}

TEST_CASE("a 0.85x node is found in at least 49 of 50 seeded trials") {
  int exact = 0;
  for (unsigned t = 0; t < 50; ++t) {
    NoisyFabric f(64, 1000 + t);
    f.factor[t % 64] = 0.85;
    Localization loc = localize(f, fabric_params());
    exact += loc.suspects.size() == 1 && loc.suspects[0].nodes == std::vector<int>{static_cast<int>(t % 64)};
  }
  CHECK(exact >= 49);
}

TEST_CASE("a 0.92x node is a watch with its ratio, not a suspect") {
  NoisyFabric f(64, 11);
  f.factor[5] = 0.92;
  Localization loc = localize(f, fabric_params());
  CHECK(loc.suspects.empty());
  REQUIRE(loc.watch.size() == 1);
  CHECK(loc.watch[0].node == 5);
  CHECK(loc.watch[0].ratio > 0.88);
  CHECK(loc.watch[0].ratio < 0.95);
  CHECK(loc.watch[0].modz < -3.5);
}

TEST_CASE("healthy 64 nodes under 3 % noise: no suspect in 60 seeded trials") {
  int suspects = 0, watched = 0;
  for (unsigned t = 0; t < 60; ++t) {
    NoisyFabric f(64, 5000 + t);
    Localization loc = localize(f, fabric_params());
    suspects += static_cast<int>(loc.suspects.size());
    watched += static_cast<int>(loc.watch.size());
  }
  CHECK(suspects == 0);
  CHECK(watched <= 3);  // a near miss now and then, never a suspect
}

TEST_CASE("--node-ratio overrides the threshold: 0.80 lets a 0.85x node through as a watch") {
  NoisyFabric f(64, 7);
  f.factor[17] = 0.85;
  LocalizeParams p = fabric_params();
  p.node_ratio = 0.80;
  Localization loc = localize(f, p);
  CHECK(loc.suspects.empty());
  REQUIRE(loc.watch.size() == 1);
  CHECK(loc.watch[0].node == 17);
}

TEST_CASE("every node 0.7x slow against an external reference: a cluster suspect, never healthy") {
  NoisyFabric f(64, 3);
  for (auto& x : f.factor) x = 0.7;
  LocalizeParams p = fabric_params();
  p.reference_bytes_per_s = 4e10;
  Localization loc = localize(f, p);
  REQUIRE(loc.suspects.size() == 1);
  CHECK(loc.suspects[0].kind == "cluster");
  CHECK(loc.suspects[0].nodes.size() == 64);
  CHECK(loc.suspects[0].screen_ratio == doctest::Approx(0.7).epsilon(0.02));
  // Without the reference the same cluster looks uniform: no node stands out.
  CHECK(localize(f, fabric_params()).suspects.empty());
}

TEST_CASE("three nodes, one at 0.6x: that node is named, the other two cleared") {
  NoisyFabric f(3, 2);
  f.factor[1] = 0.6;
  auto samples = f.all_pairs();
  LocalizeParams p = fabric_params();
  Screen s = screen_pairs(3, samples, p);
  Localization loc = decide(s, plan_confirmation(s, p), {}, p);
  REQUIRE(judge_small_cluster(3, samples, p, loc));
  REQUIRE(loc.suspects.size() == 1);
  CHECK(loc.suspects[0].kind == "node");
  CHECK(loc.suspects[0].nodes == std::vector<int>{1});
  CHECK(loc.suspects[0].screen_ratio == doctest::Approx(0.6).epsilon(0.06));
  CHECK(loc.cleared.size() == 2);
  CHECK(loc.inconclusive.empty());
}

TEST_CASE("three healthy nodes are all cleared") {
  NoisyFabric f(3, 4);
  Localization loc;
  REQUIRE(judge_small_cluster(3, f.all_pairs(), fabric_params(), loc));
  CHECK(loc.suspects.empty());
  CHECK(loc.cleared.size() == 3);
}

TEST_CASE("two nodes: a slow pair against the reference is 'one of these two'") {
  NoisyFabric f(2, 9);
  f.factor[0] = 0.6;
  LocalizeParams p = fabric_params();
  p.reference_bytes_per_s = 4e10;
  Localization loc;
  REQUIRE(judge_small_cluster(2, f.all_pairs(), p, loc));
  REQUIRE(loc.suspects.size() == 1);
  CHECK(loc.suspects[0].kind == "pair");
  CHECK(loc.suspects[0].nodes == std::vector<int>{0, 1});
  CHECK(loc.suspects[0].screen_ratio == doctest::Approx(0.6).epsilon(0.1));
}

TEST_CASE("two nodes without a reference: inconclusive, saying what is needed") {
  NoisyFabric f(2, 9);
  Localization loc;
  REQUIRE(judge_small_cluster(2, f.all_pairs(), fabric_params(), loc));
  CHECK(loc.suspects.empty());
  REQUIRE(loc.inconclusive.size() == 1);
  CHECK(loc.inconclusive[0].find("expected rate") != std::string::npos);
  CHECK_FALSE(judge_small_cluster(4, f.all_pairs(), fabric_params(), loc));
}
