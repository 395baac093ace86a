// show_gids import: a RoCE host with a healthy port, a port without IPv4, a v1-only port and an
// InfiniBand port; a `grep v2` fragment with a cut last line; a count that does not match;
// pdsh prefixes; another tool's text and detection.
#include <doctest/doctest.h>

#include "import/format_detect.h"
#include "import/show_gids.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kMixed = "tests/fixtures/show-gids/roce-host-mixed.txt";
constexpr const char* kGrepCut = "tests/fixtures/show-gids/grep-v2-cut.txt";

ShowGidsImport read(const std::string& text) {
  auto r = import_show_gids(text, "t.txt");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return *r;
}
}  // namespace

TEST_CASE("a RoCE host: GIDs per port, the NCCL GID index, v1-only and no-IPv4 ports warn") {
  auto imp = read(repo_text(kMixed));
  CHECK(imp.gaps.empty());
  CHECK(imp.header);
  CHECK(imp.n_gids_found == 9);
  REQUIRE(imp.entries.size() == 9);
  CHECK(imp.entries[3].index == 3);
  CHECK(imp.entries[3].ipv4 == "10.64.1.17");
  CHECK(imp.entries[3].version == "v2");
  CHECK(imp.entries[3].netdev == "ens1f0np0");
  CHECK(imp.entries[0].ipv4.empty());
  auto ports = show_gids_ports(imp);
  REQUIRE(ports.size() == 4);
  CHECK(ports[0].v2_ipv4_index == 3u);
  CHECK_FALSE(ports[1].v2_ipv4_index);
  CHECK(ports[3].infiniband);
  CHECK_FALSE(ports[2].infiniband);
  auto fs = show_gids_findings(imp);
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].code == "show_gids_no_ipv4_v2");
  CHECK(fs[0].subject == "mlx5_1/1");
  CHECK(fs[0].message.find("NCCL_IB_GID_INDEX") != std::string::npos);
  CHECK(fs[0].evidence[0].value_text == "0 v1, 1 v2");
  CHECK(fs[0].evidence[0].source == "t.txt:7");
  CHECK(fs[1].code == "show_gids_roce_v1_only");
  CHECK(fs[1].subject == "mlx5_2/1");
  CHECK(fs[1].severity == Severity::kWarn);
  auto data = show_gids_data(imp);
  CHECK(data["ports"][0]["nccl_gid_index"] == 3);
  CHECK(data["ports"][1]["nccl_gid_index"].is_null());
  CHECK(data["ports"][3]["infiniband"] == true);
  CHECK(data["gids_read"] == 9);
}

TEST_CASE("a `grep v2` fragment without header, its cut last line a gap") {
  auto imp = read(repo_text(kGrepCut));
  CHECK_FALSE(imp.header);
  CHECK(imp.entries.size() == 3);
  REQUIRE(imp.gaps.size() == 1);
  CHECK(imp.gaps[0].message.find("NOT READ") != std::string::npos);
  CHECK(imp.gaps[0].source == "t.txt:4");
  auto fs = show_gids_findings(imp);
  REQUIRE(fs.size() == 1);  // mlx5_1: v2 link-local only
  CHECK(fs[0].code == "show_gids_no_ipv4_v2");
}

TEST_CASE("n_gids_found that does not match the rows is a gap, pdsh hosts") {
  auto imp = read("h1: mlx5_0\t1\t3\t0000:0000:0000:0000:0000:ffff:c0a8:0101\t192.168.1.1 \tv2\teth2\n"
                  "h2: mlx5_0\t1\t0\tfe80:0000:0000:0000:0a00:00ff:fe00:0001\t\t\tv1\teth2\n"
                  "h1: n_gids_found=2\n");
  CHECK(imp.gaps.empty());
  CHECK(imp.n_gids_found == 2);
  imp = read("h1: mlx5_0\t1\t3\t0000:0000:0000:0000:0000:ffff:c0a8:0101\t192.168.1.1 \tv2\teth2\n"
             "h2: mlx5_0\t1\t0\tfe80:0000:0000:0000:0a00:00ff:fe00:0001\t\t\tv1\teth2\n"
             "h1: n_gids_found=5\n");
  REQUIRE(imp.gaps.size() == 1);
  CHECK(imp.gaps[0].message.find("n_gids_found=5 but 2 GID row(s)") != std::string::npos);
  CHECK(imp.gaps[0].source == "t.txt:3");
  auto fs = show_gids_findings(imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].subject == "h2 mlx5_0/1");
  CHECK(fs[0].code == "show_gids_roce_v1_only");
}

TEST_CASE("another tool's output is refused, and detection") {
  auto r = import_show_gids("hca_id:\tmlx5_0\n\ttransport:\tInfiniBand (0)\n", "devinfo.txt");
  REQUIRE_FALSE(r);
  CHECK(r.error().source == "devinfo.txt:1");
  CHECK(detect_tool_in_text(repo_text(kMixed)).tool == ToolText::kShowGids);
  CHECK(detect_tool_in_text(repo_text(kGrepCut)).tool == ToolText::kShowGids);
  CHECK(marker_of_line("n_gids_found=4") == ToolText::kShowGids);
}

TEST_CASE("a host's table pasted many times (a loop): one entry per GID, the rows counted") {
  std::string one = repo_text(kMixed), text;
  for (int i = 0; i < 3000; ++i) text += one;
  auto once = read(one);
  auto imp = read(text);
  CHECK(imp.entries.size() == once.entries.size());
  CHECK(imp.rows == 3000 * once.rows);
  CHECK(imp.repeated == imp.rows - once.rows);
  CHECK(show_gids_findings(imp).size() == show_gids_findings(once).size());
}
