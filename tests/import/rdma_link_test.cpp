// `rdma link show` import: RoCE text with a disabled port, InfiniBand JSON with a port in INIT,
// a pdsh paste, -d caps, a cut record, JSON that does not parse, and detection against
// `rdma statistic show`.
#include <doctest/doctest.h>

#include "import/format_detect.h"
#include "import/rdma_link.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kRoce = "tests/fixtures/rdma-link/roce-one-disabled.txt";
constexpr const char* kJson = "tests/fixtures/rdma-link/ib-json.json";
constexpr const char* kPdsh = "tests/fixtures/rdma-link/pdsh-ib-polling.txt";

RdmaLinkImport read(const std::string& text) {
  auto r = import_rdma_link(text, "t.txt");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return *r;
}
}  // namespace

TEST_CASE("RoCE text: state per link, the disabled one warns") {
  auto imp = read(repo_text(kRoce));
  CHECK(imp.gaps.empty());
  CHECK(imp.format == "text");
  REQUIRE(imp.links.size() == 4);
  CHECK(imp.links[0].ibdev == "mlx5_0");
  CHECK(imp.links[0].port == 1);
  CHECK(imp.links[0].netdev == "ens1f0np0");
  CHECK(imp.links[0].up());
  CHECK(imp.links[3].state == "DOWN");
  CHECK(imp.links[3].physical_state == "DISABLED");
  auto fs = rdma_link_findings(imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "rdma_link_not_active");
  CHECK(fs[0].severity == Severity::kWarn);
  CHECK(fs[0].subject == "mlx5_3/1");
  CHECK(fs[0].message.find("ens2f1np1") != std::string::npos);
  CHECK(fs[0].evidence[1].value_text == "DISABLED");
  CHECK(fs[0].evidence[1].source == "t.txt:4");
  auto data = rdma_link_data(imp);
  CHECK(data["links_down"] == 1);
  CHECK(data["links"][3]["up"] == false);
}

TEST_CASE("InfiniBand -j: LIDs, INIT on LINK_UP points at the subnet manager") {
  auto imp = read(repo_text(kJson));
  CHECK(imp.format == "json");
  REQUIRE(imp.links.size() == 2);
  CHECK(imp.links[0].lid == 17u);
  CHECK(imp.links[0].subnet_prefix == "fe80:0000:0000:0000");
  CHECK(imp.links[1].state == "INIT");
  auto fs = rdma_link_findings(imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].subject == "mlx5_1/1");
  CHECK(fs[0].action.find("subnet manager") != std::string::npos);
}

TEST_CASE("a pdsh paste names the host, -d caps are passed over") {
  auto imp = read(repo_text(kPdsh));
  CHECK(imp.gaps.empty());
  REQUIRE(imp.links.size() == 4);
  auto fs = rdma_link_findings(imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].subject == "gpu02 mlx5_0/1");
  CHECK(fs[0].message.find("POLLING") != std::string::npos);
  auto d = read("link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev eth0 caps: <CM, IP_BASED_GIDS> \n");
  REQUIRE(d.links.size() == 1);
  CHECK(d.links[0].netdev == "eth0");
  CHECK(d.gaps.empty());
}

TEST_CASE("a cut record and a stray line are gaps, JSON that does not parse is refused") {
  auto imp = read("link mlx5_0/1 state ACTIVE physical_state LINK_UP\nhello\nlink mlx5_1/1 state DOWN phys");
  REQUIRE(imp.links.size() == 1);
  REQUIRE(imp.gaps.size() == 2);
  CHECK(imp.gaps[0].message.find("NOT READ") != std::string::npos);
  CHECK(imp.gaps[1].source == "t.txt:2");
  auto one = read("link mlx5_0/1 state ACT");  // the only line, cut: a gap, not a record
  CHECK(one.links.empty());
  REQUIRE(one.gaps.size() == 1);
  CHECK(one.gaps[0].message.find("NOT READ") != std::string::npos);
  CHECK(one.gaps[0].source == "t.txt:1");
  auto whole = read("link mlx5_0/1 state ACTIVE physical_state LINK_UP\n");
  CHECK(whole.links.size() == 1);
  CHECK(whole.gaps.empty());
  auto bad = import_rdma_link("[{\"ifindex\":0,\"ifname\":\"mlx5_0\",\"port\":1,\"sta", "j.json");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().source == "j.json:1");
}

TEST_CASE("detection: rdma link show is not rdma statistic show, and the reverse") {
  CHECK(detect_tool_in_text(repo_text(kRoce)).tool == ToolText::kRdmaLink);
  CHECK(detect_tool_in_text(repo_text(kJson)).tool == ToolText::kRdmaLink);
  CHECK(detect_tool_in_text(repo_text(kPdsh)).tool == ToolText::kRdmaLink);
  CHECK(marker_of_line("link mlx5_0/1 rx_write_requests 0 rx_read_requests 0") == ToolText::kRdmaStatistic);
  CHECK(marker_of_line("    \"physical_state\": \"LINK_UP\",") == ToolText::kRdmaLink);
  auto r = import_rdma_link("link mlx5_0/1 rx_write_requests 0 rx_read_requests 0\n", "stat.txt");
  REQUIRE_FALSE(r);
  CHECK(r.error().source == "stat.txt:1");
}

TEST_CASE("captures repeated (a loop's pastes): one record per host and port, the last one kept") {
  std::string one = repo_text(kRoce), text;
  for (int i = 0; i < 5000; ++i) text += one;
  text += "link mlx5_3/1 state ACTIVE physical_state LINK_UP netdev ens2f1np1\n";  // the port came back
  auto imp = read(text);
  CHECK(imp.gaps.empty());
  REQUIRE(imp.links.size() == 4);  // not 20001
  CHECK(imp.repeated == 5000 * 4 - 4 + 1);
  CHECK(imp.links[3].up());
  CHECK(rdma_link_findings(imp).empty());
}
