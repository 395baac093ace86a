#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "triage/straggler.h"

using namespace fabdiag;
using namespace fabdiag::triage;

namespace {
// Four ranks, node01..node04, one row per lateness vector; waits: 30 ms, the late rank's 10 ms.
SweepSkew sweep_of(const std::vector<std::vector<double>>& lateness_rows, int late_rank, double iteration_s) {
  SweepSkew s;
  s.collective = "all_reduce";
  s.hosts = {"node01", "node02", "node03", "node04"};
  uint64_t size = 1 << 20;
  for (const auto& late : lateness_rows) {
    std::vector<double> wait(4, 0.030);
    if (late_rank >= 0) wait[static_cast<size_t>(late_rank)] = 0.010;
    s.rows.push_back(SkewRow{size, late, wait, iteration_s});
    size *= 2;
  }
  return s;
}
}  // namespace

TEST_CASE("straggler rule: late in 2 of 3 sizes while the others wait names the rank with its numbers") {
  auto s = sweep_of({{0, 0.0004, 0.020, 0.0002}, {0, 0.0003, 0.0005, 0.0001}, {0.0001, 0, 0.015, 0.0003}}, 2, 0.032);
  auto out = judge_stragglers(s);
  REQUIRE(out.size() == 1);
  CHECK(out[0].rank == 2);
  CHECK(out[0].host == "node03");
  CHECK(out[0].collective == "all_reduce");
  CHECK(out[0].sizes == 3);
  REQUIRE(out[0].late.size() == 2);
  CHECK(out[0].late[0].size_bytes == 1 << 20);
  CHECK(out[0].late[0].lateness_s == doctest::Approx(0.020));
  // max(3 x median(0, 0.0002, 0.0004, 0.020) = 0.0009, 0.2 x 0.032 = 0.0064, 0.001)
  CHECK(out[0].late[0].threshold_s == doctest::Approx(0.0064));
  CHECK(out[0].late[0].own_wait_s == doctest::Approx(0.010));
  CHECK(out[0].late[0].others_wait_s == doctest::Approx(0.030));
  CHECK(out[0].late[1].size_bytes == 4 << 20);
}

TEST_CASE("straggler rule: late at one size of three is noise, not a straggler") {
  auto s = sweep_of({{0, 0.0004, 0.020, 0.0002}, {0, 0.0003, 0.0005, 0.0001}, {0.0001, 0, 0.0002, 0.0003}}, 2, 0.032);
  CHECK(judge_stragglers(s).empty());
}

TEST_CASE("straggler rule: each limit holds on its own") {
  SUBCASE("below 20 % of the step") {
    auto s = sweep_of({{0, 0, 0.005, 0}, {0, 0, 0.005, 0}, {0, 0, 0.005, 0}}, 2, 0.030);  // limit 6 ms
    CHECK(judge_stragglers(s).empty());
  }
  SUBCASE("below 3 x the median rank's lateness: every rank is that late") {
    auto s = sweep_of({{0, 0.010, 0.025, 0.012}, {0, 0.010, 0.025, 0.012}, {0, 0.010, 0.025, 0.012}}, 2, 0.040);
    CHECK(judge_stragglers(s).empty());  // median 0.011, limit 0.033
  }
  SUBCASE("below the 1 ms floor on a fast step") {
    auto s = sweep_of({{0, 0, 0.0008, 0}, {0, 0, 0.0008, 0}, {0, 0, 0.0008, 0}}, 2, 0.001);
    CHECK(judge_stragglers(s).empty());
  }
  SUBCASE("late but the others did not wait for it (its own wait is as long)") {
    auto s = sweep_of({{0, 0, 0.020, 0}, {0, 0, 0.020, 0}, {0, 0, 0.020, 0}}, -1, 0.032);
    CHECK(judge_stragglers(s).empty());
  }
  SUBCASE("the same numbers with the short wait: named") {
    auto s = sweep_of({{0, 0, 0.020, 0}, {0, 0, 0.020, 0}, {0, 0, 0.020, 0}}, 2, 0.032);
    REQUIRE(judge_stragglers(s).size() == 1);
    CHECK(judge_stragglers(s)[0].late.size() == 3);
  }
}

TEST_CASE("straggler rule: fewer than three ranks cannot tell the late one from the median") {
  SweepSkew s;
  s.hosts = {"node01", "node02"};
  s.rows.push_back(SkewRow{1 << 20, {0, 0.020}, {0.030, 0.010}, 0.032});
  CHECK(judge_stragglers(s).empty());
}

TEST_CASE("skew probe from fabdiag.bench/1 JSON: rows without the probe or with wrong lengths are left out") {
  nlohmann::json b = {{"collective", "alltoall"},
                      {"hosts", {"a", "b", "c"}},
                      {"results",
                       {{{"size_bytes", 1024}, {"entry_lateness_s", {0, 0.02, 0}}, {"wait_s", {0.03, 0.01, 0.03}}, {"skew_iteration_s", 0.032}},
                        {{"size_bytes", 2048}, {"time_s", 1}},
                        {{"size_bytes", 4096}, {"entry_lateness_s", {0, 0.02}}, {"wait_s", {0.03, 0.01, 0.03}}},
                        {{"size_bytes", 8192}, {"entry_lateness_s", {0, "x", 0}}, {"wait_s", {0.03, 0.01, 0.03}}}}}};
  SweepSkew s = sweep_skew_from_json(b);
  CHECK(s.collective == "alltoall");
  CHECK(s.hosts == std::vector<std::string>{"a", "b", "c"});
  REQUIRE(s.rows.size() == 1);
  CHECK(s.rows[0].size_bytes == 1024);
  CHECK(s.rows[0].iteration_s == doctest::Approx(0.032));
  CHECK(judge_stragglers(s).size() == 1);
  CHECK(sweep_skew_from_json(nlohmann::json::array()).rows.empty());
  CHECK(sweep_skew_from_json(nlohmann::json{{"results", 3}}).rows.empty());
}

TEST_CASE("straggler suspects: one per host over both sweeps, evidence per late size, and the host leaves cleared") {
  TriageReport rep;
  rep.hosts = {"a", "b", "c"};
  rep.cleared = {{"a", "performed like its peers"}, {"b", "performed like its peers"}};
  for (const char* coll : {"all_reduce", "alltoall"})
    rep.bench.push_back({{"collective", coll},
                         {"hosts", {"a", "b", "c"}},
                         {"results", {{{"size_bytes", 1024}, {"entry_lateness_s", {0.0001, 0.02, 0}},
                                       {"wait_s", {0.03, 0.01, 0.03}}, {"skew_iteration_s", 0.032}}}}});
  add_straggler_suspects(rep);
  REQUIRE(rep.suspects.size() == 1);
  const auto& s = rep.suspects[0];
  CHECK(s.kind == "straggler");
  CHECK(s.hosts == std::vector<std::string>{"b"});
  CHECK(s.layer == Layer::kCollective);
  REQUIRE(s.evidence.size() == 4);  // lateness + wait per sweep
  CHECK(s.evidence[0].value == doctest::Approx(0.02));
  CHECK(s.evidence[0].threshold == doctest::Approx(0.0064));
  CHECK(s.evidence[0].source == "all_reduce skew probe at 1024 bytes, rank 1");
  CHECK(s.evidence[3].source == "alltoall skew probe at 1024 bytes, rank 1");
  CHECK(s.evidence[1].threshold == doctest::Approx(0.03));
  REQUIRE(rep.cleared.size() == 1);
  CHECK(rep.cleared[0].first == "a");
}

TEST_CASE("straggler suspects: a host the pair tests already named slow keeps one node suspect with the lateness as evidence") {
  TriageReport rep;
  rep.hosts = {"a", "b", "c"};
  TriageSuspect node;
  node.kind = "node";
  node.hosts = {"b"};
  node.evidence.push_back(Evidence::number("median pair bandwidth of b", 1.2e7, "bytes/s", "screen"));
  rep.suspects.push_back(node);
  rep.bench.push_back({{"collective", "all_reduce"},
                       {"hosts", {"a", "b", "c"}},
                       {"results", {{{"size_bytes", 1 << 20}, {"entry_lateness_s", {0.0001, 0.087, 0}},
                                     {"wait_s", {0.198, 0.186, 0.199}}, {"skew_iteration_s", 0.31}}}}});
  add_straggler_suspects(rep);
  REQUIRE(rep.suspects.size() == 1);
  CHECK(rep.suspects[0].kind == "node");
  REQUIRE(rep.suspects[0].evidence.size() == 3);  // its own + lateness + wait
  CHECK(rep.suspects[0].evidence[1].value == doctest::Approx(0.087));
  CHECK(rep.suspects[0].evidence[1].source == "all_reduce skew probe at 1048576 bytes, rank 1");
}

TEST_CASE("straggler suspects: a sweep that stopped early on the screen's fault is not judged") {
  TriageReport rep;
  rep.hosts = {"a", "b", "c"};
  nlohmann::json bench = {{"collective", "all_reduce"},
                          {"hosts", {"a", "b", "c"}},
                          {"results", {{{"size_bytes", 1 << 20}, {"entry_lateness_s", {0.0001, 0.108, 0}},
                                        {"wait_s", {0.198, 0.186, 0.199}}, {"skew_iteration_s", 0.31}}}}};
  rep.bench.push_back(bench);
  add_straggler_suspects(rep);
  REQUIRE(rep.suspects.size() == 1);  // judged: b is late at its one size
  rep.suspects.clear();
  rep.bench[0]["stopped_early"] = {{"size_bytes", 1 << 20}, {"reason", "the screen names node a slow"}};
  add_straggler_suspects(rep);
  CHECK(rep.suspects.empty());
}
