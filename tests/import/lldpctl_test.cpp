// lldpctl import: case 061 (shared/cases/061-lldpctl-json-host-25g-lag-and-400g-uplinks-mfs-control)
// and made-up variants: the plain text form (lldpd 0.9/1.0 as Cumulus and SONiC print it), JSON
// with one interface (an object, not a list) and a chassis without a system name, one far port
// on two local ports, a small MFS, a cut JSON file, a cut text line, another tool's text.
#include <doctest/doctest.h>

#include "import/format_detect.h"
#include "import/lldpctl.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kCase061 =
    "tests/fixtures/cases/061-lldpctl-json-host-25g-lag-and-400g-uplinks-mfs-control.input.txt";

constexpr const char* kText =
    "-------------------------------------------------------------------------------\n"
    "LLDP neighbors:\n"
    "-------------------------------------------------------------------------------\n"
    "Interface:    eth0, via: LLDP, RID: 1, Time: 11 days, 15:16:47\n"
    "  Chassis:\n"
    "    ChassisID:    mac 54:e0:32:f2:6e:00\n"
    "    SysName:      mgmt-sw1\n"
    "    SysDescr:     Juniper Networks EX2200\n"
    "    Capability:   Bridge, on\n"
    "    Capability:   Router, off\n"
    "  Port:\n"
    "    PortID:       local 539\n"
    "    PortDescr:    ge-0/0/12.0\n"
    "    MFS:          1514\n"
    "    PMD autoneg:  supported: no, enabled: yes\n"
    "      Adv:          1000Base-T, HD: yes, FD: no\n"
    "      MAU oper type: 1000BaseTFD - Four-pair Category 5 UTP, full duplex mode\n"
    "  VLAN:         146, pvid: yes ntp\n"
    "-------------------------------------------------------------------------------\n"
    "Interface:    swp1, via: LLDP, RID: 10, Time: 0 day, 17:08:27\n"
    "  Chassis:\n"
    "    ChassisID:    mac 00:01:00:00:09:00\n"
    "    SysName:      spine01\n"
    "    MgmtIP:       192.0.2.9\n"
    "    MgmtIP:       fe80::201:ff:fe00:900\n"
    "    Capability:   Router, on\n"
    "  Port:\n"
    "    PortID:       ifname swp51\n"
    "    PortDescr:    leaf01-uplink\n"
    "    TTL:          120\n"
    "    MFS:          9216\n"
    "-------------------------------------------------------------------------------\n";

LldpImport read(const std::string& text) {
  auto r = import_lldpctl(text, "t.txt");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return *r;
}
}  // namespace

TEST_CASE("case 061: two neighbours, MFS, VLAN, speeds, a healthy control") {
  auto imp = read(repo_text(kCase061));
  CHECK(imp.format == "json");
  CHECK(imp.gaps.empty());
  REQUIRE(imp.neighbors.size() == 2);
  const auto& a = imp.neighbors[0];
  CHECK(a.local_port == "ens14f0np0");
  CHECK(a.sysname == "switch01");
  CHECK(a.chassis_id == "00:00:00:00:00:01");
  CHECK(a.sysdescr == "H3C Comware S6825-54HF");
  CHECK(a.port_id == "Twenty-FiveGigE1/0/16");
  CHECK(a.port_descr == "SDN_LAGG");
  CHECK(a.mfs == 9416);
  CHECK(a.ttl_s == 121);
  CHECK(a.pvid == 2069);
  CHECK(a.speed_gbps == doctest::Approx(25));
  CHECK(a.speed_from == "mau");
  CHECK(a.autoneg_enabled == true);
  CHECK(a.capabilities == std::vector<std::string>{"Bridge", "Router"});
  const auto& b = imp.neighbors[1];
  CHECK(b.local_port == "eth0");
  CHECK(b.sysname == "switch02");
  CHECK(b.port_id == "FourHundredGigE1/0/98");
  CHECK(b.mfs == 9216);
  CHECK(b.pvid == 52);
  CHECK(b.mgmt_ips == std::vector<std::string>{"192.0.2.254"});
  CHECK(b.speed_gbps == doctest::Approx(400));
  CHECK(b.speed_from == "port name");
  auto data = lldpctl_data(imp);
  CHECK(data["summary"]["neighbors"] == 2);
  CHECK(data["neighbors"][1]["port"]["mfs"] == 9216);
  // must not: anything at warn or above (a healthy control; port descriptions are operator text)
  for (const auto& f : lldpctl_findings(imp)) CHECK(f.severity < Severity::kWarn);
  CHECK(lldpctl_findings(imp).empty());
}

TEST_CASE("plain text form") {
  auto imp = read(kText);
  CHECK(imp.format == "text");
  CHECK(imp.gaps.empty());
  REQUIRE(imp.neighbors.size() == 2);
  const auto& m = imp.neighbors[0];
  CHECK(m.local_port == "eth0");
  CHECK(m.via == "LLDP");
  CHECK(m.age == "11 days, 15:16:47");
  CHECK(m.sysname == "mgmt-sw1");
  CHECK(m.port_id_type == "local");
  CHECK(m.port_id == "539");
  CHECK(m.mfs == 1514);
  CHECK(m.pvid == 146);
  CHECK(m.speed_gbps == doctest::Approx(1));
  CHECK(m.capabilities == std::vector<std::string>{"Bridge"});
  const auto& s = imp.neighbors[1];
  CHECK(s.sysname == "spine01");
  CHECK(s.port_id == "swp51");
  CHECK(s.ttl_s == 120);
  CHECK(s.mgmt_ips.size() == 2);
  CHECK_FALSE(s.speed_gbps);  // neither a MAU type nor a speed in "swp51"
  auto fs = lldpctl_findings(imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "lldp_mfs_below_jumbo");
  CHECK(fs[0].severity == Severity::kInfo);
  CHECK(fs[0].subject == "eth0");
  CHECK(fs[0].message.find("1514") != std::string::npos);
}

TEST_CASE("JSON with one interface and a chassis without a system name") {
  auto imp = read(R"({"lldp": {"interface": {"eth2": {"via": "LLDP", "chassis": {"id": {"type": "mac", "value": "aa:bb:cc:dd:ee:ff"},
                  "capability": {"type": "Bridge", "enabled": true}}, "port": {"id": {"type": "ifname", "value": "HundredGigE1/0/3"},
                  "ttl": "120"}, "vlan": [{"vlan-id": "10", "pvid": false}, {"vlan-id": "20", "pvid": true}]}}}})");
  REQUIRE(imp.neighbors.size() == 1);
  const auto& n = imp.neighbors[0];
  CHECK(n.local_port == "eth2");
  CHECK(n.sysname.empty());
  CHECK(n.chassis_id == "aa:bb:cc:dd:ee:ff");
  CHECK(n.capabilities == std::vector<std::string>{"Bridge"});
  CHECK(n.vlans == std::vector<int>{10, 20});
  CHECK(n.pvid == 20);
  CHECK(n.speed_gbps == doctest::Approx(100));
}

TEST_CASE("one far port heard on two local ports warns") {
  std::string t = kText;
  t += "Interface:    swp2, via: LLDP, RID: 11, Time: 0 day, 17:08:27\n"
       "  Chassis:\n    ChassisID:    mac 00:01:00:00:09:00\n    SysName:      spine01\n"
       "  Port:\n    PortID:       ifname swp51\n    MFS:          9216\n";
  auto fs = lldpctl_findings(read(t));
  const Finding* dup = nullptr;
  for (const auto& f : fs)
    if (f.code == "lldp_same_neighbor_port") dup = &f;
  REQUIRE(dup);
  CHECK(dup->severity == Severity::kWarn);
  CHECK(dup->message.find("swp1 and swp2") != std::string::npos);
  CHECK(dup->subject == "spine01 swp51");
}

TEST_CASE("a cut JSON file and a cut text line") {
  std::string json = repo_text(kCase061);
  auto r = import_lldpctl(json.substr(0, json.size() / 2), "cut.json");
  REQUIRE_FALSE(r);
  CHECK(r.error().code == ErrorCode::kParse);
  CHECK(r.error().message.find("does not parse") != std::string::npos);
  auto imp = read(std::string(kText) + "Interface:    swp9, via: LL");
  REQUIRE(imp.gaps.size() == 1);
  CHECK(imp.gaps[0].message.find("NOT READ") != std::string::npos);
  CHECK(imp.neighbors.size() == 2);
}

TEST_CASE("another tool's output is refused, and detection") {
  auto r = import_lldpctl("CA 'mlx5_0'\n\tCA type: MT4123\n", "ibstat.txt");
  REQUIRE_FALSE(r);
  CHECK(r.error().source == "ibstat.txt:1");
  auto j = import_lldpctl(R"({"nvlink": {}})", "x.json");
  REQUIRE_FALSE(j);
  CHECK(detect_tool_in_text(kText).tool == ToolText::kLldpctl);
  CHECK(detect_tool_in_text(repo_text(kCase061)).tool == ToolText::kLldpctl);
  CHECK(lldp_speed_of_mau("10GigBaseCX4 - X copper") == doctest::Approx(10));
  CHECK(lldp_speed_of_port_name("TwentyFiveGigE1/0/1") == doctest::Approx(25));
}

TEST_CASE("text blocks repeated (a loop's log): one neighbour per local port and far end") {
  std::string text;
  for (int i = 0; i < 3000; ++i) text += kText;
  auto once = read(kText);
  auto imp = read(text);
  CHECK(imp.neighbors.size() == once.neighbors.size());
  CHECK(lldpctl_findings(imp).size() == lldpctl_findings(once).size());
}
