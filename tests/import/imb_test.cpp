// Intel MPI Benchmarks import: fixtures from public pastes (tests/fixtures/imb/SOURCES.md) and
// made-up variants: several benchmarks with the banner and MPI_Finalize, -check defects, another
// tool's text.
#include <doctest/doctest.h>

#include "import/format_detect.h"
#include "import/imb.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {

ImbImport read_imb(const std::string& rel) {
  auto r = import_imb(repo_text("tests/fixtures/imb/" + rel), rel);
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return std::move(*r);
}

constexpr const char* kTwoBenchmarks =
    "#------------------------------------------------------------\n"
    "#    Intel(R) MPI Benchmarks 2021.3, MPI-1 part\n"
    "#------------------------------------------------------------\n"
    "# List of Benchmarks to run:\n"
    "# PingPong\n"
    "# Allreduce\n"
    "#---------------------------------------------------\n"
    "# Benchmarking PingPong\n"
    "# #processes = 2\n"
    "#---------------------------------------------------\n"
    "       #bytes #repetitions      t[usec]   Mbytes/sec\n"
    "            0         1000         1.02         0.00\n"
    "      1048576           40        95.10     11026.08\n"
    "      4194304           10       370.00     11335.96\n"
    "#----------------------------------------------------------------\n"
    "# Benchmarking Allreduce\n"
    "# #processes = 4\n"
    "#----------------------------------------------------------------\n"
    "       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]\n"
    "            0         1000         0.03         0.04         0.03\n"
    "      4194304           10      1520.11      1733.80      1611.27\n"
    "\n"
    "\n"
    "# All processes entering MPI_Finalize\n";

}  // namespace

TEST_CASE("IMB 4.1 PingPong under MVAPICH2: Mbyte of 2^20 bytes, told by the rows") {
  auto imp = read_imb("pingpong-mvapich2-connectx3-4.1.txt");
  CHECK(imp.gaps.empty());  // no banner: a fragment, not a cut run
  REQUIRE(imp.benchmarks.size() == 1);
  const auto& b = imp.benchmarks[0];
  CHECK(b.name == "PingPong");
  CHECK(b.processes == 2);
  REQUIRE(b.rows.size() == 20);
  CHECK(b.mbyte_inferred);
  CHECK(b.mbyte_bytes == 1048576);
  auto r = imb_data(imp)["benchmarks"][0]["results"][19];
  CHECK(r["size_bytes"] == 262144);
  CHECK(r["repetitions"] == 160);
  CHECK(r["time_s"].get<double>() == doctest::Approx(48.82e-6));
  CHECK(r["bandwidth_bytes_per_s"].get<double>() == doctest::Approx(5121.09 * 1048576));
  CHECK(imb_findings(imp, 100.0).empty());  // stops at 256 KiB: below the 1 MiB the line rate is judged from
}

TEST_CASE("Sendrecv and Exchange pasted without titles: names from the lines before, the drop at 1 MiB") {
  auto imp = read_imb("sendrecv-exchange-hdr100-drop.txt");
  CHECK(imp.gaps.empty());
  REQUIRE(imp.benchmarks.size() == 2);
  CHECK(imp.benchmarks[0].name == "Sendrecv");
  CHECK(imp.benchmarks[1].name == "Exchange");
  CHECK(imp.benchmarks[0].rows.size() == 5);  // the rows with a hand note read too
  CHECK(imp.benchmarks[0].mbyte_bytes == 1e6);
  CHECK(imp.benchmarks[0].mbyte_inferred);
  CHECK(imp.benchmarks[0].directions() == 2);
  auto fs = imb_findings(imp, std::nullopt);
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].code == "imb_bandwidth_drop");
  CHECK(fs[0].subject == "IMB Sendrecv");
  CHECK(fs[0].evidence[0].value == doctest::Approx(8107.16e6));
  CHECK(fs[0].evidence[0].threshold == doctest::Approx(0.5 * 17616.61e6));
  CHECK(fs[0].evidence[0].source == "sendrecv-exchange-hdr100-drop.txt:6");
  CHECK(fs[1].subject == "IMB Exchange");
  // HDR100 both ways is 25 GB/s: Sendrecv's best from 1 MiB (8.1 GB/s) is far below.
  auto with_rate = imb_findings(imp, 100.0);
  CHECK(with_rate.size() == 4);
  CHECK(with_rate[0].code == "imb_bandwidth_below_line_rate");
  CHECK(with_rate[0].evidence[0].threshold == doctest::Approx(0.9 * 25e9));
}

TEST_CASE("a collective's t_min/t_max/t_avg table (Reduce, no banner)") {
  auto imp = read_imb("reduce-ompi-4.1.2-cut.txt");
  CHECK(imp.gaps.empty());
  REQUIRE(imp.benchmarks.size() == 1);
  CHECK(imp.benchmarks[0].name == "Reduce");
  REQUIRE(imp.benchmarks[0].rows.size() == 12);
  auto r = imb_data(imp)["benchmarks"][0]["results"][11];
  CHECK(r["size_bytes"] == 4096);
  CHECK(r["time_min_s"].get<double>() == doctest::Approx(0.42e-6));
  CHECK(r["time_max_s"].get<double>() == doctest::Approx(2.93e-6));
  CHECK(r["time_s"].get<double>() == doctest::Approx(1.67e-6));  // t_avg
  CHECK(imb_findings(imp, 400.0).empty());
}

TEST_CASE("a Jenkins log: clocks dropped, the waiting processes kept") {
  auto imp = read_imb("pingping-jenkins-clock.txt");
  REQUIRE(imp.benchmarks.size() == 1);
  CHECK(imp.benchmarks[0].name == "PingPingSpecificSource");
  CHECK(imp.benchmarks[0].waiting == "2 additional processes waiting in MPI_Barrier");
  CHECK(imp.benchmarks[0].rows.size() == 14);
  CHECK(imp.benchmarks[0].mbyte_bytes == 1e6);
}

TEST_CASE("IMB-IO cut mid-row: the banner read, the cut line and the missing MPI_Finalize are gaps") {
  auto imp = read_imb("io-2021.8-banner-cut.txt");
  CHECK(imp.release == "2021.8");
  CHECK(imp.part == "MPI-IO");
  CHECK_FALSE(imp.finalized);
  REQUIRE(imp.benchmarks.size() == 1);
  CHECK(imp.benchmarks[0].processes == 1);
  CHECK(imp.benchmarks[0].rows.size() == 1);
  REQUIRE(imp.gaps.size() == 2);
  CHECK(imp.gaps[0].source == "io-2021.8-banner-cut.txt:41");
  CHECK(imp.gaps[1].message.find("MPI_Finalize") != std::string::npos);
  CHECK(imp.gaps[1].source == "io-2021.8-banner-cut.txt:40");
}

TEST_CASE("the banner, two benchmarks and MPI_Finalize: whole, the line rate judged from 1 MiB") {
  auto r = import_imb(kTwoBenchmarks, "run.txt");
  REQUIRE(r);
  CHECK(r->gaps.empty());
  CHECK(r->finalized);
  CHECK(r->release == "2021.3");
  CHECK(r->part == "MPI-1");
  REQUIRE(r->benchmarks.size() == 2);
  CHECK(r->benchmarks[1].processes == 4);
  CHECK(imb_findings(*r, 100.0).empty());  // 11.3 GB/s of 12.5: 91%
  auto fs = imb_findings(*r, 200.0);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "imb_bandwidth_below_line_rate");
  CHECK(fs[0].evidence[0].source == "run.txt:14");
  CHECK(fs[0].subject == "IMB PingPong (2 processes)");
}

TEST_CASE("-check defects, a block without rows, another tool's text") {
  auto r = import_imb(
      "# Benchmarking Allreduce\n"
      "# #processes = 2\n"
      "       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]   defects\n"
      "            4         1000         1.45         1.86         1.64         0.00\n"
      "            8         1000         1.47         1.88         1.66         3.00\n"
      "# Benchmarking Bcast\n"
      "# #processes = 2\n",
      "chk.txt");
  REQUIRE(r);
  auto fs = imb_findings(*r, std::nullopt);
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].code == "imb_defects");
  CHECK(fs[0].severity == Severity::kError);
  CHECK(fs[0].evidence[1].source == "chk.txt:5");
  CHECK(fs[1].code == "imb_no_result");
  auto bad = import_imb("hca_id:\tmlx5_0\n", "x.txt");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().source == "x.txt:1");
}

TEST_CASE("detection: IMB's banner, titles and header are positive evidence") {
  CHECK(detect_tool_in_text(kTwoBenchmarks).tool == ToolText::kImb);
  CHECK(detect_tool_in_text(repo_text("tests/fixtures/imb/sendrecv-exchange-hdr100-drop.txt")).tool == ToolText::kImb);
  CHECK(detect_tool_in_text(repo_text("tests/fixtures/imb/pingpong-mvapich2-connectx3-4.1.txt")).tool == ToolText::kImb);
  // perftest's "#bytes #iterations" stays perftest's
  CHECK(detect_tool_in_text(" #bytes #iterations  BW peak[Gb/sec]  BW average[Gb/sec]\n").tool == ToolText::kPerftest);
}

TEST_CASE("a run repeated many times: past --max-findings the blocks are summarised, memory follows the listed ones") {
  std::string one = repo_text("tests/fixtures/imb/pingpong-mvapich2-connectx3-4.1.txt");
  std::string text;
  for (int i = 0; i < 2000; ++i) text += one;
  auto lines = text_line_source(std::move(text));
  auto r = import_imb(*lines, "loop.txt", ReadLimits{5});
  REQUIRE(r);
  CHECK(r->benchmarks.size() <= 10);  // 5 listed, at most 5 more kept for a finding of their own
  CHECK(r->benchmarks.size() + r->not_listed.tests >= 2000);
  REQUIRE_FALSE(r->not_listed.sizes.empty());
  CHECK(r->not_listed.sizes.size() < 100);  // per title and size, not per run
  CHECK(imb_data(*r).contains("benchmarks_not_listed"));
}
