// SONiC `show interfaces counters` import: the outputs sonic-utilities' portstat tests assert
// (tests/fixtures/sonic-interface-counters/README.md), pdsh prefixes, a cut row, two samples, a
// detailed block named by its prompt, and other tools' texts refused.
#include <doctest/doctest.h>

#include "import/format_detect.h"
#include "import/sonic_intf_counters.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kDir = "tests/fixtures/sonic-interface-counters/";

SonicIntfImport read(const std::string& text) {
  auto r = import_sonic_intf_counters(text, "t.txt");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return *r;
}

const SonicIntfPort& port(const SonicIntfImport& imp, const std::string& host, const std::string& name) {
  for (const auto& p : imp.ports)
    if (p.port == name && p.host == host) return p;
  FAIL("no port " << host << " " << name);
  return imp.ports.front();
}

const Finding* find(const std::vector<Finding>& fs, const std::string& code, const std::string& subject) {
  for (const auto& f : fs)
    if (f.code == code && f.subject == subject) return &f;
  return nullptr;
}
}  // namespace

TEST_CASE("sonic interface counters: the standard table, rates in bytes/s, N/A unknown") {
  auto imp = read(repo_text(std::string(kDir) + "std-three-ports.txt"));
  CHECK(imp.tables == 1);
  REQUIRE(imp.ports.size() == 3);
  const auto& e0 = port(imp, "leaf01", "Ethernet0");
  CHECK(e0.state == "D");
  CHECK(e0.counters.at("RX_ERR").last == 10);
  CHECK(e0.counters.at("RX_DRP").last == 100);
  CHECK(e0.counters.count("RX_OVR") == 0);  // N/A: unknown, not zero
  CHECK(e0.rates.at("RX_BPS") == doctest::Approx(2000e6));
  CHECK(e0.rates.at("RX_UTIL") == doctest::Approx(64.0));
  const auto& e4 = port(imp, "leaf01", "Ethernet4");
  CHECK(e4.counters.at("RX_DRP").last == 1000);  // "1,000"
  CHECK(e4.rates.at("TX_BPS") == doctest::Approx(204.85e3));
  CHECK(imp.gaps.empty());
  auto fs = sonic_intf_counters_findings(imp);
  const Finding* down = find(fs, "sonic_port_down", "leaf01 Ethernet0");
  REQUIRE(down);
  CHECK(down->severity == Severity::kWarn);
  const Finding* err = find(fs, "sonic_port_errors", "leaf01 Ethernet8");
  REQUIRE(err);
  CHECK(err->severity == Severity::kWarn);
  CHECK(err->message.find("100 RX_ERR") != std::string::npos);
  CHECK(err->message.find("no rate") != std::string::npos);
  const Finding* drops = find(fs, "sonic_port_drops", "leaf01 Ethernet4");
  REQUIRE(drops);
  CHECK(drops->severity == Severity::kWarn);  // 1000 of 1044 packets
  CHECK_FALSE(find(fs, "sonic_port_overruns", "leaf01 Ethernet0"));
}

TEST_CASE("sonic interface counters: fec-stats, uncorrectable codewords and BER limits") {
  auto imp = read(repo_text(std::string(kDir) + "fec-stats.txt"));
  const auto& e0 = port(imp, "leaf01", "Ethernet0");
  CHECK(e0.counters.at("FEC_CORR").last == 130402);
  CHECK(e0.counters.at("FEC_UNCORR").last == 3);
  const auto& e4 = port(imp, "leaf01", "Ethernet4");
  CHECK(e4.rates.at("FLR(O)") == doctest::Approx(4.21e-10));
  CHECK(e4.rates.at("FLR(P) (Accuracy)") == doctest::Approx(7.81e-10));
  const auto& e8 = port(imp, "leaf01", "Ethernet8");
  CHECK(e8.rates.at("FEC_PRE_BER") == doctest::Approx(2.1e-5));
  auto fs = sonic_intf_counters_findings(imp);
  REQUIRE(find(fs, "sonic_fec_uncorrectable", "leaf01 Ethernet0"));
  CHECK(find(fs, "sonic_fec_uncorrectable", "leaf01 Ethernet0")->severity == Severity::kWarn);
  CHECK_FALSE(find(fs, "sonic_fec_uncorrectable", "leaf01 Ethernet8"));
  REQUIRE(find(fs, "sonic_fec_pre_ber", "leaf01 Ethernet8"));
  CHECK(find(fs, "sonic_fec_pre_ber", "leaf01 Ethernet8")->severity == Severity::kError);  // 2.1e-5 > 1e-5
  REQUIRE(find(fs, "sonic_fec_post_ber", "leaf01 Ethernet8"));                               // 3.4e-11 > 1e-12
}

TEST_CASE("sonic interface counters: --printall over a period, the multi-ASIC reminder") {
  auto imp = read(repo_text(std::string(kDir) + "all-period-multi-asic.txt"));
  REQUIRE(imp.period_s);
  CHECK(*imp.period_s == 3);
  CHECK(imp.ports.size() == 2);
  CHECK(port(imp, "", "Ethernet4").counters.at("TRIM").last == 100);
  CHECK(port(imp, "", "Ethernet0").rates.at("RX_PPS") == doctest::Approx(0.0));
  CHECK(imp.gaps.empty());
  auto fs = sonic_intf_counters_findings(imp);
  const Finding* err = find(fs, "sonic_port_errors", "Ethernet0");
  REQUIRE(err);
  CHECK(err->message.find("over the 3 s period") != std::string::npos);
}

TEST_CASE("sonic interface counters: detailed block named by its prompt") {
  auto imp = read(repo_text(std::string(kDir) + "detailed-ethernet4.txt"));
  CHECK(imp.detailed_blocks == 1);
  REQUIRE(imp.ports.size() == 1);
  const auto& p = port(imp, "leaf02", "Ethernet4");
  CHECK(p.counters.at("Total Packets Received Without Errors").last == 4);
  CHECK(p.counters.at("WRED Total Dropped Packets").last == 101);
  CHECK(imp.gaps.empty());
  auto fs = sonic_intf_counters_findings(imp);
  REQUIRE(find(fs, "sonic_port_drops", "leaf02 Ethernet4"));
  CHECK_FALSE(find(fs, "sonic_port_errors", "leaf02 Ethernet4"));
}

TEST_CASE("sonic interface counters: pdsh prefixes from two switches, a cut last row is a gap") {
  auto imp = read(repo_text(std::string(kDir) + "pdsh-errors-cut.txt"));
  CHECK(imp.tables == 2);
  CHECK(port(imp, "leaf02", "Ethernet0").counters.at("RX_ERR").last == 1204);
  CHECK(port(imp, "leaf01", "Ethernet0").counters.at("RX_ERR").last == 0);
  REQUIRE(imp.gaps.size() == 1);
  CHECK(imp.gaps[0].message.find("cut") != std::string::npos);
  for (const auto& p : imp.ports) CHECK(p.port != "Ethernet4");  // the cut row is not read
}

TEST_CASE("sonic interface counters: a table seen twice is a delta, rising errors are an error") {
  std::string header =
      "    IFACE    STATE    RX_ERR    RX_DRP    RX_OVR    TX_ERR    TX_DRP    TX_OVR\n"
      "---------  -------  --------  --------  --------  --------  --------  --------\n";
  auto imp = read(header + "Ethernet0        U        10         0         0         0         0         0\n" + header +
                  "Ethernet0        U        25         0         2         0         0         0\n");
  const auto& c = port(imp, "", "Ethernet0").counters.at("RX_ERR");
  CHECK(c.samples == 2);
  CHECK(c.first == 10);
  CHECK(c.last == 25);
  auto fs = sonic_intf_counters_findings(imp);
  REQUIRE(find(fs, "sonic_port_errors", "Ethernet0"));
  CHECK(find(fs, "sonic_port_errors", "Ethernet0")->severity == Severity::kError);
  REQUIRE(find(fs, "sonic_port_overruns", "Ethernet0"));
  auto data = sonic_intf_counters_data(imp);
  CHECK(data["ports"][0]["deltas"]["RX_ERR"] == 15);
  CHECK(data["summary"]["ports_with_errors"] == 1);
}

TEST_CASE("sonic interface counters: detection and refusals") {
  CHECK(detect_tool_in_text(repo_text(std::string(kDir) + "std-three-ports.txt")).tool == ToolText::kSonicIntfCounters);
  CHECK(detect_tool_in_text(repo_text(std::string(kDir) + "detailed-ethernet4.txt")).tool ==
        ToolText::kSonicIntfCounters);
  CHECK(detect_tool_in_text(repo_text(std::string(kDir) + "pdsh-errors-cut.txt")).tool == ToolText::kSonicIntfCounters);
  CHECK(detect_tool_in_text("  Port Rx    PFC0    PFC1\n").tool == ToolText::kSonicPfc);
  auto r = import_sonic_intf_counters("CA 'mlx5_0'\n\tCA type: MT4123\n", "x.txt");
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("IFACE") != std::string::npos);
}
