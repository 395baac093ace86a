// infiniband-diags `ibportstate` import (import/ibportstate.h): the query and `width 1` outputs of
// an mlx4 FDR HCA pasted in public operator notes (tests/fixtures/ibportstate/README.md), and a
// pdsh-prefixed switch port with its peer trained at 1X EDR among 4X HDR, the tool's own ibwarn
// line and a cut last block.
#include <doctest/doctest.h>

#include "import/format_detect.h"
#include "import/ibportstate.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kQuery = "tests/fixtures/ibportstate/ca-query-fdr.txt";
constexpr const char* kWidthSet = "tests/fixtures/ibportstate/ca-width-set-1x.txt";
constexpr const char* kSwitch = "tests/fixtures/ibportstate/pdsh-switch-peer-degraded-cut.txt";

IbportstateImport read(const std::string& rel) {
  auto r = import_ibportstate(repo_text(rel), rel);
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return *r;
}

const Finding* with_code(const std::vector<Finding>& fs, const std::string& code) {
  for (const auto& f : fs)
    if (f.code == code) return &f;
  return nullptr;
}
}  // namespace

TEST_CASE("ibportstate query of an FDR HCA: detected, read, healthy, the MLNX ext block's hex fields ignored") {
  std::string text = repo_text(kQuery);
  CHECK(detect_tool_in_text(text).tool == ToolText::kIbportstate);
  CHECK(detect_tool_in_text(text).line == 2);
  auto imp = read(kQuery);
  REQUIRE(imp.ports.size() == 1);
  const auto& p = imp.ports[0];
  CHECK(p.node_kind == "CA/RT");
  CHECK(p.portid == "Lid 12");
  CHECK(p.port == 2);
  CHECK(p.lid == 12u);
  CHECK(p.link_state == "Active");
  CHECK(p.width_supported == std::vector<int>{1, 4});
  CHECK(p.width_active == 4);
  CHECK(p.speed_active_gbps.value_or(0) == doctest::Approx(14.0625));
  // 2.5, 5, 10, FDR10 (the MLNX ext block's LinkSpeedEnabled 0x01) and the extended 14.0625
  CHECK(p.speed_enabled_gbps == std::vector<double>{2.5, 5.0, 10.0, kFdr10LaneGbps, 14.0625});
  CHECK(p.mlnx_ext);
  CHECK_FALSE(p.fdr10_active);  // MLNX ext LinkSpeedActive 0x00: FDR (LinkSpeedExtActive) runs
  CHECK(imp.gaps.empty());
  CHECK(ibportstate_findings(imp).empty());
  CHECK(ibportstate_data(imp)["summary"]["active"] == 1);
}

TEST_CASE("ibportstate width 1 on an FDR10 link: the state after the set is judged, info only, no warning") {
  auto imp = read(kWidthSet);
  REQUIRE(imp.ports.size() == 2);
  CHECK(imp.ports[0].role == "port");
  CHECK(imp.ports[1].role == "after_set");
  CHECK(imp.ports[1].width_enabled == std::vector<int>{1});
  // PortInfo says 10.0 Gbps and "No Extended Speed"; the Initial block's MLNX ext LinkSpeedActive
  // 0x01 says FDR10, and the link has not retrained after the set (LinkWidthActive still 4X).
  CHECK(imp.ports[0].fdr10_active);
  CHECK(imp.ports[0].speed_active_gbps.value_or(0) == doctest::Approx(kFdr10LaneGbps));
  CHECK(imp.ports[1].fdr10_active);
  CHECK(imp.ports[1].speed_active_gbps.value_or(0) == doctest::Approx(kFdr10LaneGbps));
  auto fs = ibportstate_findings(imp);
  REQUIRE(fs.size() == 2);
  // FDR10 while the port enables up to 25.78125 Gb/s: a CA's output holds no peer, and FDR10 is
  // what a link settles on when its far end enables no FDR/EDR: information, not a warning.
  CHECK(fs[0].code == "ib_port_speed_below_enabled");
  CHECK(fs[0].severity == Severity::kInfo);
  CHECK(fs[0].message.find("10.3125 Gb/s (FDR10)") != std::string::npos);
  REQUIRE(fs[0].evidence[0].threshold);
  CHECK(*fs[0].evidence[0].threshold == doctest::Approx(25.78125));
  CHECK(fs[1].code == "ib_port_enabled_below_supported");
  CHECK(fs[1].severity == Severity::kInfo);
  CHECK(fs[1].subject == "CA Lid 2 port 1");
  for (const auto& f : fs) CHECK(f.severity != Severity::kWarn);
  CHECK(ibportstate_data(imp)["summary"]["degraded"] == 0);
  CHECK(ibportstate_data(imp)["ports"][1]["fdr10"]["active"] == true);
  CHECK(imp.gaps.empty());
}

TEST_CASE("pdsh switch port at 1X EDR with its peer: width and speed degraded, ibwarn, a Down port, the cut line") {
  auto imp = read(kSwitch);
  REQUIRE(imp.ports.size() == 3);
  CHECK(imp.ports[0].host == "node07");
  CHECK(imp.ports[0].node_kind == "Switch");
  CHECK(imp.ports[1].role == "peer");
  CHECK(imp.ports[1].node_kind == "CA/RT");  // its own block's Mkey lines, not the queried switch's kind
  CHECK(imp.ports[1].portid == "DR path slid 7; dlid 65535; 0,9");
  CHECK(imp.ports[0].speed_active_gbps.value_or(0) == doctest::Approx(25.78125));
  REQUIRE(imp.warnings.size() == 1);
  CHECK(imp.warnings[0].text == "validate_width: Peer ports operating at active width 1 rather than 2 (4x)");
  auto fs = ibportstate_findings(imp);
  const Finding* w = with_code(fs, "ib_port_width_degraded");
  REQUIRE(w);
  CHECK(w->subject == "node07: switch Lid 14 port 9");
  CHECK(w->severity == Severity::kWarn);
  CHECK(w->evidence[0].value == 1);
  CHECK(w->evidence[0].threshold == 4);
  CHECK(w->message.find("both ends enable 4X") != std::string::npos);
  const Finding* s = with_code(fs, "ib_port_speed_degraded");
  REQUIRE(s);
  REQUIRE(s->evidence[0].threshold);
  CHECK(*s->evidence[0].threshold == doctest::Approx(53.125));
  const Finding* down = with_code(fs, "ib_port_not_active");
  REQUIRE(down);
  CHECK(down->subject == "node07: switch Lid 14 port 11");
  REQUIRE(with_code(fs, "ibportstate_warning"));
  CHECK(ibportstate_data(imp)["summary"]["degraded"] == 1);
  // The cut last line is a gap naming it, not a value.
  REQUIRE(imp.gaps.size() == 1);
  CHECK(imp.gaps[0].source == std::string(kSwitch) + ":44");  // 43 whole lines, then the cut one
  CHECK(imp.ports[2].width_enabled.empty());
}

TEST_CASE("pdsh-prefixed ibportstate output is detected by its marker lines") {
  auto ev = detect_tool_in_text(repo_text(kSwitch));
  CHECK(ev.tool == ToolText::kIbportstate);
  CHECK(ev.line == 2);
  CHECK(is_ibportstate_marker("host01: CA/RT PortInfo:"));
  CHECK(is_ibportstate_marker("host01: # Port info: Lid 3 port 1"));
  CHECK(detect_tool_in_text("host01: CA/RT PortInfo:\nhost01: # Port info: Lid 3 port 1\n").tool ==
        ToolText::kIbportstate);
  CHECK_FALSE(is_ibportstate_marker("host01: # Port counters: Lid 3 port 1"));
}

TEST_CASE("a switch peer (no M_Key lines) is a switch, a cut peer block's kind is unknown") {
  const std::string head =
      "Switch PortInfo:\n# Port info: Lid 14 port 1\nLinkState:.......Active\nLinkWidthEnabled:....4X\n"
      "LinkWidthActive:.....4X\nPeer PortInfo:\n# Port info: DR path slid 7; dlid 65535; 0,1 port 20\n"
      "LinkState:.......Active\nLinkWidthEnabled:....4X\nLinkWidthActive:.....4X\n";
  auto whole = import_ibportstate(head, "sw.txt");
  REQUIRE(whole);
  REQUIRE(whole->ports.size() == 2);
  CHECK(whole->ports[1].node_kind == "Switch");
  CHECK(ibportstate_findings(*whole).empty());
  auto cut = import_ibportstate(head + "LinkSpeedAct", "sw.txt");
  REQUIRE(cut);
  CHECK(cut->ports[1].node_kind.empty());
  REQUIRE(cut->gaps.size() == 1);
  CHECK(cut->gaps[0].source == "sw.txt:11");
}

TEST_CASE("a CA at 1X of 4X without its peer's block is information, with the peer a warning") {
  const std::string ca =
      "CA/RT PortInfo:\n# Port info: Lid 5 port 1\nLinkState:.......Active\nLinkWidthSupported:....1X or 4X\n"
      "LinkWidthEnabled:....1X or 4X\nLinkWidthActive:.....1X\n";
  auto imp = import_ibportstate(ca, "ca.txt");
  REQUIRE(imp);
  auto fs = ibportstate_findings(*imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "ib_port_width_below_enabled");
  CHECK(fs[0].severity == Severity::kInfo);
  CHECK(fs[0].evidence[0].threshold == 4);
}

TEST_CASE("ibportstate: another tool's text is refused, value parsers") {
  auto r = import_ibportstate("CA 'mlx5_0'\n\tCA type: MT4123\n", "ibstat.txt");
  REQUIRE_FALSE(r);
  CHECK(r.error().source == "ibstat.txt:1");
  CHECK(ibportstate_speeds_gbps("14.0625 Gbps or 25.78125 Gbps") == std::vector<double>{14.0625, 25.78125});
  CHECK(ibportstate_speeds_gbps("No Extended Speed").empty());
  CHECK(ibportstate_widths("1X or 4X or 8X or 12X or 2X") == std::vector<int>{1, 4, 8, 12, 2});
  CHECK(is_ibportstate_marker("# Port info: Lid 3 port 1"));
  CHECK_FALSE(is_ibportstate_marker("# Port counters: Lid 3 port 1"));
  CHECK(detect_tool_in_text("# Port counters: Lid 3 port 1\nPortSelect:......1\n").tool != ToolText::kIbportstate);
}
