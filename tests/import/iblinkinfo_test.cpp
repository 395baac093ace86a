// iblinkinfo import: case 052 (shared/cases/052-iblinkinfo-qdr-blade-switch-four-hosts-at-ddr-sdr-second-plane)
// and made-up variants of other releases (rdma-core "Switch:" headers, down ports without a rate,
// "Could be" annotations, -l line mode, -p settings), a healthy control, a cut last line and
// another tool's text.
#include <doctest/doctest.h>

#include <algorithm>

#include "import/format_detect.h"
#include "import/iblinkinfo.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kCase052 =
    "tests/fixtures/cases/052-iblinkinfo-qdr-blade-switch-four-hosts-at-ddr-sdr-second-plane.input.txt";

IbLinkInfoImport read(const std::string& text) {
  auto r = import_iblinkinfo(text, "t.txt");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return *r;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Findings of severity warn or worse whose subject or message holds `word` (any case).
std::vector<const Finding*> warns_about(const std::vector<Finding>& fs, const std::string& word) {
  std::vector<const Finding*> out;
  for (const auto& f : fs)
    if (f.severity >= Severity::kWarn &&
        (lower(f.subject + " " + f.message).find(lower(word)) != std::string::npos))
      out.push_back(&f);
  return out;
}

// rdma-core iblinkinfo (1.3+): "Switch: 0x... desc:", down ports print no rate, "Could be" messages.
constexpr const char* kNewRelease =
    "Switch: 0x98039b0300a1b2c4 MF0;leaf01:MQM8790/U1:\n"
    "          12    1[  ] ==( 4X      53.125 Gbps Active/  LinkUp)==>      21    1[  ] \"gpu01 mlx5_0\" ( )\n"
    "          12    2[  ] ==( 4X      53.125 Gbps Active/  LinkUp)==>      22    1[  ] \"gpu02 mlx5_0\" ( )\n"
    "          12    3[  ] ==( 4X    25.78125 Gbps Active/  LinkUp)==>      23    1[  ] \"gpu03 mlx5_0\" ( Could be 53.125 Gbps)\n"
    "          12    4[  ] ==( 1X      53.125 Gbps Active/  LinkUp)==>      24    1[  ] \"gpu04 mlx5_0\" (Could be 4X )\n"
    "          12    5[  ] ==(              Down/ Polling)==>             [  ] \"\" ( )\n"
    "          12    6[  ] ==(              Down/Disabled)==>             [  ] \"\" ( )\n"
    "          12    7[  ] ==( 4X      53.125 Gbps   Init/  LinkUp)==>      25    1[  ] \"gpu05 mlx5_0\" ( )\n"
    "CA: gpu01 mlx5_0:\n"
    "      0x98039b0300a1b2c5     21    1[  ] ==( 4X      53.125 Gbps Active/  LinkUp)==>      12    1[  ] "
    "\"MF0;leaf01:MQM8790/U1\" ( )\n";

constexpr const char* kHealthy =
    "Switch: 0x0002c902004a1b2c MF0;leaf02:SB7800/U1:\n"
    "           3    1[  ] ==( 4X 25.78125 Gbps Active/  LinkUp)==>       7    1[  ] \"node11 mlx5_0\" ( )\n"
    "           3    2[  ] ==( 4X 25.78125 Gbps Active/  LinkUp)==>       8    1[  ] \"node12 mlx5_0\" ( )\n"
    "           3    3[  ] ==(               Down/ Polling)==>             [  ] \"\" ( )\n"
    "           3   37[  ] ==( 4X 25.78125 Gbps Active/  LinkUp)==>       1   11[  ] \"MF0;spine01:SB7800/U1\" ( )\n";

constexpr const char* kLineMode =
    "0x0002c902004a1b2c \"      MF0;leaf02:SB7800/U1\"      3    1[  ] ==( 4X 25.78125 Gbps Active/  LinkUp)==> "
    "0x0002c90300b1c2d4      7    1[  ] \"node11 mlx5_0\" ( )\n"
    "0x0002c902004a1b2c \"      MF0;leaf02:SB7800/U1\"      3    2[  ] ==( 4X 14.0625 Gbps Active/  LinkUp)==> "
    "0x0002c90300b1c2e4      8    1[  ] \"node12 mlx5_0\" ( )\n";
}  // namespace

TEST_CASE("case 052: links, hosts and generations") {
  auto imp = read(repo_text(kCase052));
  CHECK(imp.gaps.empty());
  REQUIRE(imp.nodes.size() == 2);
  CHECK(imp.nodes[0].description == "IBM HSSM");
  CHECK(imp.nodes[0].guid == "0x0000000000000001");
  CHECK(imp.nodes[1].description == "Topspin Switch");
  auto data = iblinkinfo_data(imp);
  CHECK(data["summary"]["active_links"] == 13);
  CHECK(data["summary"]["down_ports"] == 47);
  CHECK(data["summary"]["hosts"] == 6);
  CHECK(data["summary"]["host_links_by_generation"]["DDR"] == 4);
  CHECK(data["summary"]["host_links_by_generation"]["QDR"] == 2);
  CHECK(data["nodes"][0]["active_links"] == 7);
  CHECK(data["nodes"][1]["active_links"] == 6);
  CHECK(data["nodes"][0]["fastest_lane_gbps"] == doctest::Approx(10.0));
  const auto& p1 = imp.ports[imp.nodes[0].ports[0]];
  CHECK(p1.port == 1);
  CHECK(p1.width == "4X");
  CHECK(*p1.lane_gbps == doctest::Approx(5.0));
  CHECK(p1.peer == "node01 HCA-1");
  CHECK(ib_speed_generation(*p1.lane_gbps) == "DDR");
  CHECK(data.dump().find("MT25204") != std::string::npos);
}

TEST_CASE("case 052: the DDR host links warn, the rest does not") {
  auto fs = iblinkinfo_findings(read(repo_text(kCase052)));
  for (const char* host : {"node01", "node04", "node05", "node06"}) {
    auto w = warns_about(fs, host);
    REQUIRE_MESSAGE(w.size() == 1, host);
    CHECK(w[0]->severity == Severity::kWarn);
    CHECK(w[0]->code == "ib_link_below_switch");
    CHECK(w[0]->message.find("5.0") != std::string::npos);
    CHECK(w[0]->subject.find("IBM HSSM port") != std::string::npos);
    CHECK(w[0]->evidence[0].value == doctest::Approx(5.0));
    CHECK(w[0]->evidence[0].threshold == doctest::Approx(10.0));
  }
  // must not: down ports (Polling, Disabled) are unused, not a fault
  CHECK(warns_about(fs, "polling").empty());
  CHECK(warns_about(fs, "disabled").empty());
  // the QDR links and the Topspin plane (SDR everywhere) are not warnings
  CHECK(warns_about(fs, "node02").empty());
  CHECK(warns_about(fs, "node03").empty());
  CHECK(warns_about(fs, "Topspin").empty());
  CHECK(warns_about(fs, "MT25204").empty());
  size_t infos = 0;
  for (const auto& f : fs) infos += f.severity == Severity::kInfo;
  CHECK(infos == 2);  // the MT25204 at SDR, the Topspin generation
}

TEST_CASE("rdma-core release: Could be, a narrow width, Init, down ports without a rate") {
  auto imp = read(kNewRelease);
  CHECK(imp.gaps.empty());
  REQUIRE(imp.nodes.size() == 2);
  CHECK(imp.nodes[0].type == "Switch");
  CHECK(imp.nodes[0].description == "MF0;leaf01:MQM8790/U1");
  CHECK(imp.nodes[1].type == "CA");
  const auto& down = imp.ports[4];
  CHECK_FALSE(down.up());
  CHECK(down.phys_state == "Polling");
  CHECK(down.width.empty());
  auto fs = iblinkinfo_findings(imp);
  auto g3 = warns_about(fs, "gpu03");
  REQUIRE(g3.size() == 1);
  CHECK(g3[0]->message.find("25.78125") != std::string::npos);
  CHECK(g3[0]->message.find("EDR") != std::string::npos);
  CHECK(g3[0]->message.find("Could be 53.125 Gbps") != std::string::npos);
  auto g4 = warns_about(fs, "gpu04");
  REQUIRE(g4.size() == 1);
  CHECK(g4[0]->message.find("1X") != std::string::npos);
  REQUIRE(g4[0]->evidence.size() >= 2);
  CHECK(g4[0]->evidence[1].metric == "link_width");
  CHECK(g4[0]->evidence[1].value == doctest::Approx(1));
  CHECK(g4[0]->evidence[1].threshold == doctest::Approx(4));
  auto g5 = warns_about(fs, "gpu05");
  REQUIRE(g5.size() == 1);
  CHECK(g5[0]->code == "ib_port_not_active");
  CHECK(warns_about(fs, "gpu01").empty());
  CHECK(warns_about(fs, "gpu02").empty());
  CHECK(warns_about(fs, "polling").empty());
  CHECK(warns_about(fs, "disabled").empty());
}

TEST_CASE("healthy control: no warning") {
  auto imp = read(kHealthy);
  CHECK(imp.gaps.empty());
  auto fs = iblinkinfo_findings(imp);
  CHECK(fs.empty());
  auto data = iblinkinfo_data(imp);
  CHECK(data["summary"]["active_links"] == 3);
  CHECK(data["summary"]["down_ports"] == 1);
  CHECK(data["summary"]["host_links_by_generation"]["EDR"] == 2);  // the spine uplink is no host
  CHECK(data["summary"]["hosts"] == 2);
}

TEST_CASE("-l line mode: the node is on each line") {
  auto imp = read(kLineMode);
  REQUIRE(imp.nodes.size() == 1);
  CHECK(imp.nodes[0].description == "MF0;leaf02:SB7800/U1");
  CHECK(imp.nodes[0].guid == "0x0002c902004a1b2c");
  REQUIRE(imp.ports.size() == 2);
  CHECK(imp.ports[1].peer == "node12 mlx5_0");
  CHECK(imp.ports[1].peer_lid == 8);
  auto fs = iblinkinfo_findings(imp);  // the pointers warns_about returns point into it
  auto w = warns_about(fs, "node12");
  REQUIRE(w.size() == 1);
  CHECK(w[0]->message.find("FDR") != std::string::npos);
}

TEST_CASE("-p settings and an FDR10 speed") {
  auto imp = read("Switch: 0x0002c90200000001 sw1:\n"
                  "  5  1[  ] ==( 4X 10.0 Gbps (FDR10) Active/  LinkUp) (HOQ:18 VL_Stall:7)==>  9  1[  ] \"h1 mlx4_0\" ( )\n");
  REQUIRE(imp.ports.size() == 1);
  CHECK(imp.ports[0].state == "Active");
  CHECK(imp.ports[0].speed_text == "10.0 Gbps (FDR10)");
  CHECK(ib_speed_generation(*imp.ports[0].lane_gbps, imp.ports[0].speed_text) == "FDR10");
}

TEST_CASE("a cut last line is a gap, not a link") {
  std::string text = kHealthy;
  text += "           3   38[  ] ==( 4X 25.78125 Gbps Active/  LinkUp)==>       9    1[  ] \"node1";
  auto imp = read(text);
  REQUIRE(imp.gaps.size() == 1);
  CHECK(imp.gaps[0].message.find("NOT READ") != std::string::npos);
  CHECK(imp.gaps[0].source == "t.txt:6");
  CHECK(imp.ports.size() == 4);
}

TEST_CASE("lines not understood are one gap naming the first") {
  std::string text = kHealthy;
  text += "ibwarn: [12345] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1,3)\n";
  auto imp = read(text);
  REQUIRE(imp.gaps.size() == 1);
  CHECK(imp.gaps[0].source == "t.txt:6");
}

TEST_CASE("another tool's output is refused naming the line") {
  auto r = import_iblinkinfo("CA 'mlx5_0'\n\tCA type: MT4123\n", "ibstat.txt");
  REQUIRE_FALSE(r);
  CHECK(r.error().code == ErrorCode::kParse);
  CHECK(r.error().source == "ibstat.txt:1");
  CHECK(r.error().message.find("expected iblinkinfo output") != std::string::npos);
  auto empty = import_iblinkinfo("", "e.txt");
  REQUIRE_FALSE(empty);
}

TEST_CASE("detection: a port line is iblinkinfo's marker") {
  CHECK(marker_of_line("  4    1[  ] ==( 4X 5.0 Gbps Active/  LinkUp)==>   1    1[  ] \"node01 HCA-1\" ( )") ==
        ToolText::kIblinkinfo);
  CHECK(detect_tool_in_text(repo_text(kCase052)).tool == ToolText::kIblinkinfo);
  CHECK(ib_host_of_description("MT4123 ConnectX6 Mellanox Technologies").empty());
  CHECK(ib_host_of_description("gpu07 mlx5_0") == "gpu07");
}

TEST_CASE("a capture repeated (a loop's log): each switch and port once, the last capture kept") {
  std::string one = repo_text(kCase052), text;
  for (int i = 0; i < 2000; ++i) text += one;
  auto once = read(one);
  auto imp = read(text + "### later\n" + kHealthy);
  CHECK(imp.nodes.size() == once.nodes.size() + 1);
  CHECK(imp.ports.size() == once.ports.size() + read(kHealthy).ports.size());
  CHECK(iblinkinfo_findings(imp).size() == iblinkinfo_findings(once).size());
}
