// The optics-low-rx fixture (tests/fixtures/optics-low-rx) read the way `fabdiag counters`
// reads it (module pages -> decoder -> the one module model -> the interpretation): its one
// fault, low rx power on every lane, gives exactly one finding.
#include <doctest/doctest.h>

#include "probes/counters/counter_delta.h"
#include "rules/counter_interpret.h"
#include "probes/ethtool/ethtool_link.h"
#include "probes/counters/sysfs_counters.h"

using namespace fabdiag;

TEST_CASE("optics-low-rx fixture: one optics finding (warn) on ens1f0np0 and no other") {
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

  auto r = interpret_counters({snap.ports, snapshot_readings(snap), std::nullopt, snap.optics});
  REQUIRE(r.findings.size() == 1);
  const Finding& f = r.findings[0];
  CHECK(f.code == "optics");
  CHECK(f.severity == Severity::kWarn);
  CHECK(f.subject == "ens1f0np0");
  CHECK(f.evidence.size() == 4);  // every lane below the low warning; no separate spread part
  for (const auto& e : f.evidence) CHECK(e.metric.rfind("RX power lane ", 0) == 0);
  bool optics_summary = false;
  for (const auto& s : r.summaries)
    if (s.subject == "optics ens1f0np0") optics_summary = !s.healthy;
  CHECK(optics_summary);
}
