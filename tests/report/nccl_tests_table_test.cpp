#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "core/run_cut.h"
#include "report/nccl_tests_table.h"
#include "report/render.h"

using namespace fabdiag;

namespace {
Envelope bench_envelope() {
  Envelope env;
  env.schema = "fabdiag.bench/1";
  env.params = {{"min_bytes", 8}, {"max_bytes", 1048576}, {"step_factor", 2}, {"gpus", 2}};
  env.data = nlohmann::json::parse(R"({
    "collective": "all_reduce", "dtype": "float", "ranks": 2, "hosts": ["node01", "node01"],
    "warmup": 5, "iters": 20, "root": 0, "graph_launches": 0,
    "devices": [{"rank": 0, "pid": 4242, "device": 0, "bus_id": "0000:0f:00", "name": "NVIDIA H200"},
                {"rank": 1, "pid": 4242, "device": 1, "bus_id": "0000:10:00", "name": "NVIDIA H200"}],
    "results": [
      {"size_bytes": 8, "count": 2, "time_s": 9.1e-6, "algbw_bytes_per_s": 879120.9, "busbw_bytes_per_s": 879120.9, "wrong_elements": 0},
      {"size_bytes": 1048576, "count": 262144, "time_s": 0.0123456, "algbw_bytes_per_s": 84934656000.0, "busbw_bytes_per_s": 84934656000.0, "wrong_elements": 3}
    ]})");
  return env;
}
}  // namespace

TEST_CASE("nccl-tests table: preamble, device lines and columns as nccl-tests prints them") {
  const std::string t = render_nccl_tests(bench_envelope());

  CHECK(t.find("# Collective test starting: all_reduce_perf\n") == 0);
  CHECK(t.find("# nThread 1 nGpus 2 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 "
               "agg iters: 1 validation: 1 graph: 0 unalign: 0\n") != std::string::npos);
  CHECK(t.find("#  Rank  1 Group  0 Pid   4242 on     node01 device  1 [0000:10:00] NVIDIA H200\n") !=
        std::string::npos);
  CHECK(t.find("#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   "
               "algbw   busbw  #wrong\n") != std::string::npos);
  // 8 B: time 9.10 us, algbw 0.00 GB/s; in-place not measured.
  CHECK(t.find("\n           8             2     float     sum      -1     9.10    0.00    0.00       0      N/A     N/A"
               "     N/A     N/A\n") != std::string::npos);
  // 12345.6 us: 5 integer digits in 7 characters, one decimal (getFloatStr).
  CHECK(t.find("     1048576        262144     float     sum      -1  12345.6   84.93   84.93       3") != std::string::npos);
  CHECK(t.find("# Out of bounds values : 1 FAILED\n") != std::string::npos);
  CHECK(t.find("# Avg bus bandwidth    : 42.4678 \n") != std::string::npos);
  CHECK(t.find("# Collective test concluded: all_reduce_perf\n") != std::string::npos);
}

TEST_CASE("nccl-tests table: the in-place half of each row, #wrong N/A when not checked, footer over both halves") {
  Envelope env = bench_envelope();
  env.data["results"][0]["in_place"] = {{"time_s", 8.95e-6}, {"algbw_bytes_per_s", 893854.7},
                                        {"busbw_bytes_per_s", 893854.7}, {"wrong_elements", 2}};
  env.data["results"][1]["in_place"] = {{"time_s", 0.0120001}, {"algbw_bytes_per_s", 87380000000.0},
                                        {"busbw_bytes_per_s", 87380000000.0}, {"wrong_elements", nullptr}};
  const std::string t = render_nccl_tests(env);
  CHECK(t.find("\n           8             2     float     sum      -1     9.10    0.00    0.00       0     8.95    0.00"
               "    0.00       2\n") != std::string::npos);
  CHECK(t.find("  12345.6   84.93   84.93       3  12000.1   87.38   87.38     N/A\n") != std::string::npos);
  // nccl-tests counts a failed check per half (8 B in place, 1 MiB out of place) and averages
  // busbw over the four halves: (0.000879 + 84.93 + 0.000894 + 87.38) / 4 GB/s.
  CHECK(t.find("# Out of bounds values : 2 FAILED\n") != std::string::npos);
  CHECK(t.find("# Avg bus bandwidth    : 43.0791 \n") != std::string::npos);
}

TEST_CASE("nccl-tests table: rooted collectives print their root, cut runs and findings are comments") {
  Envelope env = bench_envelope();
  env.data["collective"] = "gather";
  env.data["root"] = 1;
  mark_cut(env, ErrorCode::kTimeout, Cut{"deadline of 5 s (--timeout) passed", "size 2M", ""});
  Finding f;
  f.severity = Severity::kCritical;
  f.code = "data_corruption";
  f.message = "rank 1 (node01) received 3 wrong elements";
  env.findings.push_back(f);
  const std::string t = render_nccl_tests(env);
  CHECK(t.find("     float    none       1") != std::string::npos);
  CHECK(t.find("# fabdiag: PARTIAL: ") != std::string::npos);
  CHECK(t.find("# fabdiag: critical data_corruption: rank 1 (node01) received 3 wrong elements\n") != std::string::npos);
  // render() picks this renderer for bench envelopes only.
  CHECK(render(Format::kNcclTests, env, Document{}) == t);
  Envelope other = env;
  other.schema = "fabdiag.topo/1";
  CHECK(render(Format::kNcclTests, other, Document{}).find("# Collective test") == std::string::npos);
  CHECK(parse_format("nccl-tests") == Format::kNcclTests);
}

TEST_CASE("nccl-tests float cells: 2, 1 or 0 decimals, then exponent form") {
  CHECK(nccl_tests_float(9.1, 7) == "   9.10");
  CHECK(nccl_tests_float(12345.6, 7) == "12345.6");
  CHECK(nccl_tests_float(123456.7, 7) == " 123457");
  CHECK(nccl_tests_float(1234.56, 7) == "1234.56");
  CHECK(nccl_tests_float(123456.7, 6) == "123457");
  CHECK(nccl_tests_float(12345678.0, 6) == " 1e+07");
  CHECK(nccl_tests_float(0, 6) == "  0.00");
}

TEST_CASE("nccl-tests table: a run cut before its first size prints the run's iters (params) and its backend") {
  Envelope env = bench_envelope();
  env.params["warmup"] = 5;
  env.params["iters"] = 20;
  env.data["warmup"] = 0;  // no size finished: data has no iterations yet
  env.data["iters"] = 0;
  env.data["backend"] = "mpi";
  env.data["results"] = nlohmann::json::array();
  mark_cut(env, ErrorCode::kInterrupted, Cut{"interrupted by SIGINT", "start-up", ""});
  const std::string t = render_nccl_tests(env);
  CHECK(t.find("warmup iters: 5 iters: 20 agg iters: 1") != std::string::npos);
  CHECK(t.find("\n# fabdiag: backend mpi\n#\n# Using devices\n") != std::string::npos);
  CHECK(t.find("# fabdiag: PARTIAL: ") != std::string::npos);
  env.data.erase("backend");
  CHECK(render_nccl_tests(env).find("\n# fabdiag: backend nccl\n") != std::string::npos);
}
