// `lldpctl -f keyvalue` read into the same neighbours as the text and JSON forms
// (tests/fixtures/lldpctl/README.md): lldpd's own integration-test output, VLAN/MFS/MAU keys,
// pdsh prefixes, an interface name with a dot, a cut last line.
#include <doctest/doctest.h>

#include "import/format_detect.h"
#include "import/lldpctl.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

TEST_CASE("lldpctl keyvalue: two neighbours, chassis and port ids by subtype") {
  auto r = import_lldpctl(repo_text("tests/fixtures/lldpctl/keyvalue-two-ports.txt"), "kv.txt");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  CHECK(r->format == "keyvalue");
  REQUIRE(r->neighbors.size() == 2);
  const auto& a = r->neighbors[0];
  CHECK(a.local_port == "eth0");
  CHECK(a.via == "LLDP");
  CHECK(a.chassis_id_type == "mac");
  CHECK(a.chassis_id == "00:00:00:00:00:02");
  CHECK(a.sysname == "ns-2.example.com");
  CHECK(a.port_id_type == "mac");
  CHECK(a.port_descr == "eth1");
  CHECK(a.ttl_s == 120);
  REQUIRE(a.capabilities.size() == 1);
  CHECK(a.capabilities[0] == "Router");
  const auto& b = r->neighbors[1];
  CHECK(b.local_port == "ens1f0np0");
  CHECK(b.sysname == "leaf01");
  CHECK(b.port_id_type == "ifname");
  CHECK(b.port_id == "Ethernet4");
  CHECK(b.mfs == 1514);
  CHECK(b.autoneg_supported == false);
  REQUIRE(b.speed_gbps);
  CHECK(*b.speed_gbps == doctest::Approx(100));
  CHECK(b.speed_from == "mau");
  REQUIRE(b.vlans.size() == 1);
  CHECK(b.pvid == 100);
  CHECK(r->gaps.empty());
  auto fs = lldpctl_findings(*r);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "lldp_mfs_below_jumbo");
  CHECK(fs[0].subject == "ens1f0np0");
}

TEST_CASE("lldpctl keyvalue: pdsh prefixes, a dotted interface, a cut last line") {
  auto r = import_lldpctl(repo_text("tests/fixtures/lldpctl/keyvalue-pdsh-cut.txt"), "kv.txt");
  REQUIRE(r);
  REQUIRE(r->neighbors.size() == 2);
  CHECK(r->neighbors[0].host == "node01");
  CHECK(r->neighbors[0].local_port == "bond0.100");
  CHECK(r->neighbors[0].port_id == "Ethernet8");
  CHECK(r->neighbors[1].host == "node02");
  CHECK(r->neighbors[1].port_id.empty());  // its port line was cut
  REQUIRE(r->gaps.size() == 1);
  CHECK(r->gaps[0].message.find("cut") != std::string::npos);
  auto data = lldpctl_data(*r);
  CHECK(data["neighbors"][0]["host"] == "node01");
  CHECK(data["summary"]["switches"] == 1);
}

TEST_CASE("lldpctl keyvalue: detection, and what is not a keyvalue line") {
  CHECK(detect_tool_in_text(repo_text("tests/fixtures/lldpctl/keyvalue-two-ports.txt")).tool == ToolText::kLldpctl);
  CHECK(is_lldpctl_keyvalue_line("lldp.eth0.chassis.name=leaf01"));
  CHECK(is_lldpctl_keyvalue_line("node07: lldp.eth0.port.ifname=Ethernet4"));
  CHECK_FALSE(is_lldpctl_keyvalue_line("lldp.eth0=1"));
  CHECK_FALSE(is_lldpctl_keyvalue_line("net.ipv4.ip_forward=1"));
}

TEST_CASE("keyvalue pastes repeated (a loop): one neighbour per host, local port and far end") {
  std::string one = repo_text("tests/fixtures/lldpctl/keyvalue-two-ports.txt"), text;
  for (int i = 0; i < 3000; ++i) text += one;
  auto once = import_lldpctl(one, "kv.txt");
  auto r = import_lldpctl(text, "kv.txt");
  REQUIRE(once);
  REQUIRE(r);
  CHECK(r->neighbors.size() == once->neighbors.size());
  CHECK(lldpctl_findings(*r).size() == lldpctl_findings(*once).size());
}
