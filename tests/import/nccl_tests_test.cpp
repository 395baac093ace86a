#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "import/nccl_tests.h"
#include "core/atomic_file.h"

using namespace fabdiag;
using namespace fabdiag::baseline;
using doctest::Approx;

namespace {

std::string fixture(const std::string& rel) {
  auto text = read_file(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/" + rel);
  REQUIRE_MESSAGE(text.ok(), rel);
  return *text;
}

const NcclTestsTable& table_named(const NcclTestsImport& imp, const std::string& collective) {
  for (const auto& t : imp.tables)
    if (t.collective == collective) return t;
  FAIL("no table " << collective);
  return imp.tables.front();
}

}  // namespace

TEST_CASE("case 001: older layout, all_reduce_perf + alltoall_perf, every expected value") {
  const std::string src = "001.input.txt";
  auto imp = parse_nccl_tests(fixture("cases/001-nccltests-allreduce-alltoall-8node-ib.input.txt"), src);
  REQUIRE(imp.ok());
  // must not: fail on the missing preamble or on rows without redop; nothing is a gap.
  CHECK(imp->gaps.empty());
  REQUIRE(imp->tables.size() == 2);
  CHECK(imp->tables[0].program == "all_reduce_perf");
  CHECK(imp->tables[1].program == "alltoall_perf");

  for (const auto& t : imp->tables) {
    CHECK(t.layout == NcclTestsLayout::kErrorColumn);
    CHECK(t.rank_hosts.empty());  // no "# Using devices" block in this layout
    CHECK_FALSE(t.warmup_iters.has_value());
    // must not: read '#' header rows (column names, units) as data: exactly two sizes.
    REQUIRE(t.rows.size() == 2);
    CHECK(t.rows[0].size_bytes == 268435456);
    CHECK(t.rows[1].size_bytes == 536870912);
    for (const auto& r : t.rows) {
      CHECK(r.dtype == "float");
      REQUIRE(r.in_place.has_value());
      CHECK_FALSE(r.out_of_place.wrong_elements.has_value());  // "error" column is not a count
    }
    REQUIRE(t.out_of_bounds_values.has_value());
    CHECK(*t.out_of_bounds_values == 0);
    CHECK(t.out_of_bounds_ok);
  }

  const auto& ar = table_named(*imp, "all_reduce");
  CHECK(ar.rows[0].count == 67108864);
  CHECK(ar.rows[0].redop == "sum");
  CHECK(*ar.rows[0].out_of_place.busbw_bytes_per_s == Approx(4.33e9));
  CHECK(*ar.rows[1].out_of_place.busbw_bytes_per_s == Approx(4.32e9));
  CHECK(*ar.rows[0].in_place->busbw_bytes_per_s == Approx(4.33e9));  // in-place equal
  CHECK(*ar.rows[1].in_place->busbw_bytes_per_s == Approx(4.32e9));
  CHECK(*ar.rows[0].out_of_place.algbw_bytes_per_s == Approx(2.20e9));
  CHECK(*ar.rows[1].out_of_place.algbw_bytes_per_s == Approx(2.19e9));
  CHECK(*ar.rows[0].out_of_place.time_s == Approx(0.122131));  // 122131 us
  CHECK(*ar.rows[1].out_of_place.time_s == Approx(0.244833));
  CHECK(*ar.rows[0].in_place->time_s == Approx(0.122165));
  CHECK(*ar.rows[0].out_of_place.max_error == Approx(2e-06));
  CHECK(*ar.rows[1].in_place->max_error == Approx(2e-06));
  REQUIRE(ar.avg_busbw_bytes_per_s.has_value());
  CHECK(*ar.avg_busbw_bytes_per_s == Approx(4.32178e9));

  const auto& a2a = table_named(*imp, "alltoall");
  for (const auto& r : a2a.rows) {
    CHECK(r.redop.empty());  // redop field empty in alltoall rows
    CHECK_FALSE(r.root.has_value());
    CHECK(*r.out_of_place.algbw_bytes_per_s == Approx(0.52e9));
    CHECK(*r.out_of_place.busbw_bytes_per_s == Approx(0.51e9));
    CHECK(*r.in_place->busbw_bytes_per_s == Approx(0.51e9));
    CHECK(*r.out_of_place.max_error == 0.0);  // 0e+00 out-of-place
    CHECK(*r.in_place->max_error == 1.0);     // 1e+00 in-place
  }
  CHECK(a2a.rows[0].count == 1048576);
  CHECK(*a2a.rows[0].out_of_place.time_s == Approx(0.520935));
  CHECK(*a2a.rows[1].out_of_place.time_s == Approx(1.041974));
  CHECK(*a2a.avg_busbw_bytes_per_s == Approx(0.507636e9));

  // Derived facts of the verdict: peak allreduce busbw ~35 % of one 100 Gb/s port
  // (12.5 GB/s); alltoall/allreduce busbw ratio ~0.12.
  double peak = std::max(*ar.rows[0].out_of_place.busbw_bytes_per_s, *ar.rows[1].out_of_place.busbw_bytes_per_s);
  CHECK(peak == Approx(4.33e9));
  CHECK(peak / (100e9 / 8) == Approx(0.35).epsilon(0.02));
  CHECK(*a2a.rows[0].out_of_place.busbw_bytes_per_s / peak == Approx(0.12).epsilon(0.03));

  // must not: call the in-place alltoall error 1e+00 corruption or a failed run.
  CHECK(nccl_tests_findings(*imp, src).empty());
}

TEST_CASE("case 001 as fabdiag.bench/1 data: units converted, two tables") {
  auto imp = parse_nccl_tests(fixture("cases/001-nccltests-allreduce-alltoall-8node-ib.input.txt"), "001");
  REQUIRE(imp.ok());
  nlohmann::json data = to_bench_envelope_data(*imp);
  REQUIRE(data.contains("tables"));
  REQUIRE(data["tables"].size() == 2);
  const auto& ar = data["tables"][0];
  CHECK(ar["collective"] == "all_reduce");
  CHECK(ar["backend"] == "nccl");
  CHECK(ar["dtype"] == "float");
  CHECK(ar["ranks"].is_null());
  CHECK(ar["iters"].is_null());
  CHECK(ar["busbw_factor"] == "2(n-1)/n");
  CHECK(ar["busbw_resolution_bytes_per_s"].get<double>() == Approx(1e7));
  REQUIRE(ar["results"].size() == 2);
  CHECK(ar["results"][0]["size_bytes"] == 268435456);
  CHECK(ar["results"][0]["busbw_bytes_per_s"].get<double>() == Approx(4.33e9));
  CHECK(ar["results"][0]["algbw_bytes_per_s"].get<double>() == Approx(2.20e9));
  CHECK(ar["results"][0]["time_s"].get<double>() == Approx(0.122131));
  CHECK(ar["results"][0]["wrong_elements"].is_null());
  CHECK(ar["results"][0]["per_rank_time_s"].empty());
  CHECK(ar["nccl_tests"]["avg_busbw_bytes_per_s"].get<double>() == Approx(4.32178e9));
  CHECK(ar["nccl_tests"]["layout"] == "error_column");
  const auto& a2a = data["tables"][1];
  CHECK(a2a["collective"] == "alltoall");
  CHECK(a2a["busbw_factor"] == "(n-1)/n");
  CHECK(a2a["results"][1]["in_place"]["max_error"].get<double>() == 1.0);
  CHECK(a2a["results"][1]["redop"] == "");
}

TEST_CASE("newer layout: preamble, root and #wrong columns, interleaved NCCL log lines") {
  auto imp = parse_nccl_tests(fixture("nccl-tests/newer-allreduce-2node.txt"), "newer.txt");
  REQUIRE(imp.ok());
  CHECK(imp->gaps.empty());
  REQUIRE(imp->tables.size() == 1);
  const auto& t = imp->tables[0];
  CHECK(t.program == "all_reduce_perf");  // from "# Collective test concluded:"
  CHECK(t.collective == "all_reduce");
  CHECK(t.layout == NcclTestsLayout::kWrongColumn);
  CHECK(t.header_line == 15);
  CHECK(t.nccl_version == "2.21.5+cuda12.4");
  REQUIRE(t.warmup_iters.has_value());
  CHECK(*t.warmup_iters == 5);
  REQUIRE(t.iters.has_value());
  CHECK(*t.iters == 20);  // not the "agg iters: 1"
  REQUIRE(t.rank_hosts.size() == 8);
  CHECK(t.rank_hosts[0] == "node01");
  CHECK(t.rank_hosts[7] == "node02");
  REQUIRE(t.rows.size() == 4);
  CHECK(t.rows[0].redop == "sum");
  REQUIRE(t.rows[0].root.has_value());
  CHECK(*t.rows[0].root == -1);
  CHECK(t.rows[3].size_bytes == 8388608);
  CHECK(*t.rows[3].out_of_place.busbw_bytes_per_s == Approx(97.03e9));
  CHECK(*t.rows[3].in_place->time_s == Approx(150.9e-6));
  REQUIRE(t.rows[3].out_of_place.wrong_elements.has_value());
  CHECK(*t.rows[3].out_of_place.wrong_elements == 0);
  CHECK_FALSE(t.rows[3].out_of_place.max_error.has_value());
  CHECK(*t.avg_busbw_bytes_per_s == Approx(69.3413e9));
  CHECK(nccl_tests_findings(*imp, "newer.txt").empty());

  nlohmann::json data = to_bench_envelope_data(*imp);
  CHECK_FALSE(data.contains("tables"));  // one table: the bench/1 data itself
  CHECK(data["ranks"] == 8);
  CHECK(data["hosts"].size() == 8);
  CHECK(data["warmup"] == 5);
  CHECK(data["iters"] == 20);
  CHECK(data["results"][0]["wrong_elements"] == 0);
  CHECK(data["results"][0]["root"] == -1);
}

TEST_CASE("mpirun --tag-output prefixes, command line names the program, wrong results judged") {
  auto imp = parse_nccl_tests(fixture("nccl-tests/tagged-alltoall-wrong.txt"), "a2a.txt");
  REQUIRE(imp.ok());
  CHECK(imp->gaps.empty());
  REQUIRE(imp->tables.size() == 1);
  const auto& t = imp->tables[0];
  CHECK(t.program == "alltoall_perf");
  CHECK(t.collective == "alltoall");
  CHECK(t.rank_hosts.size() == 8);
  CHECK(*t.iters == 50);
  REQUIRE(t.rows.size() == 3);
  CHECK(t.rows[0].redop == "none");
  CHECK_FALSE(t.rows[0].in_place->wrong_elements.has_value());  // "N/A": not checked
  CHECK(*t.rows[1].out_of_place.wrong_elements == 12);
  CHECK(*t.out_of_bounds_values == 12);
  CHECK_FALSE(t.out_of_bounds_ok);
  auto findings = nccl_tests_findings(*imp, "a2a.txt");
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].code == "nccl_tests_wrong_results");
  CHECK(findings[0].severity == Severity::kError);
  CHECK(findings[0].layer == Layer::kCollective);
  CHECK(findings[0].subject == "alltoall");
  REQUIRE(findings[0].evidence.size() == 2);
  CHECK(*findings[0].evidence[0].value == 12);
  CHECK(findings[0].evidence[0].value_text == "FAILED");
  CHECK(findings[0].evidence[0].source == "a2a.txt:15");
}

TEST_CASE("truncated table without a program name: rows kept, gaps name the lines, all_reduce by its busbw factor") {
  std::string text = fixture("nccl-tests/truncated-no-name.txt");
  auto imp = parse_nccl_tests(text, "cut.txt");
  REQUIRE(imp.ok());
  REQUIRE(imp->tables.size() == 1);
  // busbw/algbw 19.22/10.25 = 1.875 = 2(n-1)/n with n = 16: only all_reduce's factor is above 1.
  CHECK(imp->tables[0].collective == "all_reduce");
  CHECK(imp->tables[0].collective_inferred);
  REQUIRE(busbw_factor_of_rows(imp->tables[0]));
  CHECK(*busbw_factor_of_rows(imp->tables[0]) == doctest::Approx(1.875).epsilon(0.001));
  CHECK(imp->tables[0].rows.size() == 2);  // the third row lost its in-place half
  REQUIRE(imp->gaps.size() == 2);
  CHECK(imp->gaps[0].source == "cut.txt:6");
  CHECK(imp->gaps[0].message.find("does not match") != std::string::npos);
  CHECK(imp->gaps[1].message.find("cut short") != std::string::npos);

  auto hinted = parse_nccl_tests(text, "cut.txt", "all_reduce_perf");
  REQUIRE(hinted.ok());
  CHECK(hinted->tables[0].collective == "all_reduce");
  CHECK_FALSE(hinted->tables[0].collective_inferred);
  CHECK(hinted->gaps.size() == 2);

  // A factor below 1 fits all_gather, reduce_scatter and alltoall alike: unknown, a gap.
  auto a2a = parse_nccl_tests(
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "    33554432        524288     float    none      -1   1494.3   22.46   19.65      0   1459.6   22.99   20.12    N/A\n"
      "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 19.88\n",
      "a2a.txt");
  REQUIRE(a2a.ok());
  CHECK(a2a->tables[0].collective == "unknown");
  CHECK_FALSE(a2a->tables[0].collective_inferred);
  REQUIRE(a2a->gaps.size() == 1);
  CHECK(a2a->gaps[0].message.find("--collective") != std::string::npos);
}

TEST_CASE("inputs that are not nccl-tests output are refused with the file named") {
  auto none = parse_nccl_tests("hello\n# just a comment\n12 34 56\n", "notes.txt");
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code == ErrorCode::kParse);
  CHECK(none.error().source == "notes.txt");
  auto empty = parse_nccl_tests("", "empty.txt");
  REQUIRE_FALSE(empty.ok());
  auto bad_hint = parse_nccl_tests("", "x", "allgatherv");
  REQUIRE_FALSE(bad_hint.ok());
  CHECK(bad_hint.error().code == ErrorCode::kInvalidArgument);
}

TEST_CASE("a header without rows is a gap, not a table, CRLF line ends are accepted") {
  std::string text =
      "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error\r\n"
      "# Out of bounds values : 0 OK\r\n"
      "# Avg bus bandwidth    : 0 \r\n"
      "### broadcast_perf\r\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\r\n"
      "        1024           256     float    none       0    20.00    0.05    0.05      0    19.00    0.05    0.05      0\r\n"
      "# Out of bounds values : 0 OK\r\n"
      "# Avg bus bandwidth    : 0.05 \r\n";
  auto imp = parse_nccl_tests(text, "crlf.txt");
  REQUIRE(imp.ok());
  REQUIRE(imp->tables.size() == 1);
  CHECK(imp->tables[0].collective == "broadcast");
  REQUIRE(imp->tables[0].rows.size() == 1);
  CHECK(*imp->tables[0].rows[0].root == 0);
  CHECK(imp->tables[0].rows[0].redop == "none");
  REQUIRE(imp->gaps.size() == 1);
  CHECK(imp->gaps[0].source == "crlf.txt:1");
}

TEST_CASE("collective names: programs and spellings") {
  CHECK(normalize_collective_name("all_reduce_perf") == "all_reduce");
  CHECK(normalize_collective_name("/opt/nccl-tests/build/all_gather_perf_mpi") == "all_gather");
  CHECK(normalize_collective_name("allreduce") == "all_reduce");
  CHECK(normalize_collective_name("reduce_scatter") == "reduce_scatter");
  CHECK(normalize_collective_name("alltoall_perf") == "alltoall");
  CHECK(normalize_collective_name("hypercube_perf") == "hypercube");
  CHECK_FALSE(normalize_collective_name("alltoallv_perf").has_value());
  CHECK_FALSE(normalize_collective_name("").has_value());
  CHECK(normalize_collective_name("scatter_perf") == "scatter");
  auto bad = parse_nccl_tests("", "f", "alltoallv");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::kInvalidArgument);
  CHECK(bad.error().message ==
        "'alltoallv' is not an nccl-tests collective (expected one of all_reduce, all_gather, "
        "reduce_scatter, alltoall, broadcast, reduce, sendrecv, gather, scatter, hypercube)");
}

TEST_CASE("a row with nan, inf or a negative time is a reported gap, never a measurement") {
  std::string text = fixture("nccl-tests/newer-allreduce-2node.txt");
  auto pos = text.find("97.03");
  REQUIRE(pos != std::string::npos);
  text.replace(pos, 5, "nan");
  auto imp = parse_nccl_tests(text, "corrupt.txt");
  REQUIRE(imp.ok());
  REQUIRE(imp->tables.size() == 1);
  CHECK(imp->tables[0].rows.size() == 3);  // the corrupted 8 MiB row is left out
  REQUIRE(imp->gaps.size() == 1);
  CHECK(imp->gaps[0].code == ErrorCode::kParse);
  for (const auto& r : imp->tables[0].rows) CHECK(r.size_bytes != 8388608);
}

namespace {

// An all_reduce table of 8 float ranks' rows around `row` (line 6), with its summary.
std::string table_around(const std::string& row) {
  return "# Collective test starting: all_reduce_perf\n"
         "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
         "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n"
         "     1048576        262144     float     sum      -1    17.85   58.75   58.75      0    17.85   58.75   58.75      0\n"
         "     2097152        524288     float     sum      -1    38.43   54.58   54.58      0    38.43   54.58   54.58      0\n" +
         row + "\n# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 56.66\n";
}

}  // namespace

TEST_CASE("a size or count past 2^64 is a gap naming its line, never log output dropped in silence") {
  auto imp = parse_nccl_tests(
      table_around("  36893488147419103232        262144     float     sum      -1    17.85   58.75   58.75      0    17.85   58.75   58.75      0"),
      "big.txt");
  REQUIRE(imp.ok());
  CHECK(imp->tables[0].rows.size() == 2);
  REQUIRE(imp->gaps.size() == 1);
  CHECK(imp->gaps[0].source == "big.txt:6");
  CHECK(imp->gaps[0].message.find("size '36893488147419103232' does not fit 64 bits") == 0);
}

TEST_CASE("a bandwidth or time that is not finite in base units (1e308 GB/s) is a gap, never inf") {
  auto imp = parse_nccl_tests(
      table_around("     4194304       1048576     float     sum      -1    17.85   58.75  1e308      0    17.85   58.75   58.75      0"),
      "inf.txt");
  REQUIRE(imp.ok());
  CHECK(imp->tables[0].rows.size() == 2);
  REQUIRE(imp->gaps.size() == 1);
  CHECK(imp->gaps[0].source == "inf.txt:6");
  CHECK(imp->gaps[0].message.find("busbw 1e308 is out of range") == 0);
  const auto data = to_bench_data(imp->tables[0]);  // kept alive: the loop iterates into it
  for (const auto& r : data["results"]) {
    CHECK(r["busbw_bytes_per_s"].is_number());
    CHECK(r["size_bytes"] != 4194304);
  }
}

TEST_CASE("a count that contradicts size / the type's bytes is a gap naming the line, per-rank counts fit") {
  auto imp = parse_nccl_tests(
      table_around("     4194304       1000000     float     sum      -1    17.85   58.75   58.75      0    17.85   58.75   58.75      0"),
      "count.txt");
  REQUIRE(imp.ok());
  CHECK(imp->tables[0].rows.size() == 2);
  REQUIRE(imp->gaps.size() == 1);
  CHECK(imp->gaps[0].source == "count.txt:6");
  CHECK(imp->gaps[0].message == "count 1000000 x 4 bytes (float) contradicts size 4194304 bytes; row skipped");
  // all_gather prints the count per rank: size = count x bytes x ranks (8 here) fits.
  std::string gather = table_around("     4194304        131072     float    none      -1    17.85   58.75   58.75      0    17.85   58.75   58.75      0");
  gather.replace(gather.find("all_reduce_perf"), 15, "all_gather_perf");
  auto ok = parse_nccl_tests(gather, "gather.txt");
  REQUIRE(ok.ok());
  CHECK(ok->tables[0].rows.size() == 3);
  CHECK(ok->gaps.empty());
}

TEST_CASE("fabdiag's own table of a run cut before its first size reads back: partial, backend mpi, its iters") {
  auto imp = parse_nccl_tests(fixture("nccl-tests/fabdiag-mpi-cut-before-first-size.txt"), "cut.txt");
  REQUIRE_MESSAGE(imp.ok(), imp.error().to_string());
  REQUIRE(imp->tables.size() == 1);
  const NcclTestsTable& t = imp->tables[0];
  CHECK(t.collective == "all_reduce");
  CHECK(t.rows.empty());
  CHECK(t.partial);
  CHECK(t.backend == "mpi");
  CHECK(t.iters == 200);
  CHECK(t.warmup_iters == 5);
  REQUIRE(imp->gaps.size() == 1);
  CHECK(imp->gaps[0].source == "cut.txt:10");
  CHECK(imp->gaps[0].message.find("the run was cut: interrupted by SIGINT during start-up") == 0);
  CHECK(to_bench_data(t)["backend"] == "mpi");
  // A table with rows keeps the backend its line names; nccl-tests' own output stays nccl.
  std::string rows = table_around("");
  rows.insert(rows.find('\n') + 1, "# fabdiag: backend mpi\n");
  auto mpi = parse_nccl_tests(rows, "mpi.txt");
  REQUIRE(mpi.ok());
  CHECK(mpi->tables[0].backend == "mpi");
  CHECK(mpi->tables[0].rows.size() == 2);
  CHECK_FALSE(mpi->tables[0].partial);
  auto nccl = parse_nccl_tests(table_around(""), "nccl.txt");
  REQUIRE(nccl.ok());
  CHECK(to_bench_data(nccl->tables[0])["backend"] == "nccl");
}
