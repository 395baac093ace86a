// ethtool -m import and optics judgement: case 023 (shared/cases/023-ethtool-m-dom-within-
// thresholds, healthy control) and the low-rx-power fixture.
#include <doctest/doctest.h>

#include "tests/support/import_test_util.h"
#include "import/ethtool_m.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kCase023 = "tests/fixtures/cases/023-ethtool-m-dom-within-thresholds.input.txt";
}

TEST_CASE("case 023: measured values and thresholds into the one module model") {
  auto imp = import_repo_file(CounterImportFormat::kEthtoolM, kCase023, "swp1");
  REQUIRE(imp.optics.size() == 1);
  const ModuleDiagnostics& m = imp.optics[0];
  CHECK(m.netdev == "swp1");
  CHECK(m.source == kCase023);
  // A threshold line is never taken for a measured value: one lane (no channel = lane 1).
  REQUIRE(m.lanes.size() == 1);
  CHECK(m.lanes[0].lane == 1);
  CHECK(*m.lanes[0].tx_power_mw == doctest::Approx(0.6770));
  CHECK(*m.lanes[0].rx_power_mw == doctest::Approx(0.5806));
  CHECK(*mw_to_dbm(*m.lanes[0].tx_power_mw) == doctest::Approx(-1.69).epsilon(1e-2));
  CHECK(*m.tx_power_limits_mw.high_alarm == doctest::Approx(1.7783));
  CHECK(*m.tx_power_limits_mw.low_alarm == doctest::Approx(0.0955));
  CHECK(*m.tx_power_limits_mw.high_warning == doctest::Approx(1.1220));
  CHECK(*m.tx_power_limits_mw.low_warning == doctest::Approx(0.1514));
  CHECK(*m.rx_power_limits_mw.high_alarm == doctest::Approx(1.7783));
  CHECK(*m.rx_power_limits_mw.low_alarm == doctest::Approx(0.0229));
  CHECK(*m.rx_power_limits_mw.high_warning == doctest::Approx(1.1220));
  CHECK(*m.rx_power_limits_mw.low_warning == doctest::Approx(0.0363));
  CHECK(m.rx_power_limits_mw.where.empty());
  CHECK(m.identifier_name.empty());  // the case holds no identity lines
}

TEST_CASE("low-rx-power fixture: identity, four lanes, bias, temperature and voltage limits") {
  auto imp = import_repo_file(CounterImportFormat::kEthtoolM,
                              "tests/fixtures/counters-faults/low-rx-power.ethtool-m.txt", "");
  REQUIRE(imp.optics.size() == 1);
  const ModuleDiagnostics& m = imp.optics[0];
  CHECK(m.netdev == "enp1s0f1");  // from the "### ethtool -m enp1s0f1" title
  CHECK(m.identifier == 0x11);
  CHECK(m.identifier_name == "QSFP28");
  CHECK(m.vendor == "EXAMPLE");
  CHECK(m.part_number == "QSFP-100G-SR4");
  REQUIRE(m.lanes.size() == 4);
  CHECK(*m.lanes[2].rx_power_mw == doctest::Approx(0.0689));
  CHECK(*m.lanes[3].tx_bias_ma == doctest::Approx(7.380));
  CHECK(*m.temperature_c == doctest::Approx(41.30));
  CHECK(*m.vcc_v == doctest::Approx(3.2860));
  CHECK(*m.temperature_limits_c.high_warning == doctest::Approx(70.0));
  CHECK(*m.vcc_limits_v.low_alarm == doctest::Approx(2.97));
  CHECK(*m.tx_bias_limits_ma.high_alarm == doctest::Approx(13.0));
  CHECK(m.raised_flags.empty());  // every flag line says Off
}

TEST_CASE("case 023 verdict: healthy, with margins") {
  auto r = interpret_repo_file(CounterImportFormat::kEthtoolM, kCase023, std::nullopt, "swp1");
  CHECK(r.result.findings.empty());  // negative dBm values are not low by themselves
  // Margins from the exact mW values (ethtool's dBm column is rounded: 6.51 there).
  auto margins = power_margins(r.combined.input.optics.at(0));
  REQUIRE(margins.size() == 2);
  CHECK(margins[0].direction == "tx");
  CHECK(*margins[0].above_low_warning_db == doctest::Approx(6.505).epsilon(1e-3));
  CHECK(*margins[0].below_high_warning_db == doctest::Approx(2.194).epsilon(1e-3));
  CHECK(margins[1].direction == "rx");
  CHECK(*margins[1].above_low_warning_db == doctest::Approx(12.04).epsilon(1e-3));
  CHECK(*margins[1].below_high_warning_db == doctest::Approx(2.86).epsilon(1e-3));
  REQUIRE(r.result.summaries.size() == 1);
  CHECK(r.result.summaries[0].healthy);
  CHECK(r.result.summaries[0].line.find("+6.50 dB above low warning") != std::string::npos);
  CHECK(r.result.summaries[0].line.find("2.86 dB below high warning") != std::string::npos);
}

TEST_CASE("parse_optical_power_mw: the printed mW, else the dBm converted") {
  CHECK(*parse_optical_power_mw("0.6770 mW / -1.69 dBm") == doctest::Approx(0.677));
  CHECK(*parse_optical_power_mw("0.0000 mW / -inf dBm") == 0.0);
  CHECK(*parse_optical_power_mw("-inf dBm") == 0.0);  // no light
  CHECK(*parse_optical_power_mw("-3.00 dBm") == doctest::Approx(0.5012).epsilon(1e-3));
  CHECK(*parse_optical_power_mw("0.5 mW") == 0.5);
  CHECK_FALSE(parse_optical_power_mw("Off"));
  CHECK_FALSE(import_ethtool_m("\tIdentifier : 0x11 (QSFP28)\n", "x", "").ok());
}

TEST_CASE("optical power: garbled values are no power, not a reading") {
  // Regression (found by fuzzing): a negative or NaN mW and a NaN or +inf dBm came through as
  // powers (NaN compared false against every threshold, +inf dBm became +inf mW).
  CHECK_FALSE(parse_optical_power_mw("-0.5000 mW").has_value());
  CHECK_FALSE(parse_optical_power_mw("nan mW").has_value());
  CHECK_FALSE(parse_optical_power_mw("inf mW").has_value());
  CHECK_FALSE(parse_optical_power_mw("nan dBm").has_value());
  CHECK_FALSE(parse_optical_power_mw("inf dBm").has_value());
  CHECK_FALSE(parse_optical_power_mw("+inf dBm").has_value());
  CHECK_FALSE(parse_optical_power_mw("nan mW / nan dBm").has_value());
  // The valid form wins when the other one is garbled.
  CHECK(*parse_optical_power_mw("-1.0000 mW / -1.69 dBm") == doctest::Approx(0.6776).epsilon(1e-3));
  CHECK(*parse_optical_power_mw("0.6770 mW / nan dBm") == doctest::Approx(0.6770));
  // No light stays a reading of zero: that is loss of signal, not a missing value.
  CHECK(*parse_optical_power_mw("0.0000 mW / -inf dBm") == 0.0);
  CHECK(*parse_optical_power_mw("-inf dBm") == 0.0);
}

TEST_CASE("ethtool -m text with garbled powers: no lane power is invented") {
  const char* text =
      "\tIdentifier                                : 0x11 (QSFP28)\n"
      "\tRcvr signal avg optical power(Channel 1)  : nan mW / nan dBm\n"
      "\tRcvr signal avg optical power(Channel 2)  : -0.2000 mW / -inf dBm\n"
      "\tTransmit avg optical power (Channel 1)    : 0.5000 mW / -3.01 dBm\n"
      "\tModule temperature                        : 41.00 degrees C / 105.80 degrees F\n";
  auto imp = import_ethtool_m(text, "paste", "eth0");
  REQUIRE(imp.ok());
  REQUIRE(imp.value().optics.size() == 1);
  const ModuleDiagnostics& m = imp.value().optics[0];
  REQUIRE(m.lanes.size() == 2);
  for (const auto& lane : m.lanes) {
    if (lane.lane == 1) {
      CHECK_FALSE(lane.rx_power_mw.has_value());
      CHECK(*lane.tx_power_mw == doctest::Approx(0.5));
    }
    if (lane.lane == 2) CHECK(*lane.rx_power_mw == 0.0);  // -inf dBm: no light, a real zero
  }
}
