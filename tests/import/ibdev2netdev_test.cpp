// ibdev2netdev import: the -v form of an 8-rail node with one port down, a pdsh paste of three
// hosts, the plain one-host form, a cut last line, another tool's text and detection.
#include <doctest/doctest.h>

#include "import/format_detect.h"
#include "import/ibdev2netdev.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kVerbose = "tests/fixtures/ibdev2netdev/v-dgx-one-down.txt";
constexpr const char* kPdsh = "tests/fixtures/ibdev2netdev/pdsh-three-hosts.txt";

Ibdev2netdevImport read(const std::string& text) {
  auto r = import_ibdev2netdev(text, "t.txt");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return *r;
}
}  // namespace

TEST_CASE("plain lines: ibdev, port, netdev, state") {
  auto imp = read("mlx5_0 port 1 ==> ens1f0 (Up)\nmlx5_1 port 1 ==> ens1f1 (Down)\nmlx5_bond_0 port 1 ==> bond0 (Up)\n");
  CHECK(imp.gaps.empty());
  CHECK_FALSE(imp.verbose);
  REQUIRE(imp.ports.size() == 3);
  CHECK(imp.ports[0].ibdev == "mlx5_0");
  CHECK(imp.ports[0].port == 1);
  CHECK(imp.ports[0].netdev == "ens1f0");
  CHECK(imp.ports[0].link == "Up");
  CHECK(imp.ports[0].up());
  CHECK_FALSE(imp.ports[1].up());
  CHECK(imp.ports[2].ibdev == "mlx5_bond_0");
  auto fs = ibdev2netdev_findings(imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "ibdev2netdev_port_down");
  CHECK(fs[0].severity == Severity::kWarn);
  CHECK(fs[0].subject == "mlx5_1/1");
  CHECK(fs[0].message.find("ens1f1") != std::string::npos);
  CHECK(fs[0].evidence[0].source == "t.txt:2");
}

TEST_CASE("-v: PCI address, part, board, firmware, port state, adapter rate") {
  auto imp = read(repo_text(kVerbose));
  CHECK(imp.gaps.empty());
  CHECK(imp.verbose);
  REQUIRE(imp.ports.size() == 10);
  const auto& p0 = imp.ports[0];
  CHECK(p0.pci_bdf == "0000:18:00.0");
  CHECK(p0.ibdev == "mlx5_0");
  CHECK(p0.part == "MT4129");
  CHECK(p0.board == "MCX75310AAS-NEAT");
  CHECK(p0.fw == "28.39.1002");
  CHECK(p0.port_state == "ACTIVE");
  CHECK(p0.netdev == "ibp24s0");
  CHECK(p0.max_rate_gbps == doctest::Approx(400));
  CHECK(imp.ports[8].max_rate_gbps == doctest::Approx(100));
  CHECK(imp.ports[8].description.rfind("ConnectX-6 Dx EN adapter card", 0) == 0);
  auto fs = ibdev2netdev_findings(imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].subject == "mlx5_7/1");
  CHECK(fs[0].message.find("ibp220s0") != std::string::npos);
  CHECK(fs[0].message.find("DOWN") != std::string::npos);
  REQUIRE(fs[0].evidence.size() == 2);
  CHECK(fs[0].evidence[1].value_text == "DOWN");
  auto data = ibdev2netdev_data(imp);
  CHECK(data["ports_total"] == 10);
  CHECK(data["ports_down"] == 1);
  CHECK(data["ports"][0]["max_rate_bits_per_s"] == doctest::Approx(400e9));
  CHECK(data["ports"][0]["host"].is_null());
}

TEST_CASE("-v: netdev Up but the port not ACTIVE warns too") {
  auto imp = read("mlx5_0 (MT4123 - MT1234X05678) ConnectX-6 VPI adapter card, HDR IB (200Gb/s) and 200GbE, "
                  "single-port QSFP56 fw 20.31.1014 port 1 (INIT) ==> ib0 (Up)\n");
  REQUIRE(imp.ports.size() == 1);
  CHECK(imp.ports[0].pci_bdf.empty());
  CHECK(imp.ports[0].max_rate_gbps == doctest::Approx(200));
  auto fs = ibdev2netdev_findings(imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].message.find("Up but the port is INIT") != std::string::npos);
}

TEST_CASE("a pdsh paste: hosts named in the findings") {
  auto imp = read(repo_text(kPdsh));
  CHECK(imp.gaps.empty());
  REQUIRE(imp.ports.size() == 6);
  CHECK(imp.ports[4].host == "node02");
  auto fs = ibdev2netdev_findings(imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].subject == "node02 mlx5_1/1");
  CHECK(ibdev2netdev_data(imp)["ports"][4]["host"] == "node02");
}

TEST_CASE("a cut last line and a stray line are gaps") {
  auto imp = read("mlx5_0 port 1 ==> ib0 (Up)\nsomething else\nmlx5_1 port 1 ==> ib");
  REQUIRE(imp.ports.size() == 1);
  REQUIRE(imp.gaps.size() == 2);
  CHECK(imp.gaps[0].message.find("NOT READ") != std::string::npos);
  CHECK(imp.gaps[0].source == "t.txt:3");
  CHECK(imp.gaps[1].source == "t.txt:2");
}

TEST_CASE("another tool's output is refused, and detection") {
  auto r = import_ibdev2netdev("CA 'mlx5_0'\n\tCA type: MT4123\n", "ibstat.txt");
  REQUIRE_FALSE(r);
  CHECK(r.error().source == "ibstat.txt:1");
  CHECK(detect_tool_in_text(repo_text(kVerbose)).tool == ToolText::kIbdev2netdev);
  CHECK(detect_tool_in_text(repo_text(kPdsh)).tool == ToolText::kIbdev2netdev);
  // iblinkinfo's arrows are not ibdev2netdev's
  CHECK(marker_of_line("          2    1[  ] ==( 4X 10.0 Gbps Active/  LinkUp)==>       3    1[  ] \"h1 mlx4_0\" ( )") ==
        ToolText::kIblinkinfo);
}

TEST_CASE("-v pads the port state to the width of ACTIVE: (DOWN  ) and (INIT  ) are read, the down port warns") {
  // The real layout (found by the fresh-eyes review): before, the line was a gap and the down port lost.
  auto imp = read("0000:12:00.0 mlx5_1 (MT4129 - MCX75310AAS-NEAT) ConnectX-7 fw 28.39.1002 port 1 (DOWN  ) ==> ibp18s0 (Down)\n"
                  "0000:13:00.0 mlx5_2 (MT4129 - MCX75310AAS-NEAT) ConnectX-7 fw 28.39.1002 port 1 (INIT  ) ==> ibp19s0 (Up)\n"
                  "0000:14:00.0 mlx5_3 (MT4129 - MCX75310AAS-NEAT) ConnectX-7 fw 28.39.1002 port 1 (ACTIVE) ==> ibp20s0 (Up)\n");
  CHECK(imp.gaps.empty());
  REQUIRE(imp.ports.size() == 3);
  CHECK(imp.ports[0].port_state == "DOWN");
  CHECK(imp.ports[0].link == "Down");
  CHECK(imp.ports[1].port_state == "INIT");
  CHECK(imp.ports[2].up());
  auto fs = ibdev2netdev_findings(imp);
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].code == "ibdev2netdev_port_down");
}

TEST_CASE("a pdsh loop's pastes repeated: one record per host and port, the last one kept") {
  std::string one = repo_text(kPdsh), text;
  for (int i = 0; i < 5000; ++i) text += one;
  auto once = read(one);
  auto imp = read(text);
  CHECK(imp.ports.size() == once.ports.size());
  CHECK(imp.repeated == 4999 * once.ports.size());
  CHECK(ibdev2netdev_findings(imp).size() == ibdev2netdev_findings(once).size());
}
