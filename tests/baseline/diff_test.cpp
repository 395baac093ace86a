#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "baseline/diff.h"
#include "baseline/measurements.h"

using namespace fabdiag;
using namespace fabdiag::baseline;
using doctest::Approx;
using nlohmann::json;

namespace {

// A fabdiag.bench/1 envelope with one all_reduce table: {size_bytes, busbw_bytes_per_s}...
Envelope bench(std::vector<std::pair<uint64_t, double>> points, const std::string& collective = "all_reduce",
               int ranks = 8) {
  Envelope e;
  e.schema = "fabdiag.bench/1";
  json results = json::array();
  for (auto [size, busbw] : points)
    results.push_back({{"size_bytes", size}, {"count", size / 4}, {"time_s", 0.001}, {"algbw_bytes_per_s", busbw / 2},
                       {"busbw_bytes_per_s", busbw}, {"wrong_elements", 0}, {"per_rank_time_s", json::array()}});
  e.data = {{"collective", collective}, {"backend", "mpi"}, {"dtype", "float"}, {"ranks", ranks},
            {"hosts", json::array()},   {"warmup", 5},      {"iters", 20},      {"busbw_factor", "2(n-1)/n"},
            {"results", results}};
  return e;
}

// A fabdiag.pairwise/1 envelope; `m` is indexed like `hosts`.
Envelope pairwise(std::vector<std::string> hosts, json m) {
  Envelope e;
  e.schema = "fabdiag.pairwise/1";
  e.data = {{"hosts", hosts}, {"size_bytes", 1 << 20}, {"iters", 10}, {"rounds", json::array()},
            {"matrix_bytes_per_s", m}, {"node_median_bytes_per_s", json::object()}, {"fleet_median_bytes_per_s", 0},
            {"outlier_nodes", json::array()}, {"outlier_links", json::array()}};
  return e;
}

Measurements measure(const Envelope& e) {
  auto m = extract_measurements(e, "test");
  REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.error().to_string()));
  return *m;
}

BaselineDiff run(const Envelope& base, const Envelope& cur, double tol = 0.10) {
  DiffOptions o;
  o.tolerance = tol;
  o.baseline_label = "nightly";
  o.current_label = "now.json";
  auto d = diff_measurements(measure(base), measure(cur), o);
  REQUIRE_MESSAGE(d.ok(), (d.ok() ? "" : d.error().to_string()));
  return *d;
}

const Finding* finding(const BaselineDiff& d, const std::string& code, const std::string& subject) {
  for (const auto& f : d.findings)
    if (f.code == code && f.subject == subject) return &f;
  return nullptr;
}

}  // namespace

TEST_CASE("collectives against one run: ok within tolerance, warn beyond it (never error), improvement info") {
  auto base = bench({{1024, 10e9}, {2048, 10e9}, {4096, 10e9}, {8192, 10e9}, {16384, 10e9}});
  auto cur = bench({{1024, 9.5e9}, {2048, 8.5e9}, {4096, 7.5e9}, {8192, 12e9}, {16384, 9.0e9}});
  auto d = run(base, cur);
  REQUIRE(d.rows.size() == 5);
  CHECK(d.rows[0].status == DiffStatus::kOk);  // -5 %
  CHECK(*d.rows[0].ratio == Approx(0.95));
  CHECK(d.rows[0].runs == 1);
  CHECK_FALSE(d.rows[0].spread_bytes_per_s.has_value());
  CHECK(d.rows[1].status == DiffStatus::kRegression);  // -15 %: warn
  CHECK(*d.rows[1].severity == Severity::kWarn);
  CHECK(d.rows[2].status == DiffStatus::kRegression);  // -25 %: warn, one run knows no noise
  CHECK(*d.rows[2].severity == Severity::kWarn);
  CHECK(d.rows[3].status == DiffStatus::kImprovement);  // +20 %
  CHECK(d.rows[4].status == DiffStatus::kOk);           // exactly -10 %: not below (1 - tol)
  CHECK(d.gaps.empty());

  // One finding per collective: the sizes that regressed are its evidence, the worst named.
  const Finding* warn = finding(d, "busbw_regression", "all_reduce");
  REQUIRE(warn != nullptr);
  CHECK(warn->severity == Severity::kWarn);
  CHECK(warn->layer == Layer::kCollective);
  REQUIRE(warn->evidence.size() == 5);
  CHECK(*warn->evidence[0].value == 10e9);  // reference at the worst size, 4096 B
  CHECK(warn->evidence[0].unit == "bytes/s");
  CHECK(*warn->evidence[1].value == 7.5e9);
  CHECK(warn->evidence[2].metric == "ratio all_reduce 2048 B");
  CHECK(*warn->evidence[2].value == Approx(0.85));
  CHECK(*warn->evidence[2].threshold == Approx(0.90));
  CHECK(*warn->evidence[3].value == Approx(0.75));
  CHECK(*warn->evidence[4].value == Approx(0.10));
  CHECK(warn->message.find("at 2 of 5 sizes") != std::string::npos);
  CHECK(warn->message.find("at 4096 B 75.0%") != std::string::npos);
  CHECK(warn->message.find("'nightly'") != std::string::npos);
  const Finding* up = finding(d, "busbw_improvement", "all_reduce");
  REQUIRE(up != nullptr);
  CHECK(up->severity == Severity::kInfo);
  CHECK(d.findings.size() == 2);

  // A wider tolerance turns the -15 % into ok.
  auto wide = run(base, cur, 0.2);
  CHECK(wide.rows[1].status == DiffStatus::kOk);
  CHECK(*wide.rows[2].severity == Severity::kWarn);
}

TEST_CASE("collectives: sizes on one side only are missing rows and gaps, not regressions") {
  auto base = bench({{1024, 10e9}, {2048, 10e9}});
  auto cur = bench({{2048, 10e9}, {4096, 10e9}});
  auto d = run(base, cur);
  REQUIRE(d.rows.size() == 3);
  CHECK(d.rows[0].size_bytes == 1024);
  CHECK(d.rows[0].status == DiffStatus::kMissing);
  CHECK(d.rows[0].missing_in == "current");
  CHECK_FALSE(d.rows[0].ratio.has_value());
  CHECK(d.rows[1].status == DiffStatus::kOk);
  CHECK(d.rows[2].status == DiffStatus::kMissing);
  CHECK(d.rows[2].missing_in == "baseline");
  CHECK(d.findings.empty());
  REQUIRE(d.gaps.size() == 2);
  CHECK(d.gaps[0].message.find("1024 B") != std::string::npos);
  CHECK(d.gaps[0].source == "baseline nightly");
  CHECK(d.gaps[1].source == "now.json");
  CHECK(d.count(DiffStatus::kMissing) == 2);
}

TEST_CASE("collectives: differences within the print resolution are rounding, zero baseline has no ratio") {
  auto base = bench({{8, 0.0}, {16, 0.01e9}, {32, 0.03e9}});
  auto cur = bench({{8, 0.01e9}, {16, 0.02e9}, {32, 0.01e9}});
  base.data["busbw_resolution_bytes_per_s"] = 1e7;
  auto d = run(base, cur);
  REQUIRE(d.rows.size() == 3);
  CHECK(d.rows[0].status == DiffStatus::kOk);
  CHECK_FALSE(d.rows[0].ratio.has_value());
  CHECK(d.rows[1].status == DiffStatus::kOk);  // 0.01 -> 0.02 GB/s: one printed digit
  CHECK(*d.rows[1].ratio == Approx(2.0));
  CHECK(d.rows[2].status == DiffStatus::kRegression);  // 0.03 -> 0.01: beyond rounding
}

TEST_CASE("collectives: different rank counts are noted, not hidden") {
  auto d = run(bench({{1024, 10e9}}, "all_reduce", 64), bench({{1024, 10e9}}, "all_reduce", 16));
  const Finding* f = finding(d, "baseline_params_differ", "all_reduce");
  REQUIRE(f != nullptr);
  CHECK(f->severity == Severity::kInfo);
  CHECK(f->message.find("ranks 64 vs 16") != std::string::npos);
}

TEST_CASE("pairs are matched by host name whatever the order, missing hosts are gaps") {
  // Baseline: a, b, c (symmetric). Current: c, a, d in another order; b is gone, d is new.
  json bm = {{nullptr, 10e9, 10e9}, {10e9, nullptr, 10e9}, {10e9, 10e9, nullptr}};
  json cm = {{nullptr, 6e9, 10e9}, {6e9, nullptr, 10e9}, {10e9, 10e9, nullptr}};  // c<->a slow
  auto d = run(pairwise({"a", "b", "c"}, bm), pairwise({"c", "a", "d"}, cm));
  CHECK(d.hosts_only_in_baseline == std::vector<std::string>{"b"});
  CHECK(d.hosts_only_in_current == std::vector<std::string>{"d"});
  REQUIRE(d.rows.size() == 1);  // only a<->c is on both sides
  const auto& r = d.rows[0];
  CHECK(r.kind == DiffRow::Kind::kPair);
  CHECK(r.host_a == "a");
  CHECK(r.host_b == "c");
  CHECK_FALSE(r.directed);
  CHECK(*r.ratio == Approx(0.6));
  CHECK(r.status == DiffStatus::kRegression);
  CHECK(*r.severity == Severity::kWarn);  // -40 % against one run: warn
  const Finding* f = finding(d, "pair_bandwidth_regression", "a<->c");
  REQUIRE(f != nullptr);
  CHECK(f->layer == Layer::kLocalization);
  CHECK(*f->evidence[0].value == 10e9);
  CHECK(*f->evidence[1].value == 6e9);
  REQUIRE(d.gaps.size() == 2);
  CHECK(d.gaps[0].message.find("host b") != std::string::npos);
  CHECK(d.gaps[1].message.find("host d") != std::string::npos);
  CHECK(d.findings.size() == 1);  // the missing hosts are not regressions
}

TEST_CASE("pairs: upper-triangle matrices, unmeasured pairs and directed matrices") {
  json upper = {{nullptr, 10e9, 10e9}, {nullptr, nullptr, 10e9}, {nullptr, nullptr, nullptr}};
  json lower_partial = {{nullptr, nullptr, nullptr}, {9.5e9, nullptr, nullptr}, {nullptr, 10e9, nullptr}};
  auto d = run(pairwise({"x", "y", "z"}, upper), pairwise({"x", "y", "z"}, lower_partial));
  REQUIRE(d.rows.size() == 3);
  CHECK(d.rows[0].subject() == "x<->y");
  CHECK(d.rows[0].status == DiffStatus::kOk);
  CHECK(d.rows[1].subject() == "x<->z");
  CHECK(d.rows[1].status == DiffStatus::kMissing);
  CHECK(d.rows[1].missing_in == "current");
  CHECK(d.rows[2].subject() == "y<->z");
  REQUIRE(d.gaps.size() == 1);
  CHECK(d.gaps[0].message.find("x<->z") != std::string::npos);

  // Direction matters once a pair differs by direction: x->y is slow, y->x is not.
  json dm = {{nullptr, 5e9}, {10e9, nullptr}};
  json sym = {{nullptr, 10e9}, {10e9, nullptr}};
  auto dd = run(pairwise({"x", "y"}, sym), pairwise({"x", "y"}, dm));
  REQUIRE(dd.rows.size() == 2);
  CHECK(dd.rows[0].subject() == "x->y");
  CHECK(dd.rows[0].status == DiffStatus::kRegression);
  CHECK(dd.rows[1].subject() == "y->x");
  CHECK(dd.rows[1].status == DiffStatus::kOk);
}

TEST_CASE("triage documents: bench and pairwise parts are both compared") {
  Envelope t;
  t.schema = "fabdiag.triage/1";
  t.data = {{"bench", json::array({bench({{1024, 10e9}}).data})},
            {"pairwise", pairwise({"a", "b"}, json{{nullptr, 10e9}, {10e9, nullptr}}).data}};
  Envelope cur = t;
  cur.data["bench"][0]["results"][0]["busbw_bytes_per_s"] = 5e9;
  auto d = run(t, cur);
  REQUIRE(d.rows.size() == 2);
  CHECK(d.rows[0].kind == DiffRow::Kind::kCollective);
  CHECK(d.rows[0].status == DiffStatus::kRegression);
  CHECK(d.rows[1].kind == DiffRow::Kind::kPair);
  CHECK(d.rows[1].status == DiffStatus::kOk);
  // A bench result against the triage baseline compares the bench part and says the
  // pairwise matrix was not compared.
  auto partial = run(t, bench({{1024, 10e9}}));
  CHECK(partial.rows.size() == 1);
  REQUIRE(partial.gaps.size() == 1);
  CHECK(partial.gaps[0].message.find("pairwise") != std::string::npos);
}

TEST_CASE("nothing in common, bad tolerances and unknown schemas are refused") {
  auto nothing = diff_measurements(measure(bench({{1024, 1e9}})),
                                   measure(pairwise({"a", "b"}, json{{nullptr, 1e9}, {1e9, nullptr}})), {});
  REQUIRE_FALSE(nothing.ok());
  CHECK(nothing.error().code == ErrorCode::kInvalidArgument);
  CHECK_FALSE(validate_tolerance(0).ok());
  CHECK_FALSE(validate_tolerance(0.5).ok());
  CHECK_FALSE(validate_tolerance(-0.1).ok());
  CHECK(validate_tolerance(0.1).ok());
  DiffOptions o;
  o.tolerance = 2;
  CHECK_FALSE(diff_measurements(measure(bench({{1, 1e9}})), measure(bench({{1, 1e9}})), o).ok());
  Envelope topo;
  topo.schema = "fabdiag.topo/1";
  auto m = extract_measurements(topo, "topo.json");
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().code == ErrorCode::kInvalidArgument);
  CHECK(m.error().message.find("fabdiag.topo/1") != std::string::npos);
  Envelope dup = pairwise({"a", "a"}, json{{nullptr, 1e9}, {1e9, nullptr}});
  CHECK_FALSE(extract_measurements(dup, "dup").ok());
}

TEST_CASE("to_json: the fabdiag.baseline_diff/1 rows contract") {
  auto d = run(bench({{1024, 10e9}, {2048, 10e9}}), bench({{1024, 7e9}}));
  json j = d;
  CHECK(j["baseline"] == "nightly");
  CHECK(j["tolerance"].get<double>() == Approx(0.10));
  CHECK(j["summary"]["regression"] == 1);
  CHECK(j["summary"]["missing"] == 1);
  REQUIRE(j["rows"].size() == 2);
  CHECK(j["rows"][0]["kind"] == "collective");
  CHECK(j["rows"][0]["collective"] == "all_reduce");
  CHECK(j["rows"][0]["size_bytes"] == 1024);
  CHECK(j["rows"][0]["baseline_bytes_per_s"].get<double>() == 10e9);
  CHECK(j["rows"][0]["current_bytes_per_s"].get<double>() == 7e9);
  CHECK(j["rows"][0]["ratio"].get<double>() == Approx(0.7));
  CHECK(j["rows"][0]["status"] == "regression");
  CHECK(j["rows"][0]["severity"] == "warn");
  CHECK(j["rows"][0]["runs"] == 1);
  CHECK(j["rows"][0]["spread_bytes_per_s"].is_null());
  CHECK(j["rows"][0]["within_noise"] == false);
  CHECK(j["last_runs"] == 7);
  CHECK(j["spread_k"].get<double>() == 3.5);
  CHECK(j["history_runs"] == 1);
  CHECK(j["rows"][1]["status"] == "missing");
  CHECK(j["rows"][1]["current_bytes_per_s"].is_null());
  CHECK(j["rows"][1]["ratio"].is_null());
  CHECK(j["rows"][1]["missing_in"] == "current");
}
