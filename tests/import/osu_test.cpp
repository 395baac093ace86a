// OSU micro-benchmarks import: fixtures from public pastes (tests/fixtures/osu/SOURCES.md) and
// made-up variants: a missing "# Size" header, a validation failure, another tool's text.
#include <doctest/doctest.h>

#include "import/format_detect.h"
#include "import/osu.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {

OsuImport read_osu(const std::string& rel) {
  auto r = import_osu(repo_text("tests/fixtures/osu/" + rel), rel);
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return std::move(*r);
}

}  // namespace

TEST_CASE("osu_bw -d cuda D D v7.2: title, buffers, datatype, MB/s in bytes/s") {
  auto imp = read_osu("bw-cuda-v7.2-a100-nvlink.txt");
  CHECK(imp.gaps.empty());
  REQUIRE(imp.tests.size() == 1);
  const auto& t = imp.tests[0];
  CHECK(t.benchmark == "Bandwidth");
  CHECK(t.accelerator == "CUDA");
  CHECK(t.version == "7.2");
  CHECK(t.datatype == "MPI_CHAR");
  CHECK(t.buffers == "Send Buffer on DEVICE (D) and Receive Buffer on DEVICE (D)");
  CHECK(t.kind() == "bandwidth");
  REQUIRE(t.rows.size() == 26);
  CHECK(t.rows.back().size_bytes == 33554432);
  CHECK(t.rows.back().get("Bandwidth (MB/s)") == doctest::Approx(93130.52));
  auto data = osu_data(imp);
  CHECK(data["tests"][0]["results"][25]["bandwidth_bytes_per_s"].get<double>() == doctest::Approx(93130.52e6));
  CHECK(imp.lines_passed_over == 1);  // the "$ mpirun" line
  // NVLink between two A100s, 93 GB/s: healthy without a rate; with a 400 Gb/s port it is above 90%.
  CHECK(osu_findings(imp, std::nullopt).empty());
  CHECK(osu_findings(imp, 400.0).empty());
  // Judged against 1600 Gb/s (200 GB/s) it is 47%: below the line rate, with the figures.
  auto fs = osu_findings(imp, 1600.0);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "osu_bandwidth_below_line_rate");
  CHECK(fs[0].evidence[0].value == doctest::Approx(93130.52e6));
  CHECK(fs[0].evidence[0].threshold == doctest::Approx(0.9 * 200e9));
  CHECK(fs[0].message.find("47%") != std::string::npos);
  CHECK(fs[0].evidence[0].source == "bw-cuda-v7.2-a100-nvlink.txt:31");
}

TEST_CASE("osu_reduce -f v7.3 cut mid-row: full columns, the cut last line is a gap") {
  auto imp = read_osu("reduce-cuda-full-v7.3-cut.txt");
  REQUIRE(imp.tests.size() == 1);
  const auto& t = imp.tests[0];
  CHECK(t.benchmark == "Reduce Latency");
  CHECK(t.kind() == "latency");
  CHECK(t.columns == std::vector<std::string>{"Avg Latency(us)", "Min Latency(us)", "Max Latency(us)", "Iterations"});
  REQUIRE(t.rows.size() == 11);
  CHECK(t.rows[0].get("Min Latency(us)") == doctest::Approx(24.80));
  CHECK(t.rows[10].get("Iterations") == doctest::Approx(1000));
  REQUIRE(imp.gaps.size() == 1);
  CHECK(imp.gaps[0].source == "reduce-cuda-full-v7.3-cut.txt:17");
  auto r = osu_data(imp)["tests"][0]["results"][0];
  CHECK(r["latency_avg_s"].get<double>() == doctest::Approx(53.34e-6));
  CHECK(r["latency_max_s"].get<double>() == doctest::Approx(158.96e-6));
  CHECK(r["iterations"].get<double>() == 1000);
}

TEST_CASE("osu_latency v5.0 under srun: the old 'Latency (us)' column") {
  auto imp = read_osu("latency-v5.0-srun.txt");
  CHECK(imp.gaps.empty());
  REQUIRE(imp.tests.size() == 1);
  CHECK(imp.tests[0].version == "5.0");
  CHECK(imp.tests[0].accelerator.empty());
  REQUIRE(imp.tests[0].rows.size() == 24);
  CHECK(osu_data(imp)["tests"][0]["results"][23]["latency_avg_s"].get<double>() == doctest::Approx(497.37e-6));
  CHECK(osu_findings(imp, 100.0).empty());  // latency: not judged against a line rate
}

TEST_CASE("two ROCm runs in one file: two tests, banner lines passed over, the small-size dip not judged") {
  auto imp = read_osu("bw-rocm-v7.5-two-pairs.txt");
  REQUIRE(imp.tests.size() == 2);
  CHECK(imp.tests[0].accelerator == "ROCM");
  CHECK(imp.tests[0].rows.size() == 28);
  CHECK(imp.tests[1].rows.size() == 7);
  CHECK(imp.lines_passed_over == 3);
  // 1165 -> 206 MB/s at 2048 B is the eager/rendezvous switch, below 64 KiB: no drop finding.
  CHECK(osu_findings(imp, std::nullopt).empty());
}

TEST_CASE("osu_mbw_mr with its last row cut to one value: a gap, the rows before read") {
  auto imp = read_osu("mbw-mr-v5.7.1-48pairs-cut-row.txt");
  REQUIRE(imp.tests.size() == 1);
  CHECK(imp.tests[0].benchmark == "Multiple Bandwidth / Message Rate");
  CHECK(imp.tests[0].columns == std::vector<std::string>{"MB/s", "Messages/s"});
  CHECK(imp.tests[0].rows.size() == 12);
  REQUIRE(imp.gaps.size() == 1);
  CHECK(imp.gaps[0].source == "mbw-mr-v5.7.1-48pairs-cut-row.txt:16");
  CHECK(osu_data(imp)["tests"][0]["results"][11]["messages_per_s"].get<double>() == doctest::Approx(48514205.09));
}

TEST_CASE("mpirun --tag-output: osu_bibw, osu_allreduce -f and osu_alltoall in one file") {
  auto imp = read_osu("tagged-bibw-allreduce-alltoall-constructed.txt");
  CHECK(imp.gaps.empty());
  REQUIRE(imp.tests.size() == 3);
  CHECK(imp.tests[0].benchmark == "Bi-Directional Bandwidth");
  CHECK(imp.tests[0].directions() == 2);
  CHECK(imp.tests[1].benchmark == "Allreduce Latency");
  CHECK(imp.tests[1].rows.size() == 3);
  CHECK(imp.tests[2].benchmark == "All-to-All Personalized Exchange Latency");
  CHECK(imp.tests[2].rows[2].get("Avg Latency(us)") == doctest::Approx(13605.77));
  // bibw 20.8 GB/s over a 100 Gb/s port both ways (25 GB/s): 83%, below 90%.
  auto fs = osu_findings(imp, 100.0);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "osu_bandwidth_below_line_rate");
  CHECK(fs[0].evidence[0].threshold == doctest::Approx(0.9 * 25e9));
  CHECK(fs[0].message.find("both directions") != std::string::npos);
  CHECK(osu_findings(imp, 50.0).empty());  // 20.8 of 12.5 GB/s both ways: fine
}

TEST_CASE("a table without its '# Size' header is read by its title, validation Fail is an error") {
  auto r = import_osu(
      "# OSU MPI-CUDA Bandwidth Test v7.4\n"
      "65536                15294.18\n"
      "1048576              73675.19\n"
      "4194304              20100.00\n"
      "# OSU MPI Allreduce Latency Test v7.4\n"
      "# Size       Avg Latency(us)        Validation\n"
      "4                       4.41              Pass\n"
      "8                       4.52              Fail\n",
      "x.txt");
  REQUIRE(r);
  REQUIRE(r->tests.size() == 2);
  CHECK(r->tests[0].header_inferred);
  CHECK(r->tests[0].rows.size() == 3);
  REQUIRE(r->tests[1].rows.size() == 2);
  CHECK(r->tests[1].rows[1].validation_passed == false);
  auto fs = osu_findings(*r, std::nullopt);
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].code == "osu_bandwidth_drop");  // 73.7 GB/s at 1 MiB, 20.1 GB/s at 4 MiB
  CHECK(fs[0].evidence[0].source == "x.txt:4");
  CHECK(fs[1].code == "osu_validation_failed");
  CHECK(fs[1].severity == Severity::kError);
}

TEST_CASE("a title without rows is no result, another tool's text is refused") {
  auto r = import_osu("# OSU MPI Latency Test v7.3\n# Size       Avg Latency(us)\n", "y.txt");
  REQUIRE(r);
  auto fs = osu_findings(*r, std::nullopt);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "osu_no_result");
  auto bad = import_osu("CA 'mlx5_0'\n\tCA type: MT4123\n", "z.txt");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().source == "z.txt:1");
  CHECK_FALSE(import_osu("1  2.0\n4  8.0\n", "rows-only.txt"));  // a number table is nobody's
}

TEST_CASE("detection: OSU titles and headers are positive evidence") {
  CHECK(detect_tool_in_text(repo_text("tests/fixtures/osu/bw-cuda-v7.2-a100-nvlink.txt")).tool == ToolText::kOsu);
  CHECK(detect_tool_in_text(repo_text("tests/fixtures/osu/tagged-bibw-allreduce-alltoall-constructed.txt")).tool ==
        ToolText::kOsu);
  CHECK(detect_tool_in_text("# Size       Avg Latency(us)\n4  1.0\n").tool == ToolText::kOsu);
  CHECK(detect_tool_in_text("# Size  Count\n4 1\n").tool == ToolText::kUnknown);
}

TEST_CASE("a test run in a loop: past --max-findings the tests are summarised, memory follows the listed ones") {
  std::string one = repo_text("tests/fixtures/osu/bw-cuda-v7.2-a100-nvlink.txt");
  std::string text;
  for (int i = 0; i < 3000; ++i) text += one;  // about 3000 runs (several MB)
  auto lines = text_line_source(std::move(text));
  auto r = import_osu(*lines, "loop.txt", ReadLimits{10});
  REQUIRE(r);
  CHECK(r->tests.size() == 10);  // the fixture is healthy: no test kept for a finding
  CHECK(r->not_listed.tests == 2990);
  REQUIRE_FALSE(r->not_listed.sizes.empty());
  CHECK(r->not_listed.sizes.size() == r->tests[0].rows.size());  // one entry per size, not per run
  CHECK(r->not_listed.sizes[0].runs == 2990);
  CHECK(osu_data(*r).contains("tests_not_listed"));
}
