// The optics-low-rx fixture (tests/fixtures/optics-low-rx) read the way `fabdiag counters`
// reads it: its one fault, low rx power on every lane, gives exactly one finding.
#include <doctest/doctest.h>

#include "probes/counter_delta.h"
#include "probes/counter_rules.h"
#include "probes/ethtool_link.h"
#include "probes/optics_rules.h"
#include "probes/sysfs_counters.h"

using namespace fabdiag;

TEST_CASE("optics-low-rx fixture: optics_rx_power_low (warn) on ens1f0np0 and no other finding") {
  FsRoot fs(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/optics-low-rx/tree", "/proc");
  FixtureEthtoolLinkSource link(fs);
  CounterReadOptions ro;
  ro.link = &link;
  Snapshot snap = read_counter_snapshot(fs, ro);
  for (const auto& g : snap.gaps) CHECK_FALSE(is_failure(g));
  REQUIRE(snap.optics.size() == 1);
  const ModuleDiagnostics& m = snap.optics[0];
  CHECK(m.netdev == "ens1f0np0");
  CHECK(m.identifier_name == "QSFP28");
  CHECK(*m.temperature_c == doctest::Approx(38.5));
  REQUIRE(m.lanes.size() == 4);
  CHECK(*mw_to_dbm(*m.lanes[1].rx_power_mw) == doctest::Approx(-11.3).epsilon(1e-3));
  CHECK(*mw_to_dbm(*m.rx_power_limits_mw.low_warning) == doctest::Approx(-10.0).epsilon(1e-3));

  auto findings = evaluate_counter_rules(snap.ports, snapshot_readings(snap), std::nullopt);
  for (const auto& o : snap.optics) {
    auto f = optics_findings(o, o.netdev);
    findings.insert(findings.end(), f.begin(), f.end());
  }
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].code == "optics_rx_power_low");
  CHECK(findings[0].severity == Severity::kWarn);
  CHECK(findings[0].subject == "ens1f0np0");
  CHECK(findings[0].evidence.size() == 4);
}
