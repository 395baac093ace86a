// ibnetdiscover import: the topology file and the -p form of a two-leaf, one-spine fabric with
// a slow uplink and a narrow host link; the graph's leaf/spine shape, cut lines, another tool's
// text and detection.
#include <doctest/doctest.h>

#include "import/format_detect.h"
#include "import/ibnetdiscover.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kTopo = "tests/fixtures/ibnetdiscover/two-leaves-one-spine.txt";
constexpr const char* kPorts = "tests/fixtures/ibnetdiscover/ports-two-leaves.txt";
constexpr const char* kSpine = "0c42a10300a1b000";
constexpr const char* kLeaf1 = "0c42a10300a1b100";

IbnetImport read(const std::string& text) {
  auto r = import_ibnetdiscover(text, "t.txt");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return *r;
}

void check_findings(const IbnetImport& imp) {
  auto fs = ibnetdiscover_findings(imp);
  REQUIRE(fs.size() == 2);
  for (const auto& f : fs) {
    CHECK(f.code == "ibnetdiscover_link_degraded");
    CHECK(f.severity == Severity::kWarn);
  }
  // the uplink at HDR among NDR uplinks, both ends named
  const Finding* up = fs[0].message.find("switch-switch") != std::string::npos ? &fs[0] : &fs[1];
  const Finding* host = up == &fs[0] ? &fs[1] : &fs[0];
  CHECK(up->message.find("leaf02") != std::string::npos);
  CHECK(up->message.find("spine01") != std::string::npos);
  CHECK(up->message.find("4xHDR") != std::string::npos);
  CHECK(up->message.find("most switch-switch links run at 4xNDR") != std::string::npos);
  CHECK(host->message.find("node04 mlx5_0") != std::string::npos);
  CHECK(host->message.find("1xNDR") != std::string::npos);
  REQUIRE(host->evidence.size() == 1);
  CHECK(host->evidence[0].value == doctest::Approx(1));
  CHECK(host->evidence[0].threshold == doctest::Approx(4));
}
}  // namespace

TEST_CASE("the topology file: nodes, each link once, width and speed") {
  auto imp = read(repo_text(kTopo));
  CHECK(imp.gaps.empty());
  CHECK(imp.format == "topology");
  CHECK(imp.nodes.size() == 7);
  REQUIRE(imp.links.size() == 8);  // 4 uplinks + 4 hosts, each printed from both ends
  const IbnetNode* spine = imp.node(kSpine);
  REQUIRE(spine);
  CHECK(spine->type == "switch");
  CHECK(spine->desc == "MF0;spine01:MQM9700/U1");
  CHECK(spine->lid == 1u);
  CHECK(spine->ports == 64);
  const IbnetNode* h = imp.node("a088c20300f10040");
  REQUIRE(h);
  CHECK(h->type == "ca");
  CHECK(h->desc == "node04 mlx5_0");
  CHECK(h->lid == 14u);
  CHECK(imp.links[0].lanes == 4);
  CHECK(imp.links[0].speed == "NDR");
  check_findings(imp);
}

TEST_CASE("the graph: leaves with their hosts and uplinks, the spine") {
  auto data = ibnetdiscover_data(read(repo_text(kTopo)));
  REQUIRE(data["switches"].size() == 3);
  const auto& spine = data["switches"][0];
  CHECK(spine["guid"] == kSpine);
  CHECK(spine["role"] == "spine");
  CHECK(spine["hcas"].empty());
  REQUIRE(spine["uplinks"].size() == 2);
  CHECK(spine["uplinks"][0]["links"] == 2);
  const auto& leaf1 = data["switches"][1];
  CHECK(leaf1["role"] == "leaf");
  REQUIRE(leaf1["hcas"].size() == 2);
  CHECK(leaf1["hcas"][0]["desc"] == "node01 mlx5_0");
  CHECK(leaf1["hcas"][0]["port"] == 1);
  REQUIRE(leaf1["uplinks"].size() == 1);
  CHECK(leaf1["uplinks"][0]["guid"] == kSpine);
  CHECK(leaf1["uplinks"][0]["ports"] == nlohmann::json::array({35, 36}));
  REQUIRE(data["cas"].size() == 4);
  CHECK(data["cas"][0]["switches"][0]["guid"] == kLeaf1);
  CHECK(data["majority"]["switch-switch"]["speed"] == "NDR");
  CHECK(data["majority"]["switch-ca"]["lanes"] == 4);
}

TEST_CASE("the -p form: the same graph and findings") {
  auto imp = read(repo_text(kPorts));
  CHECK(imp.gaps.empty());
  CHECK(imp.format == "ports");
  CHECK(imp.nodes.size() == 7);
  REQUIRE(imp.links.size() == 8);
  CHECK(imp.node(kLeaf1)->lid == 2u);
  check_findings(imp);
  CHECK(ibnetdiscover_data(imp)["switches"][0]["role"] == "leaf");  // leaf01 printed first
}

TEST_CASE("a port line that does not parse and a cut last line are gaps") {
  auto imp = read("Switch\t36 \"S-0002c9030000104a\"\t\t# \"sw1\" enhanced port 0 lid 2 lmc 0\n"
                  "[1]\t\"H-0002c903000010f8\"[1](2c903000010f9) \t\t# \"h1 mlx5_0\" lid 3 4xEDR\n"
                  "[2]\tgarbage\n"
                  "[3]\t\"H-0002c903000010f");
  CHECK(imp.links.size() == 1);
  REQUIRE(imp.gaps.size() == 2);
  CHECK(imp.gaps[0].message.find("NOT READ") != std::string::npos);
  CHECK(imp.gaps[1].source == "t.txt:3");
}

TEST_CASE("another tool's output is refused, and detection") {
  auto r = import_ibnetdiscover("CA 'mlx5_0'\n\tCA type: MT4123\n", "ibstat.txt");
  REQUIRE_FALSE(r);
  CHECK(r.error().source == "ibstat.txt:1");
  CHECK(detect_tool_in_text(repo_text(kTopo)).tool == ToolText::kIbnetdiscover);
  CHECK(detect_tool_in_text(repo_text(kPorts)).tool == ToolText::kIbnetdiscover);
  CHECK(detect_tool_in_text("CA 'mlx5_0'\n\tCA type: MT4123\n").tool == ToolText::kIbstat);
}
