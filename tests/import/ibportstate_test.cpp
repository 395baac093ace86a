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
  CHECK(p.speed_enabled_gbps.size() == 4);  // 2.5, 5, 10 and the extended 14.0625; not the ext block's 0x01
  CHECK(imp.gaps.empty());
  CHECK(ibportstate_findings(imp).empty());
  CHECK(ibportstate_data(imp)["summary"]["active"] == 1);
}

TEST_CASE("ibportstate width 1: the state after the set is judged, enabled below supported is info only") {
  auto imp = read(kWidthSet);
  REQUIRE(imp.ports.size() == 2);
  CHECK(imp.ports[0].role == "port");
  CHECK(imp.ports[1].role == "after_set");
  CHECK(imp.ports[1].width_enabled == std::vector<int>{1});
  CHECK(imp.ports[1].speed_active_gbps.value_or(0) == doctest::Approx(10.0));  // "No Extended Speed": the base speed
  auto fs = ibportstate_findings(imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "ib_port_enabled_below_supported");
  CHECK(fs[0].severity == Severity::kInfo);
  CHECK(fs[0].subject == "CA Lid 2 port 1");
  CHECK(imp.gaps.empty());
}

TEST_CASE("pdsh switch port at 1X EDR with its peer: width and speed degraded, ibwarn, a Down port, the cut line") {
  auto imp = read(kSwitch);
  REQUIRE(imp.ports.size() == 3);
  CHECK(imp.ports[0].host == "node07");
  CHECK(imp.ports[1].role == "peer");
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
  CHECK(imp.gaps[0].source == std::string(kSwitch) + ":42");
  CHECK(imp.ports[2].width_enabled.empty());
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
