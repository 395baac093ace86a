#include <doctest/doctest.h>

#include <mutex>

#include <nlohmann/json.hpp>

#include "perf/collective_bench.h"
#include "perf/sim_comm.h"

using namespace fabdiag;
using namespace fabdiag::perf;

namespace {
// Runs the benchmark on every simulated rank and returns rank 0's result.
BenchResult run_on_sim(const SimSpec& spec, const BenchOptions& o, std::vector<std::string>* lines = nullptr) {
  BenchResult out;
  std::mutex mu;
  auto st = run_simulated(spec, [&](Comm& c) -> Status {
    Progress p = lines ? Progress([&](const std::string& l) {
      std::lock_guard lk(mu);
      lines->push_back(l);
    })
                       : no_progress();
    auto r = run_collective_bench(c, o, p);
    if (!r) return r.error();
    if (c.rank() == 0) {
      std::lock_guard lk(mu);
      out = std::move(*r);
    }
    return Ok{};
  });
  REQUIRE_MESSAGE(st, (st ? "" : st.error().to_string()));
  return out;
}
}  // namespace

TEST_CASE("every collective passes its data check on 4 simulated ranks") {
  SimSpec spec;
  spec.ranks = 4;
  for (const auto& name : collective_names()) {
    for (auto dtype : {DataType::kFloat, DataType::kDouble, DataType::kInt32, DataType::kInt64}) {
      CAPTURE(name);
      CAPTURE(to_string(dtype));
      BenchOptions o;
      o.collective = *parse_collective(name);
      o.dtype = dtype;
      o.sweep = {8, 1 << 16, 4};
      o.warmup_iters = 1;
      o.iters = 2;
      o.root = 3;
      BenchResult r = run_on_sim(spec, o);
      CHECK(r.ranks == 4);
      REQUIRE_FALSE(r.results.empty());
      for (const auto& row : r.results) {
        CHECK(row.wrong_elements == 0);
        CHECK(row.count > 0);
        CHECK(row.per_rank_time_s.size() == 4);
        CHECK(row.time_s > 0);
        CHECK(row.busbw_bytes_per_s > 0);
      }
      CHECK(bench_findings(r).empty());
    }
  }
}

TEST_CASE("a corrupted receive buffer is counted per rank and reported as data_corruption") {
  SimSpec spec;
  spec.ranks = 4;
  spec.corrupt_rank = 2;
  spec.corrupt_elements = 3;
  BenchOptions o;
  o.sweep = {1024, 4096, 2};
  o.warmup_iters = 0;
  o.iters = 1;
  BenchResult r = run_on_sim(spec, o);
  REQUIRE(r.results.size() == 3);
  for (const auto& row : r.results) {
    CHECK(row.wrong_elements == 3);
    CHECK(row.per_rank_wrong_elements == std::vector<uint64_t>{0, 0, 3, 0});
  }
  auto findings = bench_findings(r);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].code == "data_corruption");
  CHECK(findings[0].severity == Severity::kCritical);
  CHECK(findings[0].layer == Layer::kCollective);
  CHECK(findings[0].subject == "node03");
  CHECK(findings[0].evidence.size() == 3);
  CHECK(*findings[0].evidence[0].value == 3);
}

TEST_CASE("times: the reported time is the slowest rank's, and busbw follows it") {
  SimSpec spec;
  spec.ranks = 4;
  spec.latency_s = 0;
  spec.collective_bytes_per_s = 1e9;
  spec.rank_time_factor = {1, 1, 3, 1};  // rank 2 straggles
  BenchOptions o;
  o.sweep = {1 << 20, 1 << 20, 2};
  o.warmup_iters = 2;
  o.iters = 4;
  std::vector<std::string> lines;
  BenchResult r = run_on_sim(spec, o, &lines);
  REQUIRE(r.results.size() == 1);
  const auto& row = r.results[0];
  const double one_call_s = (1 << 20) / 1e9;
  CHECK(row.slowest_rank == 2);
  CHECK(row.time_s == doctest::Approx(3 * one_call_s));
  CHECK(row.per_rank_time_s[2] == doctest::Approx(3 * one_call_s));
  // Others wait for the straggler in every call but the last one they leave early.
  CHECK(row.per_rank_time_s[0] == doctest::Approx(3 * one_call_s - 2 * one_call_s / 4));
  CHECK(row.algbw_bytes_per_s == doctest::Approx((1 << 20) / (3 * one_call_s)));
  CHECK(row.busbw_bytes_per_s == doctest::Approx(row.algbw_bytes_per_s * 1.5));
  REQUIRE(lines.size() == 1);  // rank 0 only
  CHECK(lines[0].find("all_reduce at 1048576 bytes") == 0);
  // Every iteration is the straggler's: the statistics are over the slowest rank per iteration,
  // and each rank's slowest iteration names the straggler too.
  CHECK(row.iterations.samples == 4);
  CHECK(row.iterations.p50_s == doctest::Approx(3 * one_call_s));
  CHECK(row.iterations.max_s == doctest::Approx(3 * one_call_s));
  REQUIRE(row.per_rank_iteration_max_s.size() == 4);
  CHECK(row.per_rank_iteration_max_s[2] == doctest::Approx(3 * one_call_s));
  CHECK(row.per_rank_iteration_max_s[2] >= row.per_rank_iteration_max_s[1]);
  // The simulated ranks run on host memory: the devices say so.
  REQUIRE(r.devices.size() == 4);
  CHECK(r.devices[3].device.index == -1);
  CHECK(r.devices[3].device.name == "host memory");
  CHECK(r.devices[3].pid > 0);
}

TEST_CASE("skew probe: the rank that leaves each call late enters the next one late, and the JSON carries it") {
  SimSpec spec;
  spec.ranks = 4;
  spec.latency_s = 0;
  spec.collective_bytes_per_s = 1e9;
  spec.rank_time_factor = {1, 1, 3, 1};  // rank 2 spends 3x as long after each sync point
  BenchOptions o;
  o.sweep = {1 << 20, 1 << 20, 2};
  o.warmup_iters = 1;
  o.iters = 2;
  o.skew_iters = 5;
  BenchResult r = run_on_sim(spec, o);
  REQUIRE(r.results.size() == 1);
  const auto& sk = r.results[0].skew;
  const double t = (1 << 20) / 1e9;
  REQUIRE(sk.entry_lateness_s.size() == 4);
  // Call 0 starts at the barrier; in calls 1..4 rank 2 enters 2t after the others.
  CHECK(sk.entry_lateness_s[2] == doctest::Approx(2 * t));
  CHECK(sk.entry_lateness_s[0] == doctest::Approx(0.0));
  CHECK(sk.wait_s[0] == doctest::Approx(3 * t));  // 2t waiting for rank 2, t in the call
  CHECK(sk.wait_s[2] == doctest::Approx(3 * t));
  CHECK(sk.iteration_s == doctest::Approx(5 * t));
  CHECK(r.results[0].wrong_elements == 0);  // the data check sees the last probe call
  nlohmann::json j;
  to_json(j, r);
  CHECK(j["results"][0]["entry_lateness_s"].size() == 4);
  CHECK(j["results"][0]["wait_s"][0] == doctest::Approx(3 * t));
  CHECK(j["results"][0]["skew_iteration_s"] == doctest::Approx(5 * t));
  o.skew_iters = -1;
  CHECK(validate_bench_options(o).error().code == ErrorCode::kInvalidArgument);
  o.skew_iters = kMaxSkewIters + 1;
  CHECK(!validate_bench_options(o));
}

TEST_CASE("gather, scatter and hypercube: root, rank count and the graph option") {
  SimSpec spec;
  spec.ranks = 4;
  BenchOptions o;
  o.sweep = {4096, 4096, 2};
  o.iters = 2;
  o.warmup_iters = 0;
  o.collective = Collective::kScatter;
  o.root = 1;
  BenchResult r = run_on_sim(spec, o);
  REQUIRE(r.results.size() == 1);
  CHECK(r.results[0].count == 256);  // 4096 B of float over 4 ranks
  CHECK(r.results[0].wrong_elements == 0);
  // hypercube: algbw = (n-1)/n x size / time (HyperCubeGetBw), busbw = algbw.
  o.collective = Collective::kHypercube;
  r = run_on_sim(spec, o);
  REQUIRE(r.results.size() == 1);
  const auto& h = r.results[0];
  CHECK(h.algbw_bytes_per_s == doctest::Approx(0.75 * 4096 / h.time_s));
  CHECK(h.busbw_bytes_per_s == doctest::Approx(h.algbw_bytes_per_s));
  // hypercube on 3 ranks, and -G on a backend without CUDA graphs, are refused.
  SimSpec three;
  three.ranks = 3;
  auto st = run_simulated(three, [&](Comm& c) -> Status {
    auto res = run_collective_bench(c, o, no_progress());
    CHECK_FALSE(res);
    if (!res) CHECK(res.error().message.find("power-of-two rank count") != std::string::npos);
    return Ok{};
  });
  CHECK(st);
  BenchOptions g;
  g.sweep = {1024, 1024, 2};
  g.graph_launches = 2;
  auto gst = run_simulated(spec, [&](Comm& c) -> Status {
    auto res = run_collective_bench(c, g, no_progress());
    CHECK_FALSE(res);
    if (!res) CHECK(res.error().code == ErrorCode::kUnsupported);
    return Ok{};
  });
  CHECK(gst);
}

TEST_CASE("sizes below one element per rank are skipped") {
  SimSpec spec;
  spec.ranks = 4;
  BenchOptions o;
  o.collective = Collective::kAllGather;
  o.sweep = {8, 64, 2};  // floats: 8 B = 2 elements < 4 ranks
  o.warmup_iters = 0;
  o.iters = 1;
  BenchResult r = run_on_sim(spec, o);
  REQUIRE(r.results.size() == 3);
  CHECK(r.results[0].size_bytes == 16);
  CHECK(r.results[0].count == 1);
}

TEST_CASE("option errors") {
  BenchOptions o;
  o.iters = 0;
  CHECK_FALSE(validate_bench_options(o));
  o = {};
  o.warmup_iters = -1;
  CHECK_FALSE(validate_bench_options(o));
  o = {};
  o.sweep = {64, 8, 2};
  CHECK_FALSE(validate_bench_options(o));
  // A max size beyond 1 TiB is a usage error (near 2^64 the buffer sizes overflowed: exit 70).
  o = {};
  o.sweep = {~0ull, ~0ull, 2};
  auto big = validate_bench_options(o);
  REQUIRE_FALSE(big);
  CHECK(big.error().code == ErrorCode::kInvalidArgument);
  CHECK(big.error().message ==
        "max size (-e) 18446744073709551615 bytes is above the largest benchmark size 1T (the buffers live in host memory)");
  o.sweep = {8, 1ull << 40, 2};
  CHECK(validate_bench_options(o));
  o = {};
  o.dtype = DataType::kUint8;
  auto e = validate_bench_options(o);
  REQUIRE_FALSE(e);
  CHECK(e.error().message.find("ompi#8045") != std::string::npos);
  o.collective = Collective::kAllGather;
  CHECK(validate_bench_options(o));
  // root beyond the rank count is found when the run starts
  SimSpec spec;
  spec.ranks = 2;
  BenchOptions rooted;
  rooted.collective = Collective::kBroadcast;
  rooted.root = 5;
  auto st = run_simulated(spec, [&](Comm& c) -> Status {
    auto r = run_collective_bench(c, rooted, no_progress());
    CHECK_FALSE(r);
    if (!r) CHECK(r.error().code == ErrorCode::kInvalidArgument);
    return Ok{};
  });
  CHECK(st);
}

TEST_CASE("JSON follows the fabdiag.bench/1 data contract exactly") {
  SimSpec spec;
  spec.ranks = 2;
  BenchOptions o;
  o.sweep = {1024, 2048, 2};
  o.warmup_iters = 1;
  o.iters = 3;
  BenchResult r = run_on_sim(spec, o);
  nlohmann::json j;
  to_json(j, r);
  std::vector<std::string> keys;
  for (auto& [k, v] : j.items()) keys.push_back(k);
  CHECK(keys == std::vector<std::string>{"algbw_factor", "backend", "busbw_factor", "collective", "devices",
                                         "dtype", "graph_launches", "hosts", "iters", "ranks", "results", "root",
                                         "warmup"});
  CHECK(j["collective"] == "all_reduce");
  CHECK(j["backend"] == "mpi");
  CHECK(j["dtype"] == "float");
  CHECK(j["ranks"] == 2);
  CHECK(j["hosts"] == nlohmann::json({"node01", "node02"}));
  CHECK(j["warmup"] == 1);
  CHECK(j["iters"] == 3);
  CHECK(j["busbw_factor"] == "2(n-1)/n");
  REQUIRE(j["results"].size() == 2);
  const auto& row = j["results"][1];
  std::vector<std::string> row_keys;
  for (auto& [k, v] : row.items()) row_keys.push_back(k);
  CHECK(row_keys == std::vector<std::string>{"algbw_bytes_per_s", "busbw_bytes_per_s", "count",
                                             "iteration_stats", "per_rank_iteration_max_s", "per_rank_time_s",
                                             "size_bytes", "time_s", "wrong_elements"});
  CHECK(row["iteration_stats"]["samples"] == 3);
  CHECK(row["per_rank_iteration_max_s"].size() == 2);
  CHECK(j["devices"].size() == 2);
  CHECK(j["devices"][1]["rank"] == 1);
  CHECK(j["algbw_factor"] == "1");
  CHECK(j["graph_launches"] == 0);
  CHECK(row["size_bytes"] == 2048);
  CHECK(row["count"] == 512);
  CHECK(row["wrong_elements"] == 0);
  CHECK(row["per_rank_time_s"].size() == 2);
}

TEST_CASE("the step sink sees every finished size and the sizes left, before each size and at the end") {
  SimSpec spec;
  spec.ranks = 2;
  BenchOptions o;
  o.sweep = {1024, 8192, 2};
  o.warmup_iters = 0;
  o.iters = 1;
  std::vector<std::pair<size_t, std::vector<uint64_t>>> steps;  // (rows so far, sizes left) on rank 0
  std::mutex mu;
  auto st = run_simulated(spec, [&](Comm& c) -> Status {
    BenchStepSink sink;
    if (c.rank() == 0)
      sink = [&](const BenchResult& so_far, const std::vector<uint64_t>& left) {
        std::lock_guard lk(mu);
        CHECK(so_far.ranks == 2);
        for (size_t k = 0; k < so_far.results.size(); ++k) CHECK(so_far.results[k].busbw_bytes_per_s > 0);
        steps.emplace_back(so_far.results.size(), left);
      };
    auto r = run_collective_bench(c, o, no_progress(), sink);
    return r ? Status(Ok{}) : Status(r.error());
  });
  REQUIRE(st.ok());
  using Left = std::vector<uint64_t>;
  REQUIRE(steps.size() == 5);
  CHECK(steps[0] == std::make_pair(size_t{0}, Left{1024, 2048, 4096, 8192}));
  CHECK(steps[1] == std::make_pair(size_t{1}, Left{2048, 4096, 8192}));
  CHECK(steps[3] == std::make_pair(size_t{3}, Left{8192}));
  CHECK(steps[4] == std::make_pair(size_t{4}, Left{}));
}

TEST_CASE("a sweep with a stop limit ends at the first size from min_bytes, keeps its rows and says why") {
  BenchOptions o;
  o.collective = Collective::kAllReduce;
  o.sweep = {1u << 10, 64u << 10, 2};  // 1K, 2K, ... 64K: 7 sizes
  o.warmup_iters = 0;
  o.iters = 1;
  o.skew_iters = 2;
  o.stop = SweepStop{1e30, 4u << 10, "the screen names node node03 slow"};  // every size is "below"
  std::vector<std::string> lines;
  SimSpec spec;
  spec.ranks = 4;
  const BenchResult r = run_on_sim(spec, o, &lines);
  REQUIRE(r.results.size() == 3);  // 1K, 2K, then 4K stops it
  CHECK(r.results.back().size_bytes == (4u << 10));
  CHECK_FALSE(r.results.back().skew.entry_lateness_s.empty());  // its probe ran before the stop
  REQUIRE(r.stopped_early);
  CHECK(r.stopped_early->size_bytes == (4u << 10));
  CHECK(r.stopped_early->busbw_bytes_per_s == r.results.back().busbw_bytes_per_s);
  CHECK(r.stopped_early->threshold_bytes_per_s == 1e30);
  CHECK(r.stopped_early->sizes_not_run == std::vector<uint64_t>{8u << 10, 16u << 10, 32u << 10, 64u << 10});
  nlohmann::json j = r;
  CHECK(j["results"].size() == 3);
  CHECK(j["stopped_early"]["size_bytes"] == (4u << 10));
  CHECK(j["stopped_early"]["sizes_not_run"].size() == 4);
  CHECK(j["stopped_early"]["reason"] == "the screen names node node03 slow");
  REQUIRE_FALSE(lines.empty());
  CHECK(lines.back().find("stopped early") != std::string::npos);
  CHECK(lines.back().find("4 larger size(s) not run: the screen names node node03 slow") != std::string::npos);
}

TEST_CASE("a sweep whose sizes stay above the limit runs in full and has no stopped_early") {
  BenchOptions o;
  o.sweep = {1u << 10, 8u << 10, 2};
  o.warmup_iters = 0;
  o.iters = 1;
  o.stop = SweepStop{1e-30, 0, "never"};
  std::vector<std::string> lines;
  SimSpec spec;
  spec.ranks = 4;
  const BenchResult r = run_on_sim(spec, o, &lines);
  CHECK(r.results.size() == 4);
  CHECK_FALSE(r.stopped_early);
  nlohmann::json j = r;
  CHECK_FALSE(j.contains("stopped_early"));
}
