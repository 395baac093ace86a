// ethtool -m import and optics judgement: case 023 (shared/cases/023-ethtool-m-dom-within-
// thresholds, healthy control) and the low-rx-power fixture.
#include <doctest/doctest.h>

#include <cmath>

#include "import_test_util.h"
#include "probes/import_ethtool_m.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kCase023 = "tests/fixtures/cases/023-ethtool-m-dom-within-thresholds.input.txt";
}

TEST_CASE("case 023: measured values and thresholds, both forms") {
  auto imp = import_repo_file(CounterImportFormat::kEthtoolM, kCase023, "swp1");
  REQUIRE(imp.modules.size() == 1);
  const ModuleDiagnostics& m = imp.modules[0];
  CHECK(m.device == "swp1");
  // A threshold line is never taken for a measured value: one TX and one RX reading.
  REQUIRE(m.tx_power.size() == 1);
  REQUIRE(m.rx_power.size() == 1);
  CHECK(*m.tx_power[0].power.mw == doctest::Approx(0.6770));
  CHECK(*m.tx_power[0].power.dbm == doctest::Approx(-1.69));
  CHECK(*m.rx_power[0].power.mw == doctest::Approx(0.5806));
  CHECK(*m.rx_power[0].power.dbm == doctest::Approx(-2.36));
  CHECK(*m.tx_power_limits.high_alarm.dbm == doctest::Approx(2.50));
  CHECK(*m.tx_power_limits.low_alarm.dbm == doctest::Approx(-10.20));
  CHECK(*m.tx_power_limits.high_warning.dbm == doctest::Approx(0.50));
  CHECK(*m.tx_power_limits.low_warning.dbm == doctest::Approx(-8.20));
  CHECK(*m.rx_power_limits.high_alarm.dbm == doctest::Approx(2.50));
  CHECK(*m.rx_power_limits.low_alarm.dbm == doctest::Approx(-16.40));
  CHECK(*m.rx_power_limits.high_warning.dbm == doctest::Approx(0.50));
  CHECK(*m.rx_power_limits.low_warning.dbm == doctest::Approx(-14.40));
  CHECK(*m.rx_power_limits.low_warning.mw == doctest::Approx(0.0363));
  CHECK(*m.rx_power_limits.low_alarm.mw == doctest::Approx(0.0229));
}

TEST_CASE("case 023 verdict: healthy, with margins") {
  auto r = interpret_repo_file(CounterImportFormat::kEthtoolM, kCase023, std::nullopt, "swp1");
  CHECK(r.result.findings.empty());  // negative dBm values are not low by themselves
  auto margins = power_margins(r.combined.input.modules.at(0));
  REQUIRE(margins.size() == 2);
  CHECK(margins[0].direction == "tx");
  CHECK(*margins[0].above_low_warning_db == doctest::Approx(6.51).epsilon(1e-6));
  CHECK(*margins[0].below_high_warning_db == doctest::Approx(2.19).epsilon(1e-6));
  CHECK(margins[1].direction == "rx");
  CHECK(*margins[1].above_low_warning_db == doctest::Approx(12.04).epsilon(1e-6));
  CHECK(*margins[1].below_high_warning_db == doctest::Approx(2.86).epsilon(1e-6));
  REQUIRE(r.result.summaries.size() == 1);
  CHECK(r.result.summaries[0].healthy);
  CHECK(r.result.summaries[0].line.find("+6.51 dB above low warning") != std::string::npos);
  CHECK(r.result.summaries[0].line.find("2.86 dB below high warning") != std::string::npos);
}

TEST_CASE("optics: a dBm value is never compared with a mW number") {
  ModuleDiagnostics m;
  m.device = "eth9";
  m.source = "test";
  // 0.05 mW = -13.0 dBm, below a -8.2 dBm low warning; as raw numbers 0.05 > -8.2 would pass.
  m.rx_power.push_back({0, OpticalPower{0.05, std::nullopt}});
  m.rx_power_limits.low_warning.dbm = -8.2;
  m.rx_power_limits.low_alarm.dbm = -20.0;
  auto fs = optics_findings(m);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].severity == Severity::kWarn);
  CHECK(*fs[0].evidence[0].value == doctest::Approx(-13.0103).epsilon(1e-4));
  // The reverse: a value in dBm against a threshold in mW only (0.1514 mW = -8.20 dBm).
  ModuleDiagnostics n;
  n.device = "eth9";
  n.tx_power.push_back({0, OpticalPower{std::nullopt, -1.69}});
  n.tx_power_limits.low_warning.mw = 0.1514;
  CHECK(optics_findings(n).empty());
  CHECK(*power_margins(n)[0].above_low_warning_db == doctest::Approx(6.51).epsilon(1e-3));
  // No thresholds at all: nothing is judged, however negative the value.
  ModuleDiagnostics bare;
  bare.rx_power.push_back({0, OpticalPower{0.02, -17.0}});
  CHECK(optics_findings(bare).empty());
  // No light at all: below every low limit.
  ModuleDiagnostics dark;
  dark.rx_power.push_back({1, OpticalPower{0.0, std::nullopt}});
  dark.rx_power_limits.low_alarm.dbm = -13.0;
  auto d = optics_findings(dark);
  REQUIRE(d.size() == 1);
  CHECK(d[0].severity == Severity::kError);
}

TEST_CASE("optics: temperature, flags") {
  ModuleDiagnostics m;
  m.device = "eth1";
  m.temperature_c = 72.5;  // no thresholds in the input: the UFM PDR 70 C rule
  auto fs = optics_findings(m);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].severity == Severity::kWarn);
  CHECK(fs[0].evidence[0].threshold_text.find("TMAX") != std::string::npos);
  m.temperature_c = 50;
  m.raised_flags.push_back("Laser rx power low alarm (Chan 2)");
  auto fl = optics_findings(m);
  REQUIRE(fl.size() == 1);
  CHECK(fl[0].severity == Severity::kError);
}

TEST_CASE("parse_optical_power") {
  auto p = parse_optical_power("0.6770 mW / -1.69 dBm");
  REQUIRE(p);
  CHECK(*p->mw == doctest::Approx(0.677));
  CHECK(*p->dbm == doctest::Approx(-1.69));
  auto dark = parse_optical_power("0.0000 mW / -inf dBm");
  REQUIRE(dark);
  CHECK(std::isinf(*dark->dbm));
  CHECK(parse_optical_power("-3.00 dBm")->dbm == -3.0);
  CHECK_FALSE(parse_optical_power("Off"));
  CHECK_FALSE(import_ethtool_m("\tIdentifier : 0x11 (QSFP28)\n", "x", "").ok());
}
