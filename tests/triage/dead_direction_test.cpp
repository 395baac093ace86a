// Direction (send / recv) and dead pairs: the per-direction judgement, the dead-pair verdicts, the
// default deadline, and the walk that names them (docs/localization.md#direction,
// docs/localization.md#dead-links-and-hosts).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "triage/dead_pairs.h"
#include "triage/deadline.h"
#include "triage/direction.h"
#include "triage/small_cluster.h"
#include "triage/walk.h"

using namespace fabdiag;
using namespace fabdiag::triage;

namespace {

PairSample directed(int a, int b, double ab, double ba) {
  PairSample s{a, b, std::min(ab, ba), 0};
  s.a_to_b_bytes_per_s = ab;
  s.b_to_a_bytes_per_s = ba;
  return s;
}

PairSample dead(int a, int b, double waited_s) {
  PairSample s{a, b, NAN, 0};
  s.no_completion_s = waited_s;
  return s;
}

// A fake cluster with per-node send and receive factors, dead pairs and mild noise.
class DirectedCluster : public ClusterRunner {
 public:
  explicit DirectedCluster(int n) : send_(static_cast<size_t>(n), 1.0), recv_(static_cast<size_t>(n), 1.0) {
    for (int i = 0; i < n; ++i) hosts_.push_back("node" + std::string(i < 9 ? "0" : "") + std::to_string(i + 1));
  }
  const std::vector<std::string>& hosts() const override { return hosts_; }
  std::vector<Result<nlohmann::json>> snapshot_counters() override {
    return std::vector<Result<nlohmann::json>>(hosts_.size(), nlohmann::json::object());
  }
  Result<nlohmann::json> run_collective(const CollectiveSpec& spec) override {
    ++collectives_;
    return nlohmann::json{{"collective", spec.collective}, {"results", nlohmann::json::array()}};
  }
  Result<std::vector<PairSample>> run_round(const std::vector<std::pair<int, int>>& pairs, int round_id, uint64_t,
                                            int) override {
    std::vector<PairSample> out;
    std::lognormal_distribution<double> noise(0.0, 0.05);
    for (auto [a, b] : pairs) {
      tested_[{std::min(a, b), std::max(a, b)}] += 1;
      if (dead_.count({std::min(a, b), std::max(a, b)})) {
        PairSample s = dead(a, b, 30);
        s.round = round_id;
        out.push_back(s);
        continue;
      }
      auto rate = [&](int from, int to) {
        return 3e8 * std::min(send_[static_cast<size_t>(from)], recv_[static_cast<size_t>(to)]) * noise(rng_);
      };
      PairSample s = directed(a, b, rate(a, b), rate(b, a));
      s.round = round_id;
      out.push_back(s);
    }
    return out;
  }
  std::vector<double> send_, recv_;
  std::set<std::pair<int, int>> dead_;
  std::map<std::pair<int, int>, int> tested_;
  int collectives_ = 0;

 private:
  std::vector<std::string> hosts_;
  std::mt19937 rng_{11};
};

const nlohmann::json* find_suspect(const nlohmann::json& data, const std::string& kind, const std::string& host) {
  for (const auto& s : data["suspects"])
    if (s["kind"] == kind && s["hosts"][0] == host) return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("node_direction tells an egress-only node from an ingress-only one and from a plain slow node") {
  std::vector<PairSample> egress = {directed(0, 1, 1e7, 3e8), directed(2, 0, 3e8, 1e7), directed(0, 3, 1.1e7, 2.9e8)};
  NodeDirection d = node_direction(0, egress, 0.5);
  CHECK(d.direction == "send");
  CHECK(d.tests == 3);
  CHECK(d.send_bytes_per_s == doctest::Approx(1e7));
  CHECK(d.recv_bytes_per_s == doctest::Approx(3e8));
  CHECK(node_direction(1, egress, 0.5).direction == "recv");  // its one test: node01 -> node02 slow into node02
  std::vector<PairSample> ingress = {directed(0, 1, 3e8, 1e7), directed(0, 2, 3e8, 1.2e7)};
  CHECK(node_direction(0, ingress, 0.5).direction == "recv");
  std::vector<PairSample> both = {directed(0, 1, 1e7, 1.2e7), directed(0, 2, 1.1e7, 1e7)};
  CHECK(node_direction(0, both, 0.5).direction == "both");
  CHECK(node_direction(0, {PairSample{0, 1, 1e7, 0}}, 0.5).direction.empty());  // no per-direction rates
  CHECK(node_direction(0, both, 0.95).direction == "both");
  CHECK(node_direction(0, {directed(0, 1, 0.85e8, 1e8)}, 0.88).direction == "send");  // mild, fabric ratio
}

TEST_CASE("pair_direction orients the pair as asked") {
  std::vector<PairSample> s = {directed(1, 0, 1e7, 3e8)};
  CHECK(pair_direction(1, 0, s, 0.5).direction == "send");
  CHECK(pair_direction(0, 1, s, 0.5).direction == "recv");
  CHECK(pair_direction(0, 2, s, 0.5).direction.empty());
}

TEST_CASE("judge_dead names a dead link, and a dead host instead of its links") {
  std::vector<PairSample> s = {directed(0, 1, 3e8, 3e8), dead(4, 7, 30.2), directed(4, 1, 3e8, 3e8),
                               directed(7, 0, 3e8, 3e8)};
  auto d = judge_dead(8, s);
  REQUIRE(d.size() == 1);
  CHECK(d[0].kind == "link");
  CHECK(d[0].nodes == std::vector<int>{4, 7});
  CHECK(d[0].dead_tests == 1);
  std::vector<std::string> hosts = {"node01", "node02", "node03", "node04", "node05", "node06", "node07", "node08"};
  CHECK(dead_text(d[0], hosts) == "dead link node05<->node08: no completion in 30 s");
  CHECK(known_dead(7, 4, d));
  CHECK_FALSE(known_dead(4, 1, d));

  std::vector<PairSample> host = {dead(2, 0, 30), dead(2, 1, 31), dead(3, 2, 30), directed(0, 1, 3e8, 3e8)};
  d = judge_dead(4, host);
  REQUIRE(d.size() == 1);
  CHECK(d[0].kind == "node");
  CHECK(d[0].nodes == std::vector<int>{2});
  CHECK(d[0].dead_tests == 3);
  CHECK(dead_text(d[0], {"a", "b", "node03", "d"}) == "dead host node03: no completion with any of its 3 partners in 31 s");
  CHECK(known_dead(2, 3, d));
  CHECK(known_dead(0, 2, d));
  CHECK_FALSE(known_dead(0, 1, d));
  CHECK(judge_dead(4, {directed(0, 1, 3e8, 3e8)}).empty());
}

TEST_CASE("the default deadline grows with the nodes and the pair size") {
  WalkParams p;
  CHECK(default_deadline_s(10, p) == doctest::Approx(302));  // the figure in triage/deadline.h
  CHECK(default_deadline_s(2, p) >= 120);
  WalkParams sized = p;
  sized.pair_sizing = PairSizingParams{};  // 1, 4, 16 MiB: two more rounds, each test capped at dead_after_s
  CHECK(default_deadline_s(10, sized) == doctest::Approx(909));
  CHECK(default_deadline_s(16, p) > default_deadline_s(10, p));
  WalkParams big = p;
  big.pair_size_bytes = 64ull << 20;  // a pair test capped at dead_after_s per round
  CHECK(default_deadline_s(10, big) == doctest::Approx(std::ceil(60 + 8.808 + 23 * 30.0 + 90)).epsilon(0.001));
}

TEST_CASE("walk: an egress-only node is a direction send suspect, a dead link is named and not tested again") {
  DirectedCluster c(8);
  c.send_[2] = 0.03;  // node03: traffic out of it is slow
  c.dead_.insert({4, 7});
  auto rep = run_walk(c, WalkParams{}, {}, no_progress());
  auto j = to_json(rep);
  const auto* node = find_suspect(j, "node", "node03");
  REQUIRE(node != nullptr);
  CHECK((*node)["direction"] == "send");
  const auto* link = find_suspect(j, "link", "node05");
  REQUIRE(link != nullptr);
  CHECK((*link)["hosts"][1] == "node08");
  CHECK((*link)["dead"] == true);
  CHECK((*link)["no_completion_s"] == 30.0);
  CHECK(j["suspects"].size() == 2);
  CHECK(c.tested_[{4, 7}] == 1);  // the screen's test only
  CHECK(c.collectives_ == 0);     // a sweep over a dead pair would stall
  CHECK(std::any_of(rep.inconclusive.begin(), rep.inconclusive.end(), [](const std::string& s) {
    return s == "collective sweeps not run: dead link node05<->node08: no completion in 30 s would stall them";
  }));
  bool dead_finding = false;
  for (const auto& f : rep.findings)
    dead_finding |= f.code == "dead_link" && f.subject == "node05<->node08" &&
                    f.message == "dead link node05<->node08: no completion in 30 s";
  CHECK(dead_finding);
  CHECK(j["pairwise"]["directed_bytes_per_s"][2][0].get<double>() < 0.1 * j["pairwise"]["directed_bytes_per_s"][0][2].get<double>());
}

TEST_CASE("walk: an ingress-only node is direction recv, and a healthy directed cluster has no suspect") {
  DirectedCluster c(6);
  c.recv_[4] = 0.05;
  auto j = to_json(run_walk(c, WalkParams{}, {}, no_progress()));
  const auto* node = find_suspect(j, "node", "node05");
  REQUIRE(node != nullptr);
  CHECK((*node)["direction"] == "recv");
  CHECK(j["suspects"].size() == 1);
  DirectedCluster healthy(6);
  auto h = to_json(run_walk(healthy, WalkParams{}, {}, no_progress()));
  CHECK(h["suspects"].empty());
  CHECK(healthy.collectives_ == 2);
}

TEST_CASE("small clusters: an egress-only node among three, one slow direction between two") {
  DirectedCluster three(3);
  three.send_[1] = 0.03;
  auto j = to_json(run_walk(three, WalkParams{}, {}, no_progress()));
  REQUIRE(j["suspects"].size() == 1);
  CHECK(j["suspects"][0]["kind"] == "node");
  CHECK(j["suspects"][0]["hosts"][0] == "node02");
  CHECK(j["suspects"][0]["direction"] == "send");

  DirectedCluster two(2);
  two.send_[1] = 0.03;  // no reference needed: node02 -> node01 is far below node01 -> node02
  j = to_json(run_walk(two, WalkParams{}, {}, no_progress()));
  REQUIRE(j["suspects"].size() == 1);
  CHECK(j["suspects"][0]["kind"] == "pair");
  CHECK(j["suspects"][0]["direction"] == "send");  // written slow end first: node02 -> node01 is slow
  CHECK(j["suspects"][0]["hosts"] == nlohmann::json({"node02", "node01"}));

  Localization loc;
  LocalizeParams p;
  REQUIRE(judge_small_cluster(2, {directed(0, 1, 1e7, 1.1e7)}, p, loc));  // both directions slow alike
  CHECK(loc.suspects.empty());
  REQUIRE(loc.inconclusive.size() == 1);
  p.reference_bytes_per_s = 3e8;
  Localization with_ref;
  REQUIRE(judge_small_cluster(2, {directed(0, 1, 1e7, 1.1e7)}, p, with_ref));
  REQUIRE(with_ref.suspects.size() == 1);
  CHECK(with_ref.suspects[0].kind == "pair");
}
