#include <doctest/doctest.h>

#include <algorithm>

#include "module_page_builder.h"
#include "probes/optics_rules.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {

ModuleDiagnostics module(const OpticsSpec& s) {
  auto d = decode_module_eeprom(sff8636_pages(s));
  REQUIRE(d.ok());
  d->netdev = "ens1f0np0";
  return *d;
}

std::vector<std::string> codes(const std::vector<Finding>& fs) {
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(f.code);
  return out;
}

}  // namespace

TEST_CASE("a healthy module gives no finding") {
  CHECK(optics_findings(module(OpticsSpec{}), "ens1f0np0").empty());
}

TEST_CASE("rx power below the low-warning threshold on every lane: warn, and nothing else") {
  OpticsSpec s;
  s.rx_mw = {dbm_mw(-11), dbm_mw(-11.2), dbm_mw(-10.9), dbm_mw(-11.1)};
  auto fs = optics_findings(module(s), "ens1f0np0");
  REQUIRE(fs.size() == 1);
  const Finding& f = fs[0];
  CHECK(f.code == "optics_rx_power_low");
  CHECK(f.severity == Severity::kWarn);
  CHECK(f.layer == Layer::kPhysical);
  CHECK(f.subject == "ens1f0np0");
  CHECK(f.message.find("lanes 1, 2, 3, 4") != std::string::npos);
  REQUIRE(f.evidence.size() == 4);
  CHECK(f.evidence[0].metric == "rx power lane 1");
  CHECK(*f.evidence[0].value == doctest::Approx(-11).epsilon(1e-3));
  CHECK(f.evidence[0].unit == "dBm");
  CHECK(*f.evidence[0].threshold == doctest::Approx(-10.3).epsilon(1e-3));
  CHECK(f.evidence[0].threshold_text.find("low-warning") != std::string::npos);
  CHECK(f.evidence[0].source.find("page 03h bytes 176-183") != std::string::npos);
}

TEST_CASE("one lane below the low-alarm threshold: error naming that lane; spread not repeated") {
  OpticsSpec s;
  s.rx_mw = {dbm_mw(-2), dbm_mw(-14), dbm_mw(-2), dbm_mw(-2)};
  auto fs = optics_findings(module(s), "ens1f0np0");
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "optics_rx_power_low");
  CHECK(fs[0].severity == Severity::kError);
  REQUIRE(fs[0].evidence.size() == 1);
  CHECK(fs[0].evidence[0].metric == "rx power lane 2");
  CHECK(fs[0].evidence[0].threshold_text.find("low-alarm") != std::string::npos);
}

TEST_CASE("no light on a lane is an alarm with a clear evidence text") {
  OpticsSpec s;
  s.rx_mw = {dbm_mw(-2), 0.0, dbm_mw(-2), dbm_mw(-2)};
  auto fs = optics_findings(module(s), "x");
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].severity == Severity::kError);
  CHECK_FALSE(fs[0].evidence[0].value.has_value());
  CHECK(fs[0].evidence[0].value_text == "no light (0 mW)");
}

TEST_CASE("lanes more than 3 dB apart but above thresholds: spread warning; 3 dB exactly is fine") {
  OpticsSpec s;
  s.rx_mw = {dbm_mw(-1), dbm_mw(-1.5), dbm_mw(-4.5), dbm_mw(-1)};  // 3.5 dB spread
  auto fs = optics_findings(module(s), "x");
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "optics_rx_lane_spread");
  CHECK(fs[0].severity == Severity::kWarn);
  CHECK(*fs[0].evidence[0].value == doctest::Approx(3.5).epsilon(1e-3));
  CHECK(*fs[0].evidence[0].threshold == 3.0);
  CHECK(fs[0].message.find("lane 3 and lane 1") != std::string::npos);

  s.rx_mw = {dbm_mw(-1), dbm_mw(-1), dbm_mw(-3.99), dbm_mw(-1)};  // 2.99 dB
  CHECK(optics_findings(module(s), "x").empty());
}

TEST_CASE("tx power low and tx spread are judged separately from rx") {
  OpticsSpec s;
  s.tx_mw = {dbm_mw(-9), dbm_mw(-9), dbm_mw(-9), dbm_mw(-9)};  // below tx low warning -8.5
  auto c = codes(optics_findings(module(s), "x"));
  CHECK(c == std::vector<std::string>{"optics_tx_power_low"});
  s.tx_mw = {dbm_mw(-1), dbm_mw(-1), dbm_mw(-5), dbm_mw(-1)};
  c = codes(optics_findings(module(s), "x"));
  CHECK(c == std::vector<std::string>{"optics_tx_lane_spread"});
}

TEST_CASE("temperature: high warning -> warn, high alarm -> error, > 70 C without thresholds -> warn") {
  OpticsSpec s;
  s.temperature_c = 76;
  auto fs = optics_findings(module(s), "x");
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "optics_temperature_high");
  CHECK(fs[0].severity == Severity::kWarn);
  CHECK(*fs[0].evidence[0].threshold == doctest::Approx(75));

  s.temperature_c = 81;
  fs = optics_findings(module(s), "x");
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].severity == Severity::kError);

  s.temperature_c = 72;
  s.temp_hw = 85;
  s.temp_ha = 90;
  fs = optics_findings(module(s), "x");
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].severity == Severity::kWarn);
  CHECK(*fs[0].evidence[0].threshold == 70.0);
  CHECK(fs[0].evidence[0].threshold_text.find("PDR") != std::string::npos);

  s.temperature_c = 69.5;
  CHECK(optics_findings(module(s), "x").empty());
}

TEST_CASE("flat memory (no thresholds): only the spread and the 70 C rules can fire") {
  OpticsSpec s;
  s.flat = true;
  s.rx_mw = {dbm_mw(-20), dbm_mw(-20), dbm_mw(-20), dbm_mw(-20)};  // low, but no threshold to say so
  CHECK(optics_findings(module(s), "x").empty());
  s.rx_mw = {dbm_mw(-2), 0.0, dbm_mw(-2), dbm_mw(-2)};  // dark lane: -40 dBm for the spread
  auto fs = optics_findings(module(s), "x");
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "optics_rx_lane_spread");
  CHECK(*fs[0].evidence[0].value == doctest::Approx(38).epsilon(1e-3));
}
