#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>

#include "triage/walk.h"

using namespace fabdiag;
using namespace fabdiag::triage;

namespace {

// A fake cluster: node speed factors, one optional slow link, multiplicative noise, and a
// counter "symbol_error" per node that a test can make rise between snapshots.
class FakeCluster : public ClusterRunner {
 public:
  explicit FakeCluster(int n, unsigned seed = 5) : factor_(static_cast<size_t>(n), 1.0), rng_(seed) {
    for (int i = 0; i < n; ++i) hosts_.push_back("node" + std::string(i < 9 ? "0" : "") + std::to_string(i + 1));
    symbol_errors_.assign(static_cast<size_t>(n), 0);
  }
  const std::vector<std::string>& hosts() const override { return hosts_; }
  std::vector<Result<nlohmann::json>> snapshot_counters() override {
    ++snapshots_;
    std::vector<Result<nlohmann::json>> out;
    for (size_t i = 0; i < hosts_.size(); ++i) {
      if (static_cast<int>(i) == rising_node_ && snapshots_ > 1) symbol_errors_[i] += 40;
      if (static_cast<int>(i) == unreadable_node_) {
        out.push_back(make_error(ErrorCode::kPermission, "cannot read counters", hosts_[i]));
        continue;
      }
      out.push_back(nlohmann::json{{"symbol_error", symbol_errors_[i]}});
    }
    return out;
  }
  Result<nlohmann::json> run_collective(const CollectiveSpec& spec) override {
    ++collectives_;
    specs_.push_back(spec);
    return nlohmann::json{{"collective", spec.collective}, {"ranks", hosts_.size()}, {"hosts", hosts_}, {"results", results_}};
  }
  Result<std::vector<PairSample>> run_round(const std::vector<std::pair<int, int>>& pairs, int round_id,
                                            uint64_t, int) override {
    std::set<int> seen;
    for (auto [a, b] : pairs) {
      CHECK(seen.insert(a).second);  // rounds must be node-disjoint
      CHECK(seen.insert(b).second);
    }
    std::vector<PairSample> out;
    std::lognormal_distribution<double> noise(0.0, 0.3);
    for (auto [a, b] : pairs) {
      double v = 3e8 * std::min(factor_[static_cast<size_t>(a)], factor_[static_cast<size_t>(b)]) * noise(rng_);
      if (std::make_pair(std::min(a, b), std::max(a, b)) == slow_link_) v *= 0.03;
      out.push_back(PairSample{a, b, v, round_id});
    }
    return out;
  }
  std::vector<double> factor_;
  std::pair<int, int> slow_link_{-1, -1};
  int rising_node_ = -1;
  int unreadable_node_ = -1;
  int collectives_ = 0;
  std::vector<CollectiveSpec> specs_;  ///< What each run_collective() was asked, in order.
  nlohmann::json results_ = nlohmann::json::array();  ///< fabdiag.bench/1 results[] of every sweep

 private:
  std::vector<std::string> hosts_;
  std::vector<uint64_t> symbol_errors_;
  int snapshots_ = 0;
  std::mt19937 rng_;
};

std::vector<Finding> symbol_judge(const nlohmann::json& before, const nlohmann::json& after, double window_s) {
  std::vector<Finding> out;
  double d = after["symbol_error"].get<double>() - before["symbol_error"].get<double>();
  if (d > 0) {
    Finding f;
    f.severity = Severity::kError;
    f.layer = Layer::kPhysical;
    f.code = "symbol_errors_rising";
    f.subject = "mlx5_0/1";
    f.message = "symbol errors rose";
    f.evidence.push_back(Evidence{"symbol_error delta", d, "", "count", 0, "", "counters/symbol_error", false});
    f.action = "reseat or replace the cable/optic of mlx5_0 port 1";
    (void)window_s;
    out.push_back(f);
  }
  return out;
}

}  // namespace

TEST_CASE("walk names the slow node with evidence and runs both sweeps") {
  FakeCluster c(8);
  c.factor_[2] = 0.03;
  auto rep = run_walk(c, WalkParams{}, symbol_judge, no_progress());
  REQUIRE(rep.suspects.size() == 1);
  CHECK(rep.suspects[0].kind == "node");
  CHECK(rep.suspects[0].hosts == std::vector<std::string>{"node03"});
  CHECK(rep.suspects[0].layer == Layer::kLocalization);
  CHECK(rep.suspects[0].evidence.size() >= 3);  // screen median (the first vote) + 2 confirmations
  CHECK(c.collectives_ == 2);
  CHECK(rep.rounds == 7 + 2);  // the screen counts as a vote (triage/votes.h)
  auto j = to_json(rep);
  CHECK(j["suspects"][0]["kind"] == "node");
  CHECK(j["suspects"][0]["hosts"][0] == "node03");
  CHECK(j["pairwise"]["matrix_bytes_per_s"].size() == 8);
  CHECK(j["pairwise"]["matrix_bytes_per_s"][0][0].is_null());
  CHECK(rep.findings.size() == 1);
  CHECK(rep.findings[0].code == "slow_node");
}

TEST_CASE("the sweeps after a screen that names a slow node may stop at 1 MiB below half the pair reference") {
  FakeCluster c(8);
  c.factor_[2] = 0.03;
  auto rep = run_walk(c, WalkParams{}, symbol_judge, no_progress());
  REQUIRE(c.specs_.size() == 2);
  const double ref = to_json(rep)["pairwise"]["pair_reference_bytes_per_s"].get<double>();
  REQUIRE(ref > 1e8);  // the fake's healthy pairs: 3e8 x noise
  for (const auto& spec : c.specs_) {
    CAPTURE(spec.collective);
    CHECK(spec.stop.below_busbw_bytes_per_s == doctest::Approx(0.5 * ref));
    CHECK(spec.stop.min_bytes == (1u << 20));
    CHECK(spec.stop.why.find("node node03") != std::string::npos);
  }
}

TEST_CASE("the sweeps run in full on a healthy cluster and with --full-sweeps") {
  FakeCluster healthy(8);
  run_walk(healthy, WalkParams{}, symbol_judge, no_progress());
  REQUIRE(healthy.specs_.size() == 2);
  for (const auto& spec : healthy.specs_) CHECK(spec.stop.below_busbw_bytes_per_s == 0);

  FakeCluster slow(8);
  slow.factor_[2] = 0.03;
  WalkParams p;
  p.sweep_stop.on = false;
  auto rep = run_walk(slow, p, symbol_judge, no_progress());
  REQUIRE(rep.suspects.size() == 1);
  REQUIRE(slow.specs_.size() == 2);
  for (const auto& spec : slow.specs_) CHECK(spec.stop.below_busbw_bytes_per_s == 0);
}

TEST_CASE("walk names a slow link and neither end") {
  FakeCluster c(8);
  c.slow_link_ = {1, 6};
  auto rep = run_walk(c, WalkParams{}, symbol_judge, no_progress());
  REQUIRE(rep.suspects.size() == 1);
  CHECK(rep.suspects[0].kind == "link");
  CHECK(rep.suspects[0].hosts == std::vector<std::string>{"node02", "node07"});
}

TEST_CASE("healthy cluster: empty suspects") {
  FakeCluster c(8);
  auto rep = run_walk(c, WalkParams{}, symbol_judge, no_progress());
  CHECK(rep.suspects.empty());
  CHECK(to_json(rep)["suspects"].is_array());
  CHECK(rep.rounds == 7);
}

TEST_CASE("a rank that enters the sweeps late is a straggler suspect although its pairs are fine") {
  FakeCluster c(8);
  for (uint64_t size : {1u << 20, 2u << 20, 4u << 20}) {
    std::vector<double> late(8, 0.0002), wait(8, 0.030);
    late[4] = 0.020;  // node05: 20 ms late, 10 ms in the call; the others wait 30 ms for it
    wait[4] = 0.010;
    c.results_.push_back({{"size_bytes", size}, {"entry_lateness_s", late}, {"wait_s", wait}, {"skew_iteration_s", 0.031}});
  }
  auto rep = run_walk(c, WalkParams{}, symbol_judge, no_progress());
  REQUIRE(rep.suspects.size() == 1);
  CHECK(rep.suspects[0].kind == "straggler");
  CHECK(rep.suspects[0].hosts == std::vector<std::string>{"node05"});
  CHECK(rep.suspects[0].layer == Layer::kCollective);
  CHECK(rep.suspects[0].evidence.size() == 2 * 3 * 2);  // lateness + wait, 3 sizes, 2 sweeps
  CHECK(rep.suspects[0].evidence[0].value == doctest::Approx(0.020));
  CHECK(rep.suspects[0].evidence[1].threshold == doctest::Approx(0.030));
  REQUIRE(rep.findings.size() == 1);
  CHECK(rep.findings[0].code == "straggler");
  CHECK(rep.findings[0].subject == "node05");
}

TEST_CASE("every node equally slow: a cluster suspect against the expected rate, never healthy") {
  FakeCluster c(8);
  for (auto& f : c.factor_) f = 0.3;  // 0.9e8 B/s per pair against 3e8 expected: ratio 0.3 < 0.5
  WalkParams p;
  p.localize.reference_bytes_per_s = 3e8;
  auto rep = run_walk(c, p, symbol_judge, no_progress());
  REQUIRE(rep.suspects.size() == 1);
  CHECK(rep.suspects[0].kind == "cluster");
  CHECK(rep.suspects[0].hosts.size() == 8);
  REQUIRE(rep.findings.size() == 1);
  CHECK(rep.findings[0].code == "slow_cluster");
  // Without the reference the same cluster is uniform: nothing stands out.
  FakeCluster same(8);
  for (auto& f : same.factor_) f = 0.3;
  CHECK(run_walk(same, WalkParams{}, symbol_judge, no_progress()).suspects.empty());
}

TEST_CASE("a node whose counters rise is named with that evidence although its bandwidth is fine") {
  FakeCluster c(8);
  c.rising_node_ = 4;
  auto rep = run_walk(c, WalkParams{}, symbol_judge, no_progress());
  REQUIRE(rep.suspects.size() == 1);
  CHECK(rep.suspects[0].hosts == std::vector<std::string>{"node05"});
  CHECK(rep.suspects[0].layer == Layer::kPhysical);
  bool has_symbol = std::any_of(rep.suspects[0].evidence.begin(), rep.suspects[0].evidence.end(),
                                [](const Evidence& e) { return e.metric.find("symbol_error") != std::string::npos; });
  CHECK(has_symbol);
  CHECK(rep.suspects[0].action.find("reseat") != std::string::npos);
}

TEST_CASE("an unreadable node's counters are a reported gap, not a failure of the walk") {
  FakeCluster c(8);
  c.unreadable_node_ = 3;
  auto rep = run_walk(c, WalkParams{}, symbol_judge, no_progress());
  CHECK(rep.suspects.empty());
  REQUIRE(rep.errors.size() == 1);
  CHECK(rep.errors[0].source == "node04");
}

TEST_CASE("the step sink sees the walk so far before every step, and nothing decided before the end") {
  FakeCluster c(8);
  c.factor_[2] = 0.03;
  struct Step {
    std::string during, not_run;
    size_t bench = 0, measured = 0, confirmation_rounds = 0, suspects = 0;
    int rounds = 0;
  };
  std::vector<Step> steps;
  auto sink = [&](const TriageReport& so_far, const std::string& during, const std::string& not_run) {
    Step s{during, not_run, so_far.bench.size(), 0, so_far.confirmation.is_array() ? so_far.confirmation.size() : 0,
           so_far.suspects.size(), so_far.rounds};
    if (so_far.pairwise.contains("matrix_bytes_per_s"))
      for (const auto& row : so_far.pairwise["matrix_bytes_per_s"])
        for (const auto& v : row) s.measured += v.is_number() ? 1 : 0;
    steps.push_back(s);
  };
  auto rep = run_walk(c, WalkParams{}, symbol_judge, no_progress(), sink);
  REQUIRE(rep.suspects.size() == 1);  // the same walk as without a sink
  REQUIRE(steps.size() == 1 + 2 + 7 + 1 + 2 + 1);
  const std::string tail = "counters after the screen, the confirmation, the final counters, the decision";
  CHECK(steps[0].during == "counters before the tests on 8 nodes");
  CHECK(steps[0].not_run == "the pairwise screen, the collective sweeps, " + tail);
  CHECK(steps[1].during == "pairwise round 1 of 7");  // the screen first: a dead pair would stall a sweep
  CHECK(steps[1].not_run == "pairwise rounds 2..7, the collective sweeps, " + tail);
  CHECK(steps[1].bench == 0);
  CHECK(steps[1].measured == 0);
  CHECK(steps[4].during == "pairwise round 4 of 7");
  CHECK(steps[4].measured == 3 * 4 * 2);  // 3 rounds of 4 pairs, both cells of each
  CHECK(steps[4].rounds == 3);
  CHECK(steps[6].not_run == "pairwise round 7, the collective sweeps, " + tail);
  CHECK(steps[7].not_run == "the collective sweeps, " + tail);
  CHECK(steps[8].during == "the all_reduce sweep (1 of 2)");
  CHECK(steps[8].not_run == "the alltoall sweep, " + tail);
  CHECK(steps[8].measured == 28 * 2);
  CHECK(steps[9].during == "the alltoall sweep (2 of 2)");
  CHECK(steps[9].bench == 1);
  CHECK(steps[10].during == "counters after the screen");
  CHECK(steps[10].measured == 28 * 2);
  CHECK(steps[10].bench == 2);
  CHECK(steps[11].during == "confirmation round 1 of 2");  // the screen is the first vote
  CHECK(steps[11].not_run == "confirmation round 2, the final counters, the decision");
  CHECK(steps[12].confirmation_rounds == 2);  // planned rounds, the later ones not yet measured
  CHECK(steps[13].during == "the final counters");
  CHECK(steps[13].not_run == "the decision");
  CHECK(steps[13].rounds == 9);
  for (const auto& s : steps) CHECK(s.suspects == 0);
}
