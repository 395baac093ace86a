// perftest import: case 065 (shared/cases/065-ib-write-bw-roce-v1-mlx4-36gbps-duration-mode-peak-zero-control)
// and made-up variants: the client side of `ib_read_bw -a` in MB/sec, an `ib_write_lat` table,
// a run without a result, a cut last line, another tool's text.
#include <doctest/doctest.h>

#include "import/format_detect.h"
#include "import/perftest.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kCase065 =
    "tests/fixtures/cases/065-ib-write-bw-roce-v1-mlx4-36gbps-duration-mode-peak-zero-control.input.txt";

constexpr const char* kReadBwAll =
    "---------------------------------------------------------------------------------------\n"
    "                    RDMA_Read BW Test\n"
    " Dual-port       : OFF          Device         : mlx5_0\n"
    " Number of qps   : 1            Transport type : IB\n"
    " Connection type : RC           Using SRQ      : OFF\n"
    " Mtu             : 4096[B]\n"
    " Link type       : IB\n"
    " Outstand reads  : 16\n"
    "---------------------------------------------------------------------------------------\n"
    " local address: LID 0x05 QPN 0x011b PSN 0x3a1f2c OUT 0x10 RKey 0x1fe4ee VAddr 0x007f1a2b3c4000\n"
    " remote address: LID 0x07 QPN 0x011c PSN 0x9b8a7d OUT 0x10 RKey 0x1fe5ef VAddr 0x007f5e6d7c8000\n"
    "---------------------------------------------------------------------------------------\n"
    " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
    " 2          1000             10.21              10.15              5.321785\n"
    " 65536      1000             11782.35           11780.02           0.188480\n"
    " 8388608    1000             11801.17           11800.90           0.001475\n"
    "---------------------------------------------------------------------------------------\n";

constexpr const char* kWriteLat =
    "                    RDMA_Write Latency Test\n"
    " Device         : mlx5_1\n"
    " Mtu             : 4096[B]\n"
    " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   "
    "99% percentile[usec]   99.9% percentile[usec]\n"
    " 2       1000          0.98           4.21         1.01               1.03           0.05            1.21    3.90\n";

PerftestImport read(const std::string& text) {
  auto r = import_perftest(text, "t.txt");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return *r;
}

// The only run of a one-run output.
PerftestRun only_run(const PerftestImport& imp) {
  REQUIRE(imp.runs.size() == 1);
  return imp.runs[0];
}
}  // namespace

TEST_CASE("case 065: a healthy duration-mode RDMA_Write run, peak 0 is not a fault") {
  auto imp = read(repo_text(kCase065));
  CHECK(imp.gaps.empty());
  auto run = only_run(imp);
  CHECK(run.test == "RDMA_Write BW Test");
  CHECK(run.setting("Device") == "mlx4_0");
  CHECK(run.setting("Link type") == "Ethernet");
  REQUIRE(run.rows.size() == 1);
  const auto& r = run.rows[0];
  CHECK(r.bytes == 65536);
  CHECK(r.iterations == 415500);
  CHECK(r.get("BW average") == doctest::Approx(36.31));
  CHECK(r.get("BW peak") == doctest::Approx(0.0));
  CHECK(r.get("MsgRate") == doctest::Approx(0.069247));
  auto data = perftest_data(imp);
  CHECK(data["mtu_B"] == 1024);
  CHECK(data["gid_index"] == 2);
  CHECK(data["duration_mode"] == true);
  CHECK(data["columns"][3]["unit"] == "Gb/sec");
  auto fs = perftest_findings(imp);
  for (const auto& f : fs) CHECK(f.severity < Severity::kWarn);  // must not: warn about 'peak'
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "perftest_peak_not_measured");
}

TEST_CASE("ib_read_bw -a, client side, MB/sec") {
  auto imp = read(kReadBwAll);
  CHECK(imp.gaps.empty());
  auto run = only_run(imp);
  CHECK(run.setting("Device") == "mlx5_0");
  CHECK(run.setting("Outstand reads") == "16");
  REQUIRE(run.rows.size() == 3);
  CHECK(run.rows[2].bytes == 8388608);
  CHECK(run.rows[1].get("BW average") == doctest::Approx(11780.02));
  CHECK(run.units[3] == "MB/sec");
  CHECK(perftest_findings(imp).empty());  // a healthy control
  CHECK(perftest_data(imp)["duration_mode"] == false);
}

TEST_CASE("a latency table") {
  auto imp = read(kWriteLat);
  auto run = only_run(imp);
  CHECK(run.latency);
  REQUIRE(run.rows.size() == 1);
  CHECK(run.rows[0].get("t_typical") == doctest::Approx(1.01));
  CHECK(run.rows[0].get("99.9% percentile") == doctest::Approx(3.90));
  CHECK(perftest_findings(imp).empty());
}

TEST_CASE("no result row and zero bandwidth warn") {
  auto none = perftest_findings(read("                    RDMA_Write BW Test\n Device         : mlx5_0\n"));
  REQUIRE(none.size() == 1);
  CHECK(none[0].code == "perftest_no_result");
  CHECK(none[0].severity == Severity::kWarn);
  auto zero = perftest_findings(read(std::string(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n") +
                                     " 65536      1000           0.00               0.00               0.000000\n"));
  REQUIRE(zero.size() == 1);
  CHECK(zero[0].code == "perftest_zero_bandwidth");
}

TEST_CASE("a cut last line is a gap") {
  std::string t = kReadBwAll;
  t = t.substr(0, t.find(" 8388608")) + " 8388608    1000             1180";
  auto imp = read(t);
  REQUIRE(imp.gaps.size() == 1);
  CHECK(imp.gaps[0].message.find("NOT READ") != std::string::npos);
  CHECK(only_run(imp).rows.size() == 2);
}

TEST_CASE("another tool's output is refused, and detection") {
  auto r = import_perftest("CA 'mlx5_0'\n\tCA type: MT4123\n", "ibstat.txt");
  REQUIRE_FALSE(r);
  CHECK(r.error().source == "ibstat.txt:1");
  CHECK(detect_tool_in_text(repo_text(kCase065)).tool == ToolText::kPerftest);
}

TEST_CASE("a later '#bytes' line of under 3 columns: its rows are not rows, no read past them") {
  // The fuzzer's find of 2026-12: "#bytes" alone set one column, and a one-word line was read
  // as a row with w[1] beyond it. The rows of the good header before it stay.
  auto imp = read(std::string(kReadBwAll) + "#bytes\n65536\n65536 1000\n");
  auto run = only_run(imp);
  REQUIRE(run.rows.size() == 3);
  CHECK(run.rows[2].bytes == 8388608);
}
