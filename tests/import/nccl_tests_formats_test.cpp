// nccl-tests in its newer forms: the 2.17+ header (case 043), JSON from -J and from PR #318
// (case 044), per-iteration columns, mpirun tags inside rows, rows without a header.
#include <doctest/doctest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/text.h"
#include "import/nccl_tests.h"

using namespace fabdiag;
using namespace fabdiag::baseline;
using doctest::Approx;

namespace {

std::string fixture(const std::string& rel) {
  auto text = read_file(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/" + rel);
  REQUIRE_MESSAGE(text.ok(), rel);
  return *text;
}

const std::string k043 = "cases/043-nccltests-allgather-new-format-version-header-dgx-spark-below-link.input.txt";
const std::string k044 = "cases/044-nccltests-alltoall-json-output-p2p-disabled-openib-noise.input.txt";

std::vector<Finding> all_findings(const NcclTestsImport& imp) {
  auto f = nccl_tests_findings(imp, "in");
  for (auto& x : nccl_tests_link_findings(imp, "in")) f.push_back(x);
  for (auto& x : nccl_tests_setting_findings(imp, "in")) f.push_back(x);
  return f;
}

bool warn_or_worse_mentions(const std::vector<Finding>& fs, const std::string& word) {
  for (const auto& f : fs) {
    if (f.severity < Severity::kWarn) continue;
    std::string all = f.subject + " " + f.message + " " + f.action;
    for (const auto& e : f.evidence) all += " " + e.metric + " " + e.value_text;
    std::transform(all.begin(), all.end(), all.begin(), [](unsigned char c) { return std::tolower(c); });
    if (all.find(word) != std::string::npos) return true;
  }
  return false;
}

// Case 043's header over other GB10 rows: `busbw` the out-of-place and in-place GB/s.
std::string gb10_run(const std::string& oop_bus, const std::string& ip_bus) {
  return "# nccl-tests version 2.17.6 nccl-headers=22803 nccl-library=22803\n"
         "# Collective test starting: all_gather_perf\n"
         "# nThread 1 nGpus 1 minBytes 17179869184 maxBytes 17179869184 step: 2(factor) warmup iters: 1 iters: 20 "
         "agg iters: 1 validation: 1 graph: 0\n"
         "# Using devices\n"
         "#  Rank  0 Group  0 Pid 1935208 on     node01 device  0 [000f:01:00] NVIDIA GB10\n"
         "#  Rank  1 Group  0 Pid 1278829 on     node02 device  0 [000f:01:00] NVIDIA GB10\n"
         "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   "
         "busbw  #wrong\n"
         " 17179869184    2147483648     float    none      -1   453650   37.87   " + oop_bus +
         "       0   410049   41.90   " + ip_bus + "       0\n"
         "# Out of bounds values : 0 OK\n"
         "# Avg bus bandwidth    : 19.945\n"
         "#\n"
         "# Collective test concluded: all_gather_perf\n";
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

}  // namespace

TEST_CASE("case 043: nccl-tests 2.17.6 header, all_gather 16 GiB on two GB10 hosts, below the 25 GB/s link") {
  auto imp = parse_nccl_tests(fixture(k043), "043");
  REQUIRE(imp.ok());
  REQUIRE(imp->tables.size() == 1);
  const auto& t = imp->tables[0];
  CHECK(t.program == "all_gather_perf");  // from "# Collective test starting:"
  CHECK(t.collective == "all_gather");
  CHECK(t.tests_version == "2.17.6");
  CHECK(t.nccl_headers_code == 22803);
  CHECK(t.nccl_library_code == 22803);
  CHECK(t.nccl_version == "2.28.3");
  CHECK(t.warmup_iters == 1);
  CHECK(t.iters == 20);
  REQUIRE(t.ranks.size() == 2);
  CHECK(t.ranks[0].host == "node01");  // right-aligned host names
  CHECK(t.ranks[1].host == "node02");
  CHECK(t.ranks[0].bus_id == "000f:01:00");
  CHECK(t.ranks[1].bus_id == "000f:01:00");
  CHECK(t.ranks[0].gpu == "NVIDIA GB10");
  CHECK(t.ranks[1].rank == 1);
  REQUIRE(t.rows.size() == 1);
  const auto& r = t.rows[0];
  CHECK(r.size_bytes == 17179869184ULL);
  CHECK(r.count == 2147483648ULL);
  CHECK(r.out_of_place.algbw_bytes_per_s == Approx(37.87e9));
  CHECK(r.out_of_place.busbw_bytes_per_s == Approx(18.94e9));
  REQUIRE(r.in_place.has_value());
  CHECK(r.in_place->algbw_bytes_per_s == Approx(41.90e9));
  CHECK(r.in_place->busbw_bytes_per_s == Approx(20.95e9));
  CHECK(r.out_of_place.wrong_elements == 0u);
  CHECK(r.in_place->wrong_elements == 0u);
  CHECK(t.out_of_bounds_values == 0u);
  // The cut "# Avg" line: missing data, not zero.
  CHECK(t.summary_cut);
  CHECK_FALSE(t.avg_busbw_bytes_per_s.has_value());
  REQUIRE(imp->gaps.size() == 1);
  CHECK(imp->gaps[0].source == "043:14");
  CHECK(imp->gaps[0].message.find("NOT READ") != std::string::npos);

  auto data = to_bench_data(t);
  CHECK(data["busbw_factor"] == "(n-1)/n");
  CHECK(data["nccl_tests"]["busbw_factor_observed"].get<double>() == Approx(0.5).epsilon(0.001));
  CHECK(data["nccl_tests"]["ranks_implied"] == 2);
  CHECK(data["nccl_tests"]["devices"][0]["bus_id"] == "000f:01:00");
  CHECK(nccl_tests_hosts(*imp) == std::vector<std::string>{"node01", "node02"});

  auto fs = all_findings(*imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "nccl_tests_busbw_below_link");
  CHECK(fs[0].severity == Severity::kWarn);
  CHECK(fs[0].message.find("18.94 GB/s") != std::string::npos);
  CHECK(fs[0].message.find("20.95 GB/s") != std::string::npos);
  CHECK(fs[0].message.find("(76%)") != std::string::npos);
  CHECK(fs[0].message.find("(84%)") != std::string::npos);
  CHECK(fs[0].message.find("25.00 GB/s") != std::string::npos);
  CHECK(fs[0].action.find("MTU") != std::string::npos);
  CHECK(fs[0].action.find("NCCL_IB_HCA") != std::string::npos);
  REQUIRE(fs[0].evidence.size() == 2);
  CHECK(*fs[0].evidence[0].value == Approx(18.94e9));
  CHECK(*fs[0].evidence[0].threshold == Approx(22.5e9));
  // must not: a warn-or-worse finding about wrong results (#wrong 0, out of bounds 0).
  CHECK_FALSE(warn_or_worse_mentions(fs, "wrong"));
}

TEST_CASE("GB10 variants: a healthy control has no warning, one host is not judged, other GPUs are not judged") {
  SUBCASE("healthy: 23.50 / 24.10 GB/s of 25") {
    auto imp = parse_nccl_tests(gb10_run("23.50", "24.10"), "ok");
    REQUIRE(imp.ok());
    CHECK(imp->gaps.empty());  // a whole "# Avg bus bandwidth" line
    CHECK(imp->tables[0].avg_busbw_bytes_per_s == Approx(19.945e9));
    CHECK(all_findings(*imp).empty());
  }
  SUBCASE("the same low figures on one host: no link between hosts crossed") {
    std::string text = gb10_run("18.94", "20.95");
    text = replace_all(text, "node02", "node01");
    auto imp = parse_nccl_tests(text, "one");
    REQUIRE(imp.ok());
    CHECK(all_findings(*imp).empty());
  }
  SUBCASE("H100 ranks: no platform rate, and 18.94 GB/s is above the 100 Gb/s floor: nothing is said") {
    std::string text = replace_all(gb10_run("18.94", "20.95"), "NVIDIA GB10", "NVIDIA H100 80GB HBM3");
    auto imp = parse_nccl_tests(text, "h100");
    REQUIRE(imp.ok());
    CHECK(imp->tables[0].ranks[0].gpu == "NVIDIA H100 80GB HBM3");
    CHECK(all_findings(*imp).empty());
  }
}

TEST_CASE("line rate: --line-rate, else a 100 Gb/s floor, for multi-node bandwidth-bound tables of >= 64 MiB") {
  const std::string h100 = replace_all(gb10_run("18.94", "20.95"), "NVIDIA GB10", "NVIDIA H100 80GB HBM3");
  SUBCASE("--line-rate 400: 20.95 GB/s is 42% of 50 GB/s, a warning against the given rate") {
    auto imp = parse_nccl_tests(h100, "h100");
    REQUIRE(imp.ok());
    auto fs = nccl_tests_link_findings(*imp, "in", 400.0);
    REQUIRE(fs.size() == 1);
    CHECK(fs[0].code == "nccl_tests_busbw_below_link");
    CHECK(fs[0].severity == Severity::kWarn);
    CHECK(fs[0].message.find("(42%)") != std::string::npos);
    CHECK(fs[0].message.find("given with --line-rate") != std::string::npos);
    CHECK(*fs[0].evidence[0].threshold == Approx(45e9));
  }
  SUBCASE("no rate and no ranks (case 001): 4.33 GB/s all_reduce is under the floor, alltoall not judged") {
    auto imp = parse_nccl_tests(fixture("cases/001-nccltests-allreduce-alltoall-8node-ib.input.txt"), "001");
    REQUIRE(imp.ok());
    auto fs = nccl_tests_link_findings(*imp, "in");
    REQUIRE(fs.size() == 1);
    CHECK(fs[0].subject == "all_reduce");
    CHECK(fs[0].message.find("4.33 GB/s out-of-place (35%)") != std::string::npos);
    CHECK(fs[0].message.find("100 Gb/s, the slowest RDMA port") != std::string::npos);
    CHECK(fs[0].message.find("ran on one node") != std::string::npos);  // no rank lines: hosts unknown
    CHECK(*fs[0].evidence[0].threshold == Approx(11.25e9));
  }
  SUBCASE("a 25 GbE fabric told as such: 2.9 GB/s of 3.125 is 93%, nothing is said") {
    std::string text = replace_all(replace_all(h100, "18.94", "2.80"), "20.95", "2.90");
    auto imp = parse_nccl_tests(text, "25g");
    REQUIRE(imp.ok());
    CHECK(nccl_tests_link_findings(*imp, "in").size() == 1);  // under the 100 Gb/s floor
    CHECK(nccl_tests_link_findings(*imp, "in", 25.0).empty());
  }
  SUBCASE("one host: NVLink or PCIe, not the network, even with --line-rate") {
    auto imp = parse_nccl_tests(replace_all(replace_all(h100, "node02", "node01"), "18.94", "2.00"), "one");
    REQUIRE(imp.ok());
    CHECK(nccl_tests_link_findings(*imp, "in", 400.0).empty());
  }
}

TEST_CASE("mpirun tags at line starts and inside rows are dropped") {
  std::string text;
  for (const auto& l : split(gb10_run("18.94", "20.95"), '\n'))
    if (!l.empty()) text += "[1,0]<stdout>:" + l + "\n";
  // Two ranks' output interleaved: a tag in the middle of a data row.
  text = replace_all(text, "float    none      -1   453650", "float    none   [1,1]<stdout>:   -1   453650");
  auto imp = parse_nccl_tests(text, "tagged");
  REQUIRE(imp.ok());
  CHECK(imp->gaps.empty());
  REQUIRE(imp->tables.size() == 1);
  REQUIRE(imp->tables[0].rows.size() == 1);
  CHECK(imp->tables[0].rows[0].root == -1);
  CHECK(imp->tables[0].rows[0].out_of_place.busbw_bytes_per_s == Approx(18.94e9));
  CHECK(imp->tables[0].ranks.size() == 2);
  CHECK(imp->tables[0].tests_version == "2.17.6");
}

TEST_CASE("rows without a header line are read by their shape (13 fields newer, 12 older)") {
  SUBCASE("newer") {
    std::string text =
        "$ ./all_reduce_perf -b 1M -e 2M\n"
        "     1048576        262144     float     sum      -1    52.40   20.01   37.52       0    51.90   20.20   "
        "37.88       0\n"
        "     2097152        524288     float     sum      -1    95.00   22.08   41.40       0    94.60   22.17   "
        "41.57       0\n";
    auto imp = parse_nccl_tests(text, "rows");
    REQUIRE(imp.ok());
    REQUIRE(imp->tables.size() == 1);
    const auto& t = imp->tables[0];
    CHECK(t.header_inferred);
    CHECK(t.collective == "all_reduce");
    CHECK(t.layout == NcclTestsLayout::kWrongColumn);
    REQUIRE(t.rows.size() == 2);
    CHECK(t.rows[1].size_bytes == 2097152);
    CHECK(t.rows[1].in_place->busbw_bytes_per_s == Approx(41.57e9));
  }
  SUBCASE("older") {
    std::string text = "### all_reduce_perf\n"
                       "   268435456      67108864   float     sum   3216.4   83.46  156.48  5e-07   3212.7   83.56  "
                       "156.67  5e-07\n";
    auto imp = parse_nccl_tests(text, "old");
    REQUIRE(imp.ok());
    REQUIRE(imp->tables.size() == 1);
    CHECK(imp->tables[0].layout == NcclTestsLayout::kErrorColumn);
    CHECK(imp->tables[0].rows[0].out_of_place.max_error == Approx(5e-07));
  }
  SUBCASE("numbers of another shape are not a table") {
    auto imp = parse_nccl_tests("1 2 3 4 5 6 7 8 9 10 11 12 13\n", "nums");
    CHECK_FALSE(imp.ok());
  }
}

TEST_CASE("-I per-iteration columns, cputime and the timestamp column") {
  std::string text =
      "# Collective test starting: all_reduce_perf\n"
      "#       size         count      type   redop    root  cputime   algbw   busbw  #wrong    i_min    i_max    "
      "i_p99    i_cv%  cputime   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv% timestamp\n"
      "     1048576        262144     float     sum      -1    52.40   20.01   37.52       0    50.10    61.30    "
      "61.30     8.50    51.90   20.20   37.88       0    50.00    55.00    55.00     3.10 2025-06-01 10:00:01\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 37.7\n";
  auto imp = parse_nccl_tests(text, "iter");
  REQUIRE(imp.ok());
  CHECK(imp->gaps.empty());
  REQUIRE(imp->tables[0].rows.size() == 1);
  const auto& h = imp->tables[0].rows[0].out_of_place;
  CHECK(h.time_s == Approx(52.40e-6));
  CHECK(h.iter_min_s == Approx(50.10e-6));
  CHECK(h.iter_max_s == Approx(61.30e-6));
  CHECK(h.iter_p99_s == Approx(61.30e-6));
  CHECK(h.iter_cv_pct == Approx(8.5));
  CHECK(imp->tables[0].rows[0].in_place->iter_cv_pct == Approx(3.1));
  auto data = to_bench_data(imp->tables[0]);
  CHECK(data["results"][0]["per_iteration"]["cv_pct"].get<double>() == Approx(8.5));
}

TEST_CASE("case 044: PR #318 JSON line among Open MPI noise, cut inside the 134217728 record") {
  auto imp = parse_nccl_tests(fixture(k044), "044");
  REQUIRE(imp.ok());
  REQUIRE(imp->tables.size() == 1);
  const auto& t = imp->tables[0];
  CHECK(t.source_format == "json-pr318");
  CHECK(t.collective == "alltoall");
  CHECK(t.nccl_version == "2.26.6");
  CHECK(t.command_gpus == 8);
  REQUIRE(t.command_env.size() == 2);
  CHECK(t.command_env[0] == std::pair<std::string, std::string>{"NCCL_P2P_DISABLE", "1"});
  // Two complete sizes; the cut one is a gap, not a row.
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0].size_bytes == 33554432);
  CHECK(t.rows[0].count == 1048576);
  CHECK(t.rows[0].root == -1);
  CHECK(t.rows[0].out_of_place.busbw_bytes_per_s == Approx(19.648366e9));
  CHECK(t.rows[0].out_of_place.algbw_bytes_per_s == Approx(22.455275e9));
  CHECK(t.rows[0].in_place->busbw_bytes_per_s == Approx(20.115716e9));
  CHECK(t.rows[1].size_bytes == 67108864);
  CHECK(t.rows[1].out_of_place.busbw_bytes_per_s == Approx(20.628529e9));
  CHECK(t.rows[1].in_place->busbw_bytes_per_s == Approx(20.60911e9));
  CHECK(t.rows[0].out_of_place.wrong_elements == 0u);     // 0.000000 is a number
  CHECK_FALSE(t.rows[0].in_place->wrong_elements.has_value());  // "N/A": not checked
  bool cut_named = false;
  for (const auto& g : imp->gaps) cut_named = cut_named || g.message.find("134217728") != std::string::npos;
  CHECK(cut_named);
  auto data = to_bench_data(t);
  CHECK(data["nccl_tests"]["busbw_factor_observed"].get<double>() == Approx(0.875));
  CHECK(data["nccl_tests"]["ranks_implied"] == 8);
  CHECK(data["nccl_tests"]["command_env"]["NCCL_P2P_DISABLE"] == "1");

  auto fs = all_findings(*imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "nccl_tests_transport_disabled");
  CHECK(fs[0].severity == Severity::kInfo);
  CHECK(fs[0].message.find("p2p") != std::string::npos);
  // must not: blame mlx5_0, openib (MPI noise) or the unexpanded CUDA_MAJOR macro.
  CHECK_FALSE(warn_or_worse_mentions(fs, "mlx5_0"));
  CHECK_FALSE(warn_or_worse_mentions(fs, "openib"));
  CHECK_FALSE(warn_or_worse_mentions(fs, "cuda_major"));
}

TEST_CASE("-J JSON (version 2): one line, pretty-printed and cut") {
  for (const char* f : {"nccl-tests/json-v2-allreduce-2node.json", "nccl-tests/json-v2-allreduce-2node.pretty.json"}) {
    CAPTURE(f);
    auto imp = parse_nccl_tests(fixture(f), "j");
    REQUIRE(imp.ok());
    CHECK(imp->gaps.empty());
    REQUIRE(imp->tables.size() == 1);
    const auto& t = imp->tables[0];
    CHECK(t.source_format == "json");
    CHECK(t.program == "all_reduce_perf");  // args[0]
    CHECK(t.nccl_version == "2.27.3");
    CHECK(t.warmup_iters == 5);
    CHECK(t.iters == 3);
    REQUIRE(t.ranks.size() == 2);
    CHECK(t.ranks[1].host == "node02");
    CHECK(t.ranks[1].bus_id == "0000:19:00");
    REQUIRE(t.rows.size() == 2);
    CHECK(t.rows[0].out_of_place.time_s == Approx(52.4e-6));
    CHECK(t.rows[0].out_of_place.busbw_bytes_per_s == Approx(20.01e9));
    CHECK(t.rows[0].out_of_place.wrong_elements == 0u);
    CHECK(t.rows[0].out_of_place.iter_cv_pct == Approx(8.5));
    REQUIRE(t.rows[0].out_of_place.per_process_max_s.size() == 2);
    CHECK(t.rows[0].out_of_place.per_process_max_s[1] == Approx(61.3e-6));
    CHECK(t.rows[1].in_place->busbw_bytes_per_s == Approx(22.17e9));
    CHECK(t.avg_busbw_bytes_per_s == Approx(21.115e9));
    CHECK(t.out_of_bounds_values == 0u);
    CHECK(all_findings(*imp).empty());
  }
  auto cut = parse_nccl_tests(fixture("nccl-tests/json-v2-allreduce-cut.json"), "cut");
  REQUIRE(cut.ok());
  REQUIRE(cut->tables.size() == 1);
  CHECK(cut->tables[0].rows.size() == 1);  // the complete record only
  bool named = false;
  for (const auto& g : cut->gaps) named = named || g.message.find("2097152") != std::string::npos;
  CHECK(named);
}

TEST_CASE("a '{' line of another program is not swallowed as JSON") {
  std::string text = "{\n  \"step\": 1\n}\n" + gb10_run("23.50", "24.10");
  auto imp = parse_nccl_tests(text, "dict");
  REQUIRE(imp.ok());
  CHECK(imp->tables.size() == 1);
}

TEST_CASE("NCCL version codes") {
  CHECK(nccl_version_of_code(22803) == "2.28.3");
  CHECK(nccl_version_of_code(21903) == "2.19.3");
  CHECK(nccl_version_of_code(2804) == "2.8.4");
  CHECK(nccl_version_of_code(7).empty());
}

TEST_CASE("pdsh-prefixed output: each host's lines are read as their own stream, tags dropped") {
  // pdsh -w node0[1-2] all_reduce_perf -g 2: "HOST: " before every line, the hosts interleaved.
  auto imp = parse_nccl_tests(fixture("nccl-tests/pdsh-two-hosts.txt"), "pdsh.txt");
  REQUIRE(imp.ok());
  CHECK(imp->gaps.empty());
  REQUIRE(imp->tables.size() == 2);
  const auto& a = imp->tables[0];
  const auto& b = imp->tables[1];
  CHECK(a.program == "all_reduce_perf");
  CHECK(a.rank_hosts == std::vector<std::string>{"node01", "node01"});
  CHECK(b.rank_hosts == std::vector<std::string>{"node02", "node02"});
  REQUIRE(a.rows.size() == 3);
  REQUIRE(b.rows.size() == 3);
  CHECK(*a.rows[2].out_of_place.busbw_bytes_per_s == Approx(240.75e9));
  CHECK(*b.rows[2].out_of_place.busbw_bytes_per_s == Approx(110.75e9));
  CHECK(a.rows[0].line == 19);  // line numbers of the whole file
  CHECK(b.rows[0].line == 20);
  CHECK(*a.avg_busbw_bytes_per_s == Approx(180.5e9));
  CHECK(nccl_tests_hosts(*imp) == std::vector<std::string>{"node01", "node02"});

  // One host's prefix and mpirun's tags after it; a rank line that names no host takes the prefix.
  std::string one;
  for (const auto& l : split(fixture("nccl-tests/newer-allreduce-2node.txt"), '\n'))
    if (!l.empty()) one += "login01: [1,0]<stdout>:" + l + "\n";
  auto tagged = parse_nccl_tests(one, "one.txt");
  REQUIRE(tagged.ok());
  REQUIRE(tagged->tables.size() == 1);
  CHECK(tagged->tables[0].rows.size() == 4);
  CHECK(tagged->tables[0].rank_hosts.size() == 8);
  CHECK(tagged->tables[0].rank_hosts[7] == "node02");  // the rank lines' own hosts win
  std::string nameless;  // node01's lines of the pdsh file, its rank lines without "on node01"
  for (auto l : split(fixture("nccl-tests/pdsh-two-hosts.txt"), '\n')) {
    if (!starts_with(l, "node01: ")) continue;
    if (auto on = l.find(" on    node01"); on != std::string::npos) l.erase(on, 13);
    nameless += "node07: " + l.substr(8) + "\n";
  }
  auto blank = parse_nccl_tests(nameless, "blank.txt");
  REQUIRE(blank.ok());
  REQUIRE(blank->tables.size() == 1);
  CHECK(blank->tables[0].rank_hosts == std::vector<std::string>{"node07", "node07"});

  // Unprefixed output with a stray "Word: text" line is read as before.
  auto plain = parse_nccl_tests("Warning: Permanently added 'node02' to the list of known hosts.\n" +
                                    fixture("nccl-tests/newer-allreduce-2node.txt"),
                                "plain.txt");
  REQUIRE(plain.ok());
  CHECK(plain->gaps.empty());
  REQUIRE(plain->tables.size() == 1);
  CHECK(plain->tables[0].rows.size() == 4);
}
