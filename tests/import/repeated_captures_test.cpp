// Readers whose input repeats its records (many captures, runs or matrices in one file, as
// scripts/bench_inputs.py builds them): what they keep follows the distinct records, not the
// file (docs/ARCHITECTURE.md#import-memory). ibportstate and nvue-interface: a block read again
// replaces the earlier one (import/latest_records.h); perftest: runs past the listing bound are
// judged as they finish and summarised (BenchNotListed); nvidia-smi topo -m: a matrix read again
// replaces the earlier one.
#include <doctest/doctest.h>

#include <string>

#include "import/ibportstate.h"
#include "import/nvsmi_topo.h"
#include "import/nvue_interface.h"
#include "import/perftest.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {

std::string times(const std::string& text, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += text;
  return out;
}

size_t lines_in(const std::string& text) {
  size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

bool has_code(const std::vector<Finding>& fs, const std::string& code) {
  for (const auto& f : fs)
    if (f.code == code) return true;
  return false;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

}  // namespace

TEST_CASE("ibportstate: the same port queried three times is one record, the last capture's") {
  const std::string query = repo_text("tests/fixtures/ibportstate/ca-query-fdr.txt");
  // The first two captures: the link down; the last: Active at 4X.
  std::string down = replace_all(query, "LinkState:.......................Active", "LinkState:.......................Down");
  down = replace_all(down, "LinkWidthActive:.................4X", "LinkWidthActive:.................1X");
  auto r = import_ibportstate(down + down + query, "three.txt");
  REQUIRE(r);
  REQUIRE(r->ports.size() == 1);
  CHECK(r->repeated == 2);
  const IbPortInfo& p = r->ports[0];
  CHECK(p.link_state == "Active");
  REQUIRE(p.width_active.has_value());
  CHECK(*p.width_active == 4);
  CHECK(p.line == 2 * lines_in(query) + 3);  // the last capture's "# Port info:" line
  CHECK(p.fdr10_supported);                   // the MLNX ext bits, settled per block
  CHECK(p.speed_supported_gbps.back() == doctest::Approx(14.0625));
  // The earlier fault is replaced by the healthy capture, as the LatestRecords readers do.
  CHECK_FALSE(has_code(ibportstate_findings(*r), "ib_port_not_active"));
  CHECK(ibportstate_data(*r)["records_repeated"] == 2);
}

TEST_CASE("ibportstate: a switch port and its peer read twice keep their pairing and the warning once") {
  std::string sw = repo_text("tests/fixtures/ibportstate/pdsh-switch-peer-degraded-cut.txt");
  sw = sw.substr(0, sw.find("node07: Switch PortInfo:\nnode07: # Port info: Lid 14 port 11"));  // the whole query
  auto once = import_ibportstate(sw, "once.txt");
  auto twice = import_ibportstate(sw + sw, "twice.txt");
  REQUIRE(once);
  REQUIRE(twice);
  REQUIRE(once->ports.size() == 2);
  REQUIRE(twice->ports.size() == 2);
  CHECK(twice->ports[1].role == "peer");
  CHECK(twice->ports[1].node_kind == "CA/RT");
  CHECK(twice->warnings.size() == 1);
  CHECK(twice->repeated == 3);  // two blocks and the warning
  CHECK(ibportstate_findings(*twice).size() == ibportstate_findings(*once).size());
  CHECK(has_code(ibportstate_findings(*twice), "ib_port_width_degraded"));
}

namespace {
constexpr const char* kHeader =
    " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n";

std::string bw_run(const std::string& avg) {
  return std::string("---------------------------------------------------------------------------------------\n"
                     "                    RDMA_Read BW Test\n"
                     " Device         : mlx5_0\n") +
         kHeader + " 65536      1000             11782.35           " + avg + "           0.188480\n";
}
}  // namespace

TEST_CASE("perftest: runs past the bound are summarised, the warned ones counted and the worst named") {
  const std::string healthy = bw_run("11780.02"), zero = bw_run("0.00");
  const std::string no_result = "                    RDMA_Read BW Test\n Device         : mlx5_0\n";
  // max_listed 1: run 1 listed; run 2 (zero) kept for its warning; runs 3 to 5 summarised.
  const std::string text = healthy + zero + healthy + no_result + zero;
  auto lines = text_line_source(text);
  auto r = import_perftest(*lines, "runs.txt", ReadLimits{1});
  REQUIRE(r);
  REQUIRE(r->runs.size() == 2);
  CHECK(r->runs[0].rows[0].get("BW average") == doctest::Approx(11780.02));
  CHECK(r->runs[1].rows[0].get("BW average") == doctest::Approx(0.0));
  CHECK(r->not_listed.tests == 3);
  CHECK(r->not_listed_warned == 2);
  // The worst of the warned runs: the one with no row at all, at its title line.
  const size_t no_result_line = lines_in(healthy + zero + healthy) + 1;
  CHECK(r->worst_not_listed.line == no_result_line);
  CHECK_FALSE(r->worst_not_listed.value.has_value());
  REQUIRE(r->not_listed.sizes.size() == 1);
  const BenchRepeat& size = r->not_listed.sizes[0];
  CHECK(size.title == "RDMA_Read BW Test");
  CHECK(size.column == "BW average");
  CHECK(size.size_bytes == 65536);
  CHECK(size.runs == 2);
  CHECK(size.min == doctest::Approx(0.0));
  CHECK(size.max == doctest::Approx(11780.02));
  auto fs = perftest_findings(*r);
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].code == "perftest_zero_bandwidth");
  CHECK(fs[1].code == "perftest_runs_not_listed_warned");
  CHECK(fs[1].message.find("runs.txt:" + std::to_string(no_result_line)) != std::string::npos);
  auto data = perftest_data(*r);
  CHECK(data["later_runs"].size() == 1);
  CHECK(data["runs_not_listed"]["tests"] == 3);
  CHECK(data["runs_not_listed"]["warned"] == 2);
}

TEST_CASE("perftest: many healthy runs keep the bound, every run counted") {
  auto lines = text_line_source(times(bw_run("11780.02"), 50));
  auto r = import_perftest(*lines, "many.txt", ReadLimits{4});
  REQUIRE(r);
  CHECK(r->runs.size() == 4);
  CHECK(r->not_listed.tests == 46);
  CHECK(r->not_listed_warned == 0);
  REQUIRE(r->not_listed.sizes.size() == 1);
  CHECK(r->not_listed.sizes[0].runs == 46);
  CHECK(perftest_findings(*r).empty());
  // A second header after rows, without a title, is a run too.
  auto two = import_perftest(std::string(kHeader) + " 2  1000  10.21  10.15  5.3\n" + kHeader + " 4  1000  20.1  20.0  5.2\n",
                             "two.txt");
  REQUIRE(two);
  CHECK(two->runs.size() == 2);
}

TEST_CASE("nvidia-smi topo -m: a matrix read three times is one matrix, no extra gaps") {
  const std::string m = repo_text("tests/fixtures/nvidia-smi-topo/hgx8-4nic-tabs.txt");
  auto once = parse_nvsmi_topo(m, "once.txt");
  auto thrice = parse_nvsmi_topo(times(m, 3), "thrice.txt");
  REQUIRE(once);
  REQUIRE(thrice);
  CHECK(thrice->columns.size() == 12);
  CHECK(thrice->rows.size() == once->rows.size());
  CHECK(thrice->gaps.size() == once->gaps.size());
  CHECK(thrice->nic_legend.size() == 4);
  CHECK(thrice->matrices_replaced == 2);
  CHECK(thrice->rows[0].line == 2 * lines_in(m) + 2);  // the last matrix's GPU0 row
  // An earlier matrix cut short is replaced by the whole one: no "second row", no missing row.
  std::string cut = m.substr(0, m.find("\nGPU3") + 1);
  auto after_cut = parse_nvsmi_topo(cut + m, "cut.txt");
  REQUIRE(after_cut);
  CHECK(after_cut->rows.size() == 12);
  CHECK(after_cut->gaps.empty());
}

TEST_CASE("nvue --view=counters read three times: each command named once, the ports once") {
  const std::string v = repo_text("tests/fixtures/nvue-interface/view-counters.txt");
  auto once = import_nvue_interface(v, "once.txt");
  auto thrice = import_nvue_interface(times(v, 3), "thrice.txt");
  REQUIRE(once);
  REQUIRE(thrice);
  CHECK(thrice->commands.size() == 1);
  CHECK(thrice->commands_repeated == 2);
  CHECK(thrice->ports.size() == once->ports.size());
  CHECK(nvue_interface_data(*thrice)["commands_repeated"] == 2);
}
