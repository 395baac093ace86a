#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "perf/pairwise_analysis.h"

using namespace fabdiag;
using namespace fabdiag::perf;

namespace {

std::vector<std::string> node_names(int n) {
  std::vector<std::string> out;
  for (int i = 1; i <= n; ++i) out.push_back((i < 10 ? "node0" : "node") + std::to_string(i));
  return out;
}

// A full matrix: every pair measured at `base` (1 GB/s) times a deterministic noise factor in
// [0.7, 1.4], both directions within 5% of each other.
PairwiseMatrix full_matrix(int n, uint32_t seed = 1) {
  PairwiseMatrix m = make_empty_matrix(node_names(n), 4 << 20, 5);
  uint32_t s = seed;
  auto noise = [&] {
    s = s * 1664525u + 1013904223u;
    return 0.7 + 0.7 * ((s >> 8) / 16777216.0);
  };
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      double v = 1e9 * noise();
      record_pair(m, {a, b, v, v * 1.03});
    }
  return m;
}

void set_pair(PairwiseMatrix& m, int a, int b, double v) { record_pair(m, {a, b, v, v}); }

std::vector<std::string> outlier_hosts(const PairwiseAnalysis& a) {
  std::vector<std::string> out;
  for (const auto& o : a.outlier_nodes) out.push_back(o.host);
  std::sort(out.begin(), out.end());
  return out;
}

bool inconclusive_about(const PairwiseAnalysis& a, const std::string& host) {
  for (const auto& i : a.inconclusive)
    if (std::find(i.hosts.begin(), i.hosts.end(), host) != i.hosts.end()) return true;
  return false;
}

}  // namespace

TEST_CASE("pair value is the mean of the measured directions") {
  PairwiseMatrix m = make_empty_matrix(node_names(3), 1, 1);
  record_pair(m, {0, 1, 2e9, 1e9});
  CHECK(pair_value(m, 0, 1) == doctest::Approx(1.5e9));
  CHECK(pair_value(m, 1, 0) == doctest::Approx(1.5e9));
  m.matrix_bytes_per_s[0][2] = 4e8;
  CHECK(pair_value(m, 2, 0) == doctest::Approx(4e8));
  CHECK(std::isnan(pair_value(m, 1, 2)));
  CHECK(std::isnan(pair_value(m, 1, 1)));
}

TEST_CASE("one slow node among 8: named alone, its pairs are not called links") {
  PairwiseMatrix m = full_matrix(8);
  for (int j = 0; j < 8; ++j)
    if (j != 2) set_pair(m, 2, j, 7e6);  // 100 Mbit/s tbf: ~7 MB/s against ~1 GB/s
  PairwiseAnalysis a = analyze_pairwise(m, PairwiseThresholds{});
  REQUIRE(outlier_hosts(a) == std::vector<std::string>{"node03"});
  const auto& o = a.outlier_nodes[0];
  CHECK(o.partners == 7);
  CHECK(o.median_bytes_per_s == doctest::Approx(7e6));
  CHECK(o.ratio < 0.02);
  CHECK(o.ratio == doctest::Approx(7e6 / a.fleet_median_bytes_per_s));
  REQUIRE(o.modified_z);
  CHECK(*o.modified_z < -3.5);
  CHECK(a.outlier_links.empty());
  CHECK(a.inconclusive.empty());
  CHECK(a.reference_source == "fleet median");
  for (int x = 0; x < 8; ++x)
    CHECK(a.status[static_cast<size_t>(x)] == (x == 2 ? NodeStatus::kSlow : NodeStatus::kHealthy));

  auto f = pairwise_findings(m, a, PairwiseThresholds{});
  REQUIRE(f.size() == 1);
  CHECK(f[0].code == "slow_node");
  CHECK(f[0].severity == Severity::kError);
  CHECK(f[0].layer == Layer::kLocalization);
  CHECK(f[0].subject == "node03");
  CHECK(f[0].evidence.size() == 2 + 7);  // median, z, 7 pairs
}

TEST_CASE("one slow link among 8: a link, neither end is a node") {
  PairwiseMatrix m = full_matrix(8, 7);
  set_pair(m, 4, 5, 2e7);  // htb between node05 and node06
  PairwiseAnalysis a = analyze_pairwise(m, PairwiseThresholds{});
  CHECK(a.outlier_nodes.empty());
  REQUIRE(a.outlier_links.size() == 1);
  CHECK(a.outlier_links[0].host_a == "node05");
  CHECK(a.outlier_links[0].host_b == "node06");
  CHECK(a.outlier_links[0].ratio < 0.15);
  REQUIRE(a.outlier_links[0].modified_z);
  CHECK(*a.outlier_links[0].modified_z < -3.5);
  CHECK(a.inconclusive.empty());
  auto f = pairwise_findings(m, a, PairwiseThresholds{});
  REQUIRE(f.size() == 1);
  CHECK(f[0].code == "slow_link");
  CHECK(f[0].severity == Severity::kWarn);
  CHECK(f[0].subject == "node05<->node06");
}

TEST_CASE("healthy but noisy: single pairs 6x below the median name nothing") {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    PairwiseMatrix m = full_matrix(8, seed);
    const double median_pair = analyze_pairwise(m, PairwiseThresholds{}).fleet_median_bytes_per_s;
    // Every node gets one dip to 1/6 of the median (disjoint pairs: a perfect matching).
    for (int a = 0; a < 8; a += 2) set_pair(m, a, a + 1, median_pair / 6);
    PairwiseAnalysis a = analyze_pairwise(m, PairwiseThresholds{});
    CHECK(a.outlier_nodes.empty());
    CHECK(a.outlier_links.empty());
    CHECK(a.inconclusive.empty());
  }
  // A node with 3 of its 7 pairs 6x down is still not slow (the median decides).
  PairwiseMatrix m = full_matrix(8, 3);
  for (int j : {1, 4, 6}) set_pair(m, 0, j, 1e9 / 6);
  PairwiseAnalysis a = analyze_pairwise(m, PairwiseThresholds{});
  CHECK(a.outlier_nodes.empty());
  // But a pair 10x below the median between two healthy nodes is a slow link.
  PairwiseMatrix l = full_matrix(8, 4);
  set_pair(l, 3, 7, analyze_pairwise(l, PairwiseThresholds{}).fleet_median_bytes_per_s / 10);
  PairwiseAnalysis la = analyze_pairwise(l, PairwiseThresholds{});
  CHECK(la.outlier_nodes.empty());
  REQUIRE(la.outlier_links.size() == 1);
  CHECK(la.outlier_links[0].a == 3);
  CHECK(la.outlier_links[0].b == 7);
}

TEST_CASE("odd N = 7 (schedule with a bye): one slow node") {
  PairwiseMatrix m = full_matrix(7, 11);
  m.rounds = round_robin_schedule(7);
  for (int j = 0; j < 7; ++j)
    if (j != 6) set_pair(m, 6, j, 1e7);
  PairwiseAnalysis a = analyze_pairwise(m, PairwiseThresholds{});
  CHECK(outlier_hosts(a) == std::vector<std::string>{"node07"});
  CHECK(a.outlier_nodes[0].partners == 6);
  CHECK(a.outlier_links.empty());
}

TEST_CASE("several slow nodes: peeling keeps their partners clear") {
  SUBCASE("3 of 8") {
    PairwiseMatrix m = full_matrix(8, 5);
    for (int s : {1, 4, 6})
      for (int j = 0; j < 8; ++j)
        if (j != s) set_pair(m, s, j, 7e6);
    PairwiseAnalysis a = analyze_pairwise(m, PairwiseThresholds{});
    CHECK(outlier_hosts(a) == std::vector<std::string>{"node02", "node05", "node07"});
    CHECK(a.outlier_links.empty());
  }
  SUBCASE("2 of 4: one named by its median, the other left a suspect") {
    PairwiseMatrix m = full_matrix(4, 9);
    for (int s : {0, 1})
      for (int j = 0; j < 4; ++j)
        if (j != s) set_pair(m, s, j, 7e6);
    PairwiseThresholds t;
    t.reference_bytes_per_s = 1e9;  // a baseline: the fleet median itself is contaminated here
    PairwiseAnalysis a = analyze_pairwise(m, t);
    // node01 is judged on 3 partners. Without it, node02 has 2 partners left, which clear only
    // each other (as with 3 nodes): a suspect that needs re-pairing, not a guess.
    CHECK(outlier_hosts(a) == std::vector<std::string>{"node01"});
    CHECK(a.status[1] == NodeStatus::kSuspect);
    CHECK(inconclusive_about(a, "node02"));
    CHECK(a.status[2] == NodeStatus::kHealthy);
    CHECK(a.status[3] == NodeStatus::kHealthy);
  }
}

TEST_CASE("tiny N: 2 and 3 nodes are inconclusive rather than guessed") {
  SUBCASE("N = 2, no reference") {
    PairwiseMatrix m = make_empty_matrix(node_names(2), 1, 1);
    set_pair(m, 0, 1, 1e7);
    PairwiseAnalysis a = analyze_pairwise(m, PairwiseThresholds{});
    CHECK(a.outlier_nodes.empty());
    CHECK(a.outlier_links.empty());
    CHECK(inconclusive_about(a, "node01"));
    CHECK(inconclusive_about(a, "node02"));
    CHECK(std::isnan(a.reference_bytes_per_s));
  }
  SUBCASE("N = 2 with a baseline: a slow pair makes both suspects") {
    PairwiseMatrix m = make_empty_matrix(node_names(2), 1, 1);
    set_pair(m, 0, 1, 1e7);
    PairwiseThresholds t;
    t.reference_bytes_per_s = 1e9;
    PairwiseAnalysis a = analyze_pairwise(m, t);
    CHECK(a.outlier_nodes.empty());
    CHECK(a.status[0] == NodeStatus::kSuspect);
    CHECK(a.status[1] == NodeStatus::kSuspect);
  }
  SUBCASE("N = 3, one slow node: its partners only clear each other") {
    PairwiseMatrix m = make_empty_matrix(node_names(3), 1, 1);
    set_pair(m, 0, 1, 7e6);
    set_pair(m, 0, 2, 7e6);
    set_pair(m, 1, 2, 1e9);
    PairwiseAnalysis a = analyze_pairwise(m, PairwiseThresholds{});
    CHECK(a.outlier_nodes.empty());
    CHECK(a.outlier_links.empty());
    CHECK(a.status[0] == NodeStatus::kSuspect);
    CHECK(inconclusive_about(a, "node01"));
    CHECK(a.status[1] == NodeStatus::kHealthy);
    CHECK(a.status[2] == NodeStatus::kHealthy);
  }
  SUBCASE("N = 3, one slow pair: not called a link on one control each") {
    PairwiseMatrix m = make_empty_matrix(node_names(3), 1, 1);
    set_pair(m, 0, 1, 7e6);
    set_pair(m, 0, 2, 1e9);
    set_pair(m, 1, 2, 1e9);
    PairwiseAnalysis a = analyze_pairwise(m, PairwiseThresholds{});
    CHECK(a.outlier_nodes.empty());
    CHECK(a.outlier_links.empty());
    REQUIRE(a.inconclusive.size() == 1);
    CHECK(a.inconclusive[0].hosts == std::vector<std::string>{"node01", "node02"});
  }
  SUBCASE("N = 3 healthy: nothing to report") {
    PairwiseMatrix m = full_matrix(3);
    PairwiseAnalysis a = analyze_pairwise(m, PairwiseThresholds{});
    CHECK(a.outlier_nodes.empty());
    CHECK(a.outlier_links.empty());
    CHECK(a.inconclusive.empty());
  }
}

TEST_CASE("case 028: node01 slow, node05/node06 suspects, node02/node04 cleared") {
  std::ifstream in(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/pairwise-028/pairs.txt");
  REQUIRE(in);
  PairwiseMatrix m = make_empty_matrix(node_names(7), 0, 0);
  std::string line;
  int pairs = 0;
  while (std::getline(in, line)) {
    auto fields = split_ws(line.substr(0, line.find('#')));
    if (fields.size() != 2) continue;
    auto hosts = split(fields[0], ',');
    REQUIRE(hosts.size() == 2);
    int a = std::stoi(hosts[0].substr(4)) - 1, b = std::stoi(hosts[1].substr(4)) - 1;
    auto gbps = parse_double(fields[1]);
    REQUIRE(gbps);
    set_pair(m, a, b, *gbps * 1e9);  // busbw in GB/s
    ++pairs;
  }
  REQUIRE(pairs == 5);
  // Real fabric (InfiniBand with adaptive routing): tau 0.75, p90 reference.
  PairwiseAnalysis a = analyze_pairwise(m, fabric_thresholds());
  CHECK(a.reference_source == "p90 of pairs");
  CHECK(a.reference_bytes_per_s == doctest::Approx(87.74e9).epsilon(0.001));
  REQUIRE(outlier_hosts(a) == std::vector<std::string>{"node01"});
  CHECK(a.outlier_nodes[0].partners == 2);
  CHECK(a.outlier_nodes[0].median_bytes_per_s == doctest::Approx(49.33e9));
  CHECK(a.outlier_nodes[0].ratio == doctest::Approx(0.562).epsilon(0.01));
  // must not: blame node02 or node04; clear or blame node05/node06.
  CHECK(a.status[1] == NodeStatus::kHealthy);  // node02
  CHECK(a.status[3] == NodeStatus::kHealthy);  // node04
  CHECK(a.status[2] == NodeStatus::kHealthy);  // node03
  CHECK(a.status[6] == NodeStatus::kHealthy);  // node07
  CHECK(a.status[4] == NodeStatus::kSuspect);  // node05
  CHECK(a.status[5] == NodeStatus::kSuspect);  // node06
  CHECK(inconclusive_about(a, "node05"));
  CHECK(inconclusive_about(a, "node06"));
  CHECK_FALSE(inconclusive_about(a, "node02"));
  CHECK(a.outlier_links.empty());  // the ToR-crossing pair node05,node06 is not called a link
  auto f = pairwise_findings(m, a, fabric_thresholds());
  REQUIRE(f.size() == 4);
  CHECK(f[0].code == "slow_node");
  CHECK(f[0].subject == "node01");
  CHECK(f[1].code == "pairwise_inconclusive");
  CHECK(f[1].severity == Severity::kInfo);
  CHECK(f[2].code == "pairwise_inconclusive");
  // The pair itself, at 0.56 of the reference (below 0.75): a warning, not a silent pass.
  CHECK(f[3].code == "slow_pair_inconclusive");
  CHECK(f[3].severity == Severity::kWarn);
  CHECK(f[3].subject == "node05<->node06");
  CHECK(f[3].message.find("slow pair at 0.56 of the p90 of pairs (below the pair ratio 0.75), but node05 and node06 have "
                          "no partner known good") != std::string::npos);
}

TEST_CASE("a slow pair whose ends have no other partner is an inconclusive slow pair, with R and the ratios in the JSON") {
  // Six pairs of eight hosts (the tester's list): n7<->n8 at 5 GB/s, the rest 90 GB/s.
  PairwiseMatrix m = make_empty_matrix(node_names(8), 0, 0);
  for (auto [a, b] : {std::pair{0, 1}, {2, 3}, {4, 5}, {0, 2}, {1, 3}}) set_pair(m, a, b, 90e9);
  set_pair(m, 6, 7, 5e9);
  const auto t = fabric_thresholds();
  PairwiseAnalysis a = analyze_pairwise(m, t);
  CHECK(a.reference_bytes_per_s == doctest::Approx(90e9));
  CHECK(a.outlier_links.empty());  // one partner each: the rule cannot call it a link
  const auto f = pairwise_findings(m, a, t);
  const auto it = std::find_if(f.begin(), f.end(), [](const Finding& x) { return x.subject == "node07<->node08"; });
  REQUIRE(it != f.end());
  CHECK(it->severity == Severity::kWarn);
  CHECK(it->code == "slow_pair_inconclusive");
  CHECK(it->message.find("slow pair at 0.06 of the p90 of pairs") != std::string::npos);
  nlohmann::json j;
  pairwise_to_json(j, m, a);
  CHECK(j["reference_bytes_per_s"].get<double>() == doctest::Approx(90e9));
  CHECK(j["reference_source"] == "p90 of pairs");
  CHECK(j["pair_ratio"].get<double>() == doctest::Approx(0.75));
  CHECK(j["node_ratio"].get<double>() == doctest::Approx(0.75));
}

TEST_CASE("requiring the modified z-score as well") {
  PairwiseMatrix m = full_matrix(8, 2);
  for (int j = 1; j < 8; ++j) set_pair(m, 0, j, 1e7);
  PairwiseThresholds gated;
  gated.require_modified_z = true;
  CHECK(outlier_hosts(analyze_pairwise(m, gated)) == std::vector<std::string>{"node01"});
  // A very noisy round (nodes spread over 10x): the ratio alone flags the lowest node, the
  // z test (within the round's own spread) does not.
  const double q[8] = {0.1, 0.3, 0.5, 0.8, 1.2, 1.6, 2.2, 3.0};
  PairwiseMatrix noisy = make_empty_matrix(node_names(8), 1, 1);
  for (int a = 0; a < 8; ++a)
    for (int b = a + 1; b < 8; ++b) set_pair(noisy, a, b, 1e9 * std::sqrt(q[a] * q[b]));
  CHECK(outlier_hosts(analyze_pairwise(noisy, PairwiseThresholds{})) ==
        std::vector<std::string>{"node01"});
  auto z_gated = analyze_pairwise(noisy, gated);
  CHECK(z_gated.outlier_nodes.empty());
  REQUIRE(z_gated.node_modified_z[0]);
  CHECK(*z_gated.node_modified_z[0] > -3.5);
}

TEST_CASE("JSON follows the fabdiag.pairwise/1 data contract") {
  PairwiseMatrix m = full_matrix(4);
  m.rounds = round_robin_schedule(4);
  for (int j = 1; j < 4; ++j) set_pair(m, 0, j, 1e7);
  m.matrix_bytes_per_s[2][3] = NAN;  // pair node03-node04 not measured
  m.matrix_bytes_per_s[3][2] = NAN;
  PairwiseAnalysis a = analyze_pairwise(m, PairwiseThresholds{});
  nlohmann::json j;
  pairwise_to_json(j, m, a);
  std::vector<std::string> keys;
  for (auto& [k, v] : j.items()) keys.push_back(k);
  CHECK(keys == std::vector<std::string>{"fleet_median_bytes_per_s", "hosts", "inconclusive",
                                         "iters", "matrix_bytes_per_s", "node_median_bytes_per_s", "node_ratio",
                                         "outlier_links", "outlier_nodes", "pair_ratio", "reference_bytes_per_s",
                                         "reference_source", "rounds", "size_bytes"});
  CHECK(j["hosts"] == nlohmann::json({"node01", "node02", "node03", "node04"}));
  CHECK(j["size_bytes"] == 4 << 20);
  CHECK(j["iters"] == 5);
  CHECK(j["rounds"].size() == 3);
  CHECK(j["rounds"][0][0] == nlohmann::json({0, 3}));
  REQUIRE(j["matrix_bytes_per_s"].size() == 4);
  for (int i = 0; i < 4; ++i) CHECK(j["matrix_bytes_per_s"][i][i].is_null());
  CHECK(j["matrix_bytes_per_s"][2][3].is_null());
  CHECK(j["matrix_bytes_per_s"][0][1] == 1e7);
  CHECK(j["node_median_bytes_per_s"]["node01"] == 1e7);
  CHECK(j["fleet_median_bytes_per_s"].is_number());
  REQUIRE(j["outlier_nodes"].size() == 1);
  std::vector<std::string> okeys;
  for (auto& [k, v] : j["outlier_nodes"][0].items()) okeys.push_back(k);
  CHECK(okeys == std::vector<std::string>{"host", "median_bytes_per_s", "partners", "ratio"});
  CHECK(j["outlier_nodes"][0]["host"] == "node01");
  CHECK(j["outlier_nodes"][0]["partners"] == 3);
  CHECK(j["outlier_links"].is_array());
  CHECK(j["inconclusive"].is_array());
}
