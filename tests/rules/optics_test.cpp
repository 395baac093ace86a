// The one optics judgement (rules/optics.h) over modules from both sources: pages decoded by
// probes/module/module_eeprom.h (hand-built SFF-8636 pages) and models as the ethtool -m importer
// fills them. Every problem of a module is ONE finding, code "optics".
#include <doctest/doctest.h>

#include <algorithm>

#include "tests/support/module_page_builder.h"
#include "probes/module/module_eeprom.h"
#include "rules/optics.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {

ModuleDiagnostics module(const OpticsSpec& s) {
  auto d = decode_module_eeprom(sff8636_pages(s));
  REQUIRE(d.ok());
  d->netdev = "ens1f0np0";
  d->source = "test pages";
  return *d;
}

bool has(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("a healthy module gives no finding") {
  CHECK_FALSE(optics_finding(module(OpticsSpec{})).has_value());
}

TEST_CASE("rx power below the low-warning threshold on every lane: one warn with evidence per lane") {
  OpticsSpec s;
  s.rx_mw = {dbm_mw(-11), dbm_mw(-11.2), dbm_mw(-10.9), dbm_mw(-11.1)};
  auto f = optics_finding(module(s));
  REQUIRE(f);
  CHECK(f->code == "optics");
  CHECK(f->severity == Severity::kWarn);
  CHECK(f->layer == Layer::kPhysical);
  CHECK(f->subject == "ens1f0np0");
  CHECK(has(f->message, "QSFP28 Mellanox MMA1B00-C100D"));
  REQUIRE(f->evidence.size() == 4);
  CHECK(f->evidence[0].metric == "RX power lane 1");
  CHECK(*f->evidence[0].value == doctest::Approx(-11).epsilon(1e-3));
  CHECK(f->evidence[0].unit == "dBm");
  CHECK(*f->evidence[0].threshold == doctest::Approx(-10.3).epsilon(1e-3));
  CHECK(has(f->evidence[0].threshold_text, "low warning"));
  CHECK(f->evidence[0].source == "test pages (page 03h bytes 176-183)");
  CHECK(has(f->action, "Clean the fibre connectors"));
}

TEST_CASE("one lane below the low-alarm threshold: error naming that lane, spread not repeated") {
  OpticsSpec s;
  s.rx_mw = {dbm_mw(-2), dbm_mw(-14), dbm_mw(-2), dbm_mw(-2)};
  auto f = optics_finding(module(s));
  REQUIRE(f);
  CHECK(f->severity == Severity::kError);
  REQUIRE(f->evidence.size() == 1);
  CHECK(f->evidence[0].metric == "RX power lane 2");
  CHECK(has(f->evidence[0].threshold_text, "low alarm"));
}

TEST_CASE("no light on a lane is an alarm with a clear evidence text") {
  OpticsSpec s;
  s.rx_mw = {dbm_mw(-2), 0.0, dbm_mw(-2), dbm_mw(-2)};
  auto f = optics_finding(module(s));
  REQUIRE(f);
  CHECK(f->severity == Severity::kError);
  REQUIRE(f->evidence.size() == 1);
  CHECK_FALSE(f->evidence[0].value.has_value());
  CHECK(f->evidence[0].value_text == "no light (0 mW)");
}

TEST_CASE("lanes more than 3 dB apart but above thresholds: spread warning, 3 dB exactly is fine") {
  OpticsSpec s;
  s.rx_mw = {dbm_mw(-1), dbm_mw(-1.5), dbm_mw(-4.5), dbm_mw(-1)};  // 3.5 dB spread
  auto f = optics_finding(module(s));
  REQUIRE(f);
  CHECK(f->severity == Severity::kWarn);
  REQUIRE(f->evidence.size() == 1);
  CHECK(*f->evidence[0].value == doctest::Approx(3.5).epsilon(1e-3));
  CHECK(*f->evidence[0].threshold == 3.0);
  CHECK(f->evidence[0].metric == "RX power spread between lanes 1 and 3");

  s.rx_mw = {dbm_mw(-1), dbm_mw(-1), dbm_mw(-3.99), dbm_mw(-1)};  // 2.99 dB
  CHECK_FALSE(optics_finding(module(s)));
}

TEST_CASE("tx problems are parts of the same one finding as rx problems") {
  OpticsSpec s;
  s.tx_mw = {dbm_mw(-9), dbm_mw(-9), dbm_mw(-9), dbm_mw(-9)};  // below tx low warning -8.5
  auto f = optics_finding(module(s));
  REQUIRE(f);
  CHECK(f->evidence.size() == 4);
  CHECK(f->evidence[0].metric == "TX power lane 1");
  CHECK(has(f->action, "replace the transceiver"));
  s.rx_mw = {dbm_mw(-11), dbm_mw(-11), dbm_mw(-11), dbm_mw(-11)};
  f = optics_finding(module(s));
  REQUIRE(f);
  CHECK(f->evidence.size() == 8);  // rx and tx, still one finding
  s.rx_mw = OpticsSpec{}.rx_mw;
  s.tx_mw = {dbm_mw(-1), dbm_mw(-1), dbm_mw(-5), dbm_mw(-1)};
  f = optics_finding(module(s));
  REQUIRE(f);
  CHECK(f->evidence.at(0).metric == "TX power spread between lanes 1 and 3");
}

TEST_CASE("temperature: high warning -> warn, high alarm -> error, > 70 C without thresholds -> warn") {
  OpticsSpec s;
  s.temperature_c = 76;
  auto f = optics_finding(module(s));
  REQUIRE(f);
  CHECK(f->severity == Severity::kWarn);
  CHECK(*f->evidence[0].threshold == doctest::Approx(75));
  CHECK(has(f->action, "airflow"));

  s.temperature_c = 81;
  f = optics_finding(module(s));
  REQUIRE(f);
  CHECK(f->severity == Severity::kError);
  CHECK(f->evidence.size() == 1);  // the alarm, not the warning too

  s.temperature_c = 72;
  s.temp_hw = 85;
  s.temp_ha = 90;
  f = optics_finding(module(s));
  REQUIRE(f);
  CHECK(f->severity == Severity::kWarn);
  CHECK(*f->evidence[0].threshold == 70.0);
  CHECK(has(f->evidence[0].threshold_text, "PDR"));

  s.temperature_c = 69.5;
  CHECK_FALSE(optics_finding(module(s)));
}

TEST_CASE("flat memory (no thresholds): only the spread and the 70 C rules can fire") {
  OpticsSpec s;
  s.flat = true;
  s.rx_mw = {dbm_mw(-20), dbm_mw(-20), dbm_mw(-20), dbm_mw(-20)};  // low, but no threshold to say so
  CHECK_FALSE(optics_finding(module(s)));
  s.rx_mw = {dbm_mw(-2), 0.0, dbm_mw(-2), dbm_mw(-2)};  // dark lane: -40 dBm for the spread
  auto f = optics_finding(module(s));
  REQUIRE(f);
  CHECK(*f->evidence[0].value == doctest::Approx(38).epsilon(1e-3));
  CHECK(has(f->message, "(lane 2 no light)"));
}

TEST_CASE("imported model: single-lane SFP, thresholds in mW, flags and voltage") {
  ModuleDiagnostics m;
  m.netdev = "eth9";
  m.source = "ethtool-m.txt";
  m.lane(1).rx_power_mw = 0.05;             // -13.0 dBm
  m.rx_power_limits_mw.low_warning = 0.1514;  // -8.20 dBm
  m.rx_power_limits_mw.low_alarm = 0.01;      // -20 dBm
  auto f = optics_finding(m);
  REQUIRE(f);
  CHECK(f->severity == Severity::kWarn);
  CHECK(f->evidence[0].metric == "RX power");  // one lane: no lane number
  CHECK(*f->evidence[0].value == doctest::Approx(-13.0103).epsilon(1e-4));
  CHECK(f->evidence[0].source == "ethtool-m.txt");
  CHECK(f->message == "optics out of margin on eth9: RX power -13.01 dBm below the module's low "
                      "warning -8.20 dBm");

  // No thresholds at all: nothing is judged, however negative the value.
  ModuleDiagnostics bare;
  bare.lane(1).rx_power_mw = 0.02;
  CHECK_FALSE(optics_finding(bare));

  ModuleDiagnostics hot;
  hot.netdev = "eth1";
  hot.temperature_c = 72.5;  // no thresholds in the input: the UFM PDR 70 C rule
  auto h = optics_finding(hot);
  REQUIRE(h);
  CHECK(h->severity == Severity::kWarn);
  hot.temperature_c = 50;
  hot.raised_flags.push_back("Laser rx power low alarm (Chan 2)");
  h = optics_finding(hot);
  REQUIRE(h);
  CHECK(h->severity == Severity::kError);  // an alarm flag the module raised
  hot.raised_flags = {"Laser bias current high warning (Chan 1)"};
  CHECK(optics_finding(hot)->severity == Severity::kWarn);

  ModuleDiagnostics v;
  v.vcc_v = 2.9;
  v.vcc_limits_v.low_alarm = 2.97;
  v.vcc_limits_v.low_warning = 3.135;
  auto vf = optics_finding(v);
  REQUIRE(vf);
  CHECK(vf->severity == Severity::kError);
  CHECK(has(vf->action, "Supply voltage"));
}

TEST_CASE("summary line: margins to the module's warning thresholds") {
  ModuleDiagnostics m;
  m.netdev = "swp1";
  m.lane(1).tx_power_mw = 0.6770;
  m.tx_power_limits_mw.low_warning = 0.1514;
  m.tx_power_limits_mw.high_warning = 1.1220;
  CHECK(optics_summary(m) == "swp1: TX -1.69 dBm (+6.50 dB above low warning, 2.19 dB below high warning)");
  auto four = module(OpticsSpec{});
  std::string line = optics_summary(four);
  CHECK(has(line, "RX 4 lanes -2.80 .. -2.00 dBm, closest to a limit: lane 1 -2.00 dBm"));
  CHECK(has(line, "temperature 35.00 C"));
}
