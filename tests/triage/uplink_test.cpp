// Leaf-uplink localization on a simulated fabric: leaves of hosts joined by a spine, one leaf's
// uplink (or one node) throttled, emulated-cluster noise (docs/localization.md#uplinks-and-leaves).
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>

#include "triage/leaf_map.h"
#include "triage/uplink.h"
#include "triage/walk.h"

using namespace fabdiag;
using namespace fabdiag::triage;

namespace {

std::string host_name(int i) { return "node" + std::string(i < 9 ? "0" : "") + std::to_string(i + 1); }

// A fabric of `leaves` leaves of `per_leaf` hosts (node01.. in leaf order): a pair's rate is the
// slower end's factor, times the uplink factor of each end's leaf when it crosses leaves, times
// log-normal noise.
class LeafFabric : public ClusterRunner {
 public:
  LeafFabric(int leaves, int per_leaf, unsigned seed)
      : per_leaf_(per_leaf), node_(static_cast<size_t>(leaves * per_leaf), 1.0), uplink_(static_cast<size_t>(leaves), 1.0), rng_(seed) {
    for (int i = 0; i < leaves * per_leaf; ++i) {
      hosts_.push_back(host_name(i));
      topo_.leaf_of_host[hosts_.back()] = "leaf" + std::to_string(i / per_leaf + 1);
    }
    topo_.format = "text";
  }
  const std::vector<std::string>& hosts() const override { return hosts_; }
  std::vector<Result<nlohmann::json>> snapshot_counters() override {
    return std::vector<Result<nlohmann::json>>(hosts_.size(), nlohmann::json::object());
  }
  Result<nlohmann::json> run_collective(const CollectiveSpec& spec) override {
    return nlohmann::json{{"collective", spec.collective}, {"results", nlohmann::json::array()}};
  }
  Result<std::vector<PairSample>> run_round(const std::vector<std::pair<int, int>>& pairs, int round_id, uint64_t,
                                            int) override {
    std::set<int> seen;
    std::vector<PairSample> out;
    std::lognormal_distribution<double> noise(0.0, 0.3);
    for (auto [a, b] : pairs) {
      CHECK(seen.insert(a).second);
      CHECK(seen.insert(b).second);
      int la = a / per_leaf_, lb = b / per_leaf_;
      double v = 3e8 * std::min(node_[static_cast<size_t>(a)], node_[static_cast<size_t>(b)]) * noise(rng_);
      if (la != lb) v *= uplink_[static_cast<size_t>(la)] * uplink_[static_cast<size_t>(lb)];
      if (la != lb) ++cross_tests_;
      else ++intra_tests_;
      out.push_back(PairSample{a, b, v, round_id});
    }
    return out;
  }
  WalkParams params() const {
    WalkParams p;
    p.topology = topo_;
    return p;
  }
  int per_leaf_;
  std::vector<double> node_, uplink_;
  FabricTopology topo_;
  int cross_tests_ = 0, intra_tests_ = 0;

 private:
  std::vector<std::string> hosts_;
  std::mt19937 rng_;
};

std::vector<std::string> hosts_of_leaf(int leaf, int per_leaf) {
  std::vector<std::string> h;
  for (int i = 0; i < per_leaf; ++i) h.push_back(host_name(leaf * per_leaf + i));
  return h;
}

}  // namespace

TEST_CASE("one slow uplink among 4 leaves is named and no node is") {
  for (unsigned seed : {1u, 2u, 3u, 4u, 5u}) {
    CAPTURE(seed);
    LeafFabric f(4, 4, seed);
    f.uplink_[1] = 0.05;
    auto rep = run_walk(f, f.params(), {}, no_progress());
    REQUIRE(rep.suspects.size() == 1);
    CHECK(rep.suspects[0].kind == "leaf_uplink");
    CHECK(rep.suspects[0].subject == "leaf2");
    CHECK(rep.suspects[0].leaves == std::vector<std::string>{"leaf2"});
    CHECK(rep.suspects[0].hosts == hosts_of_leaf(1, 4));
    CHECK(rep.suspects[0].evidence.size() == 3);  // cross-leaf median, intra-leaf median, the other leaves
    CHECK(rep.suspects[0].evidence[0].value < 0.5 * 3e8);
    CHECK(rep.suspects[0].evidence[1].value > 0.5 * 3e8);
    REQUIRE(rep.findings.size() == 1);
    CHECK(rep.findings[0].code == "slow_leaf_uplink");
    CHECK(rep.findings[0].subject == "leaf2");
    auto j = to_json(rep);
    CHECK(j["suspects"][0]["subject"] == "leaf2");
    CHECK(j["suspects"][0]["leaves"][0] == "leaf2");
  }
}

TEST_CASE("a slow node under a leaf stays a node suspect, not an uplink") {
  for (unsigned seed : {1u, 2u, 3u}) {
    CAPTURE(seed);
    LeafFabric f(4, 4, seed);
    f.node_[6] = 0.03;  // node07, under leaf2
    auto rep = run_walk(f, f.params(), {}, no_progress());
    REQUIRE(rep.suspects.size() == 1);
    CHECK(rep.suspects[0].kind == "node");
    CHECK(rep.suspects[0].hosts == std::vector<std::string>{"node07"});
  }
}

TEST_CASE("healthy leaves give no suspect") {
  for (unsigned seed : {1u, 2u, 3u, 4u, 5u}) {
    CAPTURE(seed);
    LeafFabric f(4, 4, seed);
    auto rep = run_walk(f, f.params(), {}, no_progress());
    CHECK(rep.suspects.empty());
  }
}

TEST_CASE("two leaves: the slow path between them is one suspect naming both, no node") {
  LeafFabric f(2, 4, 7);
  f.uplink_[0] = 0.05;
  auto rep = run_walk(f, f.params(), {}, no_progress());
  REQUIRE(rep.suspects.size() == 1);
  CHECK(rep.suspects[0].kind == "leaf_uplink");
  CHECK(rep.suspects[0].subject == "leaf1<->leaf2");
  CHECK(rep.suspects[0].hosts.size() == 8);
  CHECK(rep.suspects[0].evidence.size() == 2);  // no other leaves to compare with
}

TEST_CASE("without a topology the same fault is not called an uplink") {
  LeafFabric f(4, 4, 1);
  f.uplink_[1] = 0.05;
  auto rep = run_walk(f, WalkParams{}, {}, no_progress());
  for (const auto& s : rep.suspects) CHECK(s.kind != "leaf_uplink");
}

TEST_CASE("at 64 nodes the matchings prefer intra-leaf pairs and still find the uplink") {
  LeafFabric f(8, 8, 3);
  f.uplink_[5] = 0.05;
  auto rep = run_walk(f, f.params(), {}, no_progress());
  CHECK(f.intra_tests_ > f.cross_tests_);
  REQUIRE(rep.suspects.size() == 1);
  CHECK(rep.suspects[0].kind == "leaf_uplink");
  CHECK(rep.suspects[0].subject == "leaf6");
}

TEST_CASE("leaf matchings: as many rounds as without a topology, intra-leaf first, then one cross-leaf round") {
  LeafMap m;
  for (int i = 0; i < 20; ++i) m.leaf_of.push_back(i < 12 ? 0 : 1);
  m.leaves = {"a", "b"};
  auto rounds = leaf_matchings(m, 3, 9);
  REQUIRE(rounds.size() == 3);
  for (size_t r = 0; r < rounds.size(); ++r) {
    std::set<int> seen;
    int cross = 0;
    for (auto [a, b] : rounds[r]) {
      CHECK(seen.insert(a).second);
      CHECK(seen.insert(b).second);
      cross += m.leaf_of[static_cast<size_t>(a)] != m.leaf_of[static_cast<size_t>(b)] ? 1 : 0;
    }
    CHECK(rounds[r].size() == 10);
    if (r < 2) CHECK(cross == 0);
    else CHECK(cross >= 8);
  }
}

TEST_CASE("map_leaves matches short names and leaves unknown hosts out") {
  FabricTopology t;
  t.leaf_of_host = {{"node01.cluster.local", "leafA"}, {"node02", "leafB"}};
  auto m = map_leaves({"node01", "node02.cluster.local", "node03"}, t);
  CHECK(m.leaf_of == std::vector<int>{0, 1, -1});
  CHECK(m.leaves == std::vector<std::string>{"leafA", "leafB"});
}

namespace {

// Every pair of 4 leaves x 4 hosts once: intra-leaf at 3e8, cross-leaf at `cross` (x `slow`
// for pairs touching `slow_leaf`), no noise: what a 2:1 fabric gives when every host sends at once.
std::vector<PairSample> all_pairs(double cross, int slow_leaf = -1, double slow = 1) {
  std::vector<PairSample> s;
  for (int a = 0; a < 16; ++a)
    for (int b = a + 1; b < 16; ++b) {
      double v = a / 4 == b / 4 ? 3e8 : cross;
      if (a / 4 != b / 4 && (a / 4 == slow_leaf || b / 4 == slow_leaf)) v *= slow;
      s.push_back(PairSample{a, b, v, 0});
    }
  return s;
}

LeafMap four_leaves() {
  LeafMap m;
  for (int i = 0; i < 16; ++i) m.leaf_of.push_back(i / 4);
  m.leaves = {"leaf1", "leaf2", "leaf3", "leaf4"};
  return m;
}

}  // namespace

TEST_CASE("an oversubscribed fabric: cross-leaf pairs at 1/R are dark without --oversubscription, fine with it") {
  LocalizeParams p = fabric_params();
  auto healthy = all_pairs(1.5e8);
  UplinkScreen blocking = screen_uplinks(healthy, four_leaves(), p);
  REQUIRE(blocking.suspects.size() == 1);  // every leaf: the spine, or the design
  CHECK(blocking.suspects[0].leaves.size() == 4);
  p.oversubscription = 2;
  UplinkScreen known = screen_uplinks(healthy, four_leaves(), p);
  CHECK(known.suspects.empty());
  CHECK(known.cross_ratio == doctest::Approx(p.node_ratio / 2));
  CHECK(known.ratio == doctest::Approx(p.node_ratio));
  // One leaf's uplink at half of what the 2:1 design gives is still named, alone.
  UplinkScreen one = screen_uplinks(all_pairs(1.5e8, 2, 0.5), four_leaves(), p);
  REQUIRE(one.suspects.size() == 1);
  CHECK(one.suspects[0].leaves == std::vector<int>{2});
  CHECK(one.suspects[0].cross_median_bytes_per_s == doctest::Approx(0.75e8));
}
