#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include <nlohmann/json.hpp>

#include "triage/localize.h"
#include "triage/threshold.h"

using namespace fabdiag::triage;

namespace {

AdaptiveThreshold adaptive_on() {
  AdaptiveThreshold a;
  a.on = true;
  return a;
}

// Node medians exp(sigma x u) around 1e9 for a fixed set of standard normal quantiles, so that
// their robust sigma is about `sigma`.
std::vector<double> medians_with_spread(double sigma, int n) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    double u = -1.5 + 3.0 * i / (n - 1);  // evenly spread over [-1.5, 1.5]
    out.push_back(1e9 * std::exp(sigma * u));
  }
  return out;
}

// Pairs of n nodes, every pair once, at the slower end's rate times log-normal noise.
std::vector<PairSample> all_pairs(const std::vector<double>& factor, double sigma, unsigned seed) {
  std::mt19937 rng(seed);
  std::lognormal_distribution<double> noise(0.0, sigma);
  std::vector<PairSample> out;
  const int n = static_cast<int>(factor.size());
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b)
      out.push_back(PairSample{a, b, 1e9 * std::min(factor[static_cast<size_t>(a)], factor[static_cast<size_t>(b)]) * noise(rng), 0});
  return out;
}

}  // namespace

TEST_CASE("node threshold: fixed unless adaptive, with the given ratio") {
  NodeThreshold t = node_threshold(medians_with_spread(0.01, 8), 0.5, AdaptiveThreshold{});
  CHECK(t.source == "fixed");
  CHECK(t.ratio == 0.5);
  CHECK(std::isnan(t.sigma_log));
  CHECK(t.judged == 8);
}

TEST_CASE("node threshold: 1 - 4 sigma of the log node medians, clamped to [0.5, 0.88]") {
  std::vector<double> m = medians_with_spread(0.05, 9);  // logs at sigma x {-1.5, -1.125, ..., 1.5}
  NodeThreshold t = node_threshold(m, 0.5, adaptive_on());
  // MAD of {0, 0.375, 0.375, 0.75, 0.75, 1.125, 1.125, 1.5, 1.5} x 0.05 is 0.75 x 0.05.
  CHECK(t.sigma_log == doctest::Approx(1.4826 * 0.75 * 0.05));
  CHECK(t.ratio == doctest::Approx(1 - 4 * 1.4826 * 0.75 * 0.05));  // 0.778
  CHECK(t.source == "adaptive");
  CHECK(t.why.find("0.778") != std::string::npos);
  // A quiet fabric: the ceiling 0.88; a very noisy one: the floor 0.5.
  CHECK(node_threshold(medians_with_spread(0.005, 9), 0.5, adaptive_on()).ratio == doctest::Approx(0.88));
  CHECK(node_threshold(medians_with_spread(0.3, 9), 0.5, adaptive_on()).ratio == doctest::Approx(0.5));
}

TEST_CASE("node threshold: a slow minority does not widen the spread (MAD)") {
  std::vector<double> m = medians_with_spread(0.03, 9);  // tau 0.867, under the ceiling
  double quiet = node_threshold(m, 0.5, adaptive_on()).ratio;
  m[0] = 0.6e9;  // one node at 0.6x
  m[8] = 0.3e9;  // and one at 0.3x
  double with_slow = node_threshold(m, 0.5, adaptive_on()).ratio;
  CHECK(quiet == doctest::Approx(1 - 4 * 1.4826 * 0.75 * 0.03));
  CHECK(with_slow == doctest::Approx(quiet).epsilon(0.005));
}

TEST_CASE("node threshold: fewer than 3 judged nodes keep the fixed ratio") {
  NodeThreshold t = node_threshold({1e9, 0.9e9, NAN, -1}, 0.6, adaptive_on());
  CHECK(t.ratio == 0.6);
  CHECK(t.source == "fixed");
  CHECK(t.judged == 2);
  nlohmann::json j = t;
  CHECK(j["ratio"] == 0.6);
  CHECK(j["sigma_log"].is_null());
}

TEST_CASE("adaptive screen: a 0.6x node among 8 under 2 % noise is a candidate, which the fixed 0.5 misses") {
  std::vector<double> f(8, 1.0);
  f[2] = 0.6;
  auto samples = all_pairs(f, 0.02, 3);
  LocalizeParams fixed;  // the emulated cluster's 0.5
  Screen s0 = screen_pairs(8, samples, fixed);
  CHECK(s0.node_candidates.empty());
  REQUIRE(s0.watch.size() == 1);  // ratio alone would miss it: a near miss at 0.6
  LocalizeParams p;
  p.adaptive.on = true;
  Screen s = screen_pairs(8, samples, p);
  CHECK(s.node_threshold.source == "adaptive");
  CHECK(s.node_threshold.ratio > 0.8);
  CHECK(s.node_candidates == std::vector<int>{2});
  // The confirmation votes use the screen's threshold too: 0.6x against good partners flags.
  auto plan = plan_confirmation(s, p);
  std::vector<PairSample> confirm;
  for (size_t r = 0; r < plan.size(); ++r)
    for (const auto& pp : plan[r].pairs)
      confirm.push_back(PairSample{pp.a, pp.b, 1e9 * ((pp.a == 2 || pp.b == 2) ? 0.6 : 1.0), static_cast<int>(r)});
  Localization loc = decide(s, plan, confirm, p);
  REQUIRE(loc.suspects.size() == 1);
  CHECK(loc.suspects[0].nodes == std::vector<int>{2});
  CHECK(loc.suspects[0].confirm_ratio == doctest::Approx(0.6).epsilon(0.05));
}

TEST_CASE("adaptive screen: an explicit node ratio wins over the adaptive one") {
  std::vector<double> f(8, 1.0);
  f[2] = 0.6;
  LocalizeParams p;  // adaptive off, as with --node-ratio 0.5
  p.node_ratio = 0.5;
  Screen s = screen_pairs(8, all_pairs(f, 0.02, 3), p);
  CHECK(s.node_threshold.source == "fixed");
  CHECK(s.node_threshold.ratio == 0.5);
  CHECK(s.node_candidates.empty());
}

TEST_CASE("adaptive screen: 40 healthy 8-node rounds under 8 % noise give no candidate") {
  int candidates = 0;
  double lowest = 1;
  for (unsigned t = 0; t < 40; ++t) {
    LocalizeParams p;
    p.adaptive.on = true;
    Screen s = screen_pairs(8, all_pairs(std::vector<double>(8, 1.0), 0.08, 100 + t), p);
    candidates += static_cast<int>(s.node_candidates.size());
    lowest = std::min(lowest, s.node_threshold.ratio);
  }
  CHECK(candidates == 0);
  CHECK(lowest >= 0.5);
}
