// ibhosts / ibswitches / ibnodes import (import/ibnodes.h): public pastes
// (tests/fixtures/ibnodes/README.md) and a mixed list with a default description, a name used
// by two GUIDs, a GUID listed twice and a cut last line.
#include <doctest/doctest.h>

#include "import/format_detect.h"
#include "import/ibnodes.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
IbNodesImport read(const std::string& rel) {
  auto r = import_ibnodes(repo_text(rel), rel);
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return *r;
}
}  // namespace

TEST_CASE("ibhosts: five CAs, each a host, detected by its lines") {
  constexpr const char* kHosts = "tests/fixtures/ibnodes/ibhosts-compute.txt";
  CHECK(detect_tool_in_text(repo_text(kHosts)).tool == ToolText::kIbnodes);
  auto imp = read(kHosts);
  REQUIRE(imp.nodes.size() == 5);
  CHECK(imp.nodes[0].type == "Ca");
  CHECK(imp.nodes[0].guid == "0x001175000079dafe");
  CHECK(imp.nodes[0].ports == 1);
  CHECK(imp.nodes[0].host == "compute-4-16");
  CHECK(imp.gaps.empty());
  CHECK(ibnodes_findings(imp).empty());
  CHECK(ibnodes_data(imp)["summary"]["hosts"] == 5);
}

TEST_CASE("ibswitches: switch LIDs read, no host from a switch description") {
  constexpr const char* kSwitches = "tests/fixtures/ibnodes/ibswitches-sun-dcs.txt";
  CHECK(detect_tool_in_text(repo_text(kSwitches)).tool == ToolText::kIbnodes);
  auto imp = read(kSwitches);
  REQUIRE(imp.nodes.size() == 3);
  CHECK(imp.nodes[0].type == "Switch");
  CHECK(imp.nodes[0].ports == 36);
  CHECK(imp.nodes[0].lid == 3u);
  CHECK(imp.nodes[2].lid == 1u);
  CHECK(imp.nodes[0].description == "SUN DCS 36P QDR scas22sw-iba0 10.133.45.66");
  CHECK(imp.nodes[0].host.empty());
  CHECK(ibnodes_data(imp)["summary"]["switches"] == 3);
}

TEST_CASE("ibnodes: default description, a name on two GUIDs, a repeated GUID and the cut line") {
  constexpr const char* kMixed = "tests/fixtures/ibnodes/ibnodes-default-duplicate-cut.txt";
  auto imp = read(kMixed);
  REQUIRE(imp.nodes.size() == 8);  // node41 listed again is kept once; the cut line is not read
  auto fs = ibnodes_findings(imp);
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].code == "ib_node_duplicate_description");
  CHECK(fs[0].subject == "node42 HCA-1");
  CHECK(fs[0].severity == Severity::kWarn);
  REQUIRE(fs[0].evidence.size() == 2);
  CHECK(fs[0].evidence[1].value_text == "0x0002c903009f9a10");
  CHECK(fs[1].code == "ib_node_default_description");
  CHECK(fs[1].severity == Severity::kInfo);
  CHECK(fs[1].subject.find("0x0002c903002b94c6") != std::string::npos);
  REQUIRE(imp.gaps.size() == 2);
  CHECK(imp.gaps[0].source == std::string(kMixed) + ":11");  // the cut last line
  CHECK(imp.gaps[1].message.find("repeat a node GUID") != std::string::npos);
  CHECK(imp.gaps[1].source == std::string(kMixed) + ":10");
}

TEST_CASE("ibnodes: other text refused, line parser strict") {
  CHECK_FALSE(import_ibnodes("Switch 36 \"S-0002c90200400e30\" # \"leaf\" enhanced port 0 lid 1\n", "x").ok());
  CHECK_FALSE(parse_ibnodes_line("Ca : 0x12 ports two \"x\""));
  CHECK_FALSE(parse_ibnodes_line("Node : 0x12 ports 2 \"x\""));
  auto n = parse_ibnodes_line("Router\t: 0x0002c9030000abcd ports 2 \"rtr01\"");
  REQUIRE(n);
  CHECK(n->type == "Router");
  CHECK(n->host.empty());
}

TEST_CASE("ibnodes: ibnetdiscover's ibwarn lines, passed through by the scripts, are one gap") {
  auto r = import_ibnodes(
      "Ca\t: 0x0002c90300310450 ports 2 \"node53 HCA-1\"\n"
      "ibwarn: [4242] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1,3)\n"
      "node02: iberror: discovery failed\n",
      "nodes.txt");
  REQUIRE(r);
  CHECK(r->nodes.size() == 1);
  REQUIRE(r->gaps.size() == 1);
  CHECK(r->gaps[0].source == "nodes.txt:2");
  CHECK(r->gaps[0].message.find("2 ibwarn/iberror/ibpanic line(s)") != std::string::npos);
}
