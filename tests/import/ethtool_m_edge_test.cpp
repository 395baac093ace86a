// ethtool -m edge cases from real pastes: a diagnostics page read back as zeros (case w210), a
// passive copper cable whose "monitors" read 0 C and 0 V (w211), a QSFP28 held in low power mode
// with every lane dark (w218), and a dark module without a low power mode.
#include <doctest/doctest.h>

#include "import/ethtool_m.h"
#include "rules/optics.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kW210 = "tests/fixtures/cases/w210-ethtool-m-sfp-dom-page-all-zero-mlx4-cx2.input.txt";
constexpr const char* kW211 = "tests/fixtures/cases/w211-ethtool-m-qsfp-passive-copper-dac-no-dom.input.txt";
constexpr const char* kW218 = "tests/fixtures/cases/w218-ethtool-m-qsfp28-low-power-mode-all-lanes-dark.input.txt";
}  // namespace

TEST_CASE("w210: all-zero diagnostics with all-zero thresholds are a gap, never 'no light'") {
  auto imp = import_repo_file(CounterImportFormat::kEthtoolM, kW210);
  CHECK(imp.optics.empty());
  REQUIRE(imp.gaps.size() == 1);
  CHECK(imp.gaps[0].message.find("read back as all zeros") != std::string::npos);
  auto r = interpret_repo_file(CounterImportFormat::kEthtoolM, kW210);
  CHECK_FALSE(finding(r.result, "optics"));
  CHECK(problems(r.result).empty());
}

TEST_CASE("w211: a passive DAC's 0 C / 0 V are no monitors: no readings, no finding") {
  auto imp = import_repo_file(CounterImportFormat::kEthtoolM, kW211);
  CHECK(imp.optics.empty());
  CHECK(imp.gaps.empty());
  REQUIRE(imp.facts.contains("modules_without_diagnostics"));
  auto r = interpret_repo_file(CounterImportFormat::kEthtoolM, kW211);
  CHECK(r.result.findings.empty());
}

TEST_CASE("w218: '# ethtool -m swp13' names the module, low power mode with every lane dark is the finding") {
  auto imp = import_repo_file(CounterImportFormat::kEthtoolM, kW218);
  REQUIRE(imp.optics.size() == 1);
  const ModuleDiagnostics& m = imp.optics[0];
  CHECK(m.netdev == "swp13");
  CHECK(m.module_state == "ModuleLowPwr");
  REQUIRE(m.lanes.size() == 4);
  CHECK(m.lanes[3].tx_power_mw == 0.0);
  auto r = interpret_repo_file(CounterImportFormat::kEthtoolM, kW218);
  const Finding* f = finding(r.result, "optics", "swp13");
  REQUIRE(f);
  CHECK(f->severity == Severity::kWarn);
  CHECK(f->message.find("low power mode") != std::string::npos);
  CHECK(f->message.find("RX") == std::string::npos);  // the receivers are off too: not judged
  CHECK(f->action.find("power-mode-policy high") != std::string::npos);
}

TEST_CASE("a dark module without low power mode: warn, TX off, power set Off with override keeps it high power") {
  auto imp = import_ethtool_m(" Identifier : 0x11 (QSFP28)\n"
                              " Power set : On\n"
                              " Power override : Off\n"
                              " Transmit avg optical power (Channel 1)    : 0.0000 mW / -inf dBm\n"
                              " Transmit avg optical power (Channel 2)    : 0.0000 mW / -inf dBm\n"
                              " Rcvr signal avg optical power(Channel 1)  : 0.5000 mW / -3.01 dBm\n",
                              "m.txt", "eth4");
  REQUIRE(imp.ok());
  REQUIRE(imp->optics.size() == 1);
  CHECK(imp->optics[0].module_state.empty());  // the LPMode pin decides, not the Power set bit
  auto f = optics_finding(imp->optics[0]);
  REQUIRE(f);
  CHECK(f->severity == Severity::kWarn);
  CHECK(f->message.find("laser off") != std::string::npos);
}
