// mpiGraph import: fixtures built from mpiGraph.c's printing code (tests/fixtures/mpigraph/
// SOURCES.md): a whole 6-node run with one slow node, the same run pasted with tags and cut.
#include <doctest/doctest.h>

#include <cmath>

#include "import/format_detect.h"
#include "import/mpigraph.h"
#include "perf/pairwise_analysis.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

TEST_CASE("mpiGraph 6 nodes: preamble, both tables, the Send matrix in bytes/s, node05 slow") {
  auto r = import_mpigraph(repo_text("tests/fixtures/mpigraph/6node-node05-slow.out"), "g.out");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  CHECK(r->gaps.empty());
  CHECK(r->version == "1.5");
  CHECK(r->msg_size_bytes == 1048576u);
  CHECK(r->times == 10);
  CHECK(r->procs == 6);
  CHECK(r->ended);
  CHECK(r->send.rows_read == 6);
  CHECK(r->recv.rows_read == 6);
  CHECK(r->send.max_mb_per_s == doctest::Approx(11238.127553));
  CHECK(r->matrix_from == "send");
  REQUIRE(r->matrix.hosts.size() == 6);
  CHECK(r->matrix.hosts[4] == "node05");
  CHECK(std::isnan(r->matrix.matrix_bytes_per_s[0][0]));  // 0.000 on the diagonal: not measured
  CHECK(r->matrix.matrix_bytes_per_s[0][1] == doctest::Approx(10911.916 * 1048576));
  CHECK(r->matrix.matrix_bytes_per_s[0][4] == doctest::Approx(5410.765 * 1048576));
  auto t = perf::fabric_thresholds();
  auto a = perf::analyze_pairwise(r->matrix, t);
  auto fs = perf::pairwise_findings(r->matrix, a, t);
  REQUIRE_FALSE(fs.empty());
  CHECK(fs[0].code == "slow_node");
  CHECK(fs[0].subject.find("node05") != std::string::npos);
  for (const auto& f : fs) CHECK(f.subject.find("node01") == std::string::npos);  // must not: blame a partner
}

TEST_CASE("mpiGraph pasted: blanks for tabs, mpirun tags, cut in the Send table") {
  auto r = import_mpigraph(repo_text("tests/fixtures/mpigraph/pasted-tagged-cut.out"), "p.out");
  REQUIRE(r);
  CHECK(r->send.rows_read == 2);
  CHECK(r->recv.rows_read == 0);
  CHECK_FALSE(r->ended);
  REQUIRE(r->gaps.size() == 3);  // the cut line, the 4 Send rows missing, no END
  CHECK(r->gaps[1].message.find("2 of 6 rows") != std::string::npos);
  CHECK(r->matrix.matrix_bytes_per_s[1][0] == doctest::Approx(10778.999 * 1048576));
  CHECK(std::isnan(r->matrix.matrix_bytes_per_s[2][0]));  // the cut row: unknown, not zero
}

TEST_CASE("mpiGraph: the Recv table alone is transposed, no table is refused") {
  auto r = import_mpigraph(
      "Recv\ta:0\tb:1\t\n"
      "a:0 from\t0.000\t900.000\t\n"
      "b:1 from\t1000.000\t0.000\t\n",
      "r.out");
  REQUIRE(r);
  CHECK(r->matrix_from == "recv");
  CHECK(r->matrix.matrix_bytes_per_s[1][0] == doctest::Approx(900.0 * 1048576));  // a received from b: b -> a
  CHECK(r->matrix.matrix_bytes_per_s[0][1] == doctest::Approx(1000.0 * 1048576));
  auto bad = import_mpigraph("START mpiGraph v1.5\nMsgSize\t1048576\n", "s.out");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("mpiGraph") != std::string::npos);
}

TEST_CASE("detection: mpiGraph's START line and max lines") {
  CHECK(detect_tool_in_text(repo_text("tests/fixtures/mpigraph/6node-node05-slow.out")).tool == ToolText::kMpiGraph);
  CHECK(detect_tool_in_text(repo_text("tests/fixtures/mpigraph/pasted-tagged-cut.out")).tool == ToolText::kMpiGraph);
}
