// ibqueryerrors import: case 018 (shared/cases/018-ibqueryerrors-symbol-errors-flaps-discards).
#include <doctest/doctest.h>

#include <set>

#include "tests/support/import_test_util.h"
#include "import/ibqueryerrors.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kCase018 =
    "tests/fixtures/cases/018-ibqueryerrors-symbol-errors-flaps-discards.input.txt";
constexpr const char* kSwitch = "MF0;switch01:SX6036/U1";

std::string sw(int port) { return std::string(kSwitch) + " port " + std::to_string(port); }

const Counter& counter(const InterpretInput& in, const std::string& dev, const std::string& name) {
  const CounterChange* c = change(in, dev, name);
  REQUIRE_MESSAGE(c, dev << " " << name);
  return c->counter;
}
}  // namespace

TEST_CASE("case 018: the expected values, port ALL is not a port") {
  auto imp = import_repo_file(CounterImportFormat::kIbqueryerrors, kCase018);
  CHECK(imp.facts["summary"]["nodes_checked"] == 4);
  CHECK(imp.facts["summary"]["bad_nodes"] == 4);
  CHECK(imp.facts["summary"]["ports_checked"] == 43);
  CHECK(imp.facts["summary"]["ports_beyond_threshold"] == 14);
  // 14 ports listed: node01 1-2, node02 1, switch 0-8, node03 1-2; none called ALL.
  REQUIRE(imp.ports.size() == 14);
  for (const auto& p : imp.ports) CHECK(p.device.find("ALL") == std::string::npos);
  CHECK(imp.ports[0].device == "node01 mlx4_0 port 1");
  CHECK(imp.ports[0].ibdev == "node01 mlx4_0");
  const auto& agg = imp.facts["aggregates"][kSwitch];
  CHECK(agg["LinkDownedCounter"] == 48);
  CHECK(agg["PortXmitDiscards"] == 15854);
  CHECK(agg["PortRcvSwitchRelayErrors"] == 2461);

  auto c = combine_imports({imp}, std::nullopt);
  const InterpretInput& in = c.input;
  const Counter& se5 = counter(in, sw(5), "SymbolErrorCounter");
  CHECK(se5.value == 65535);
  CHECK(se5.saturated);  // at least 65535, not exactly
  CHECK(se5.canonical == "symbol_error");
  CHECK(counter(in, sw(5), "LinkErrorRecoveryCounter").value == 8);
  CHECK(counter(in, sw(5), "LinkDownedCounter").value == 2);
  CHECK(counter(in, sw(5), "PortRcvSwitchRelayErrors").value == 149);
  CHECK(counter(in, sw(5), "PortXmitDiscards").value == 649);
  CHECK(counter(in, sw(5), "PortXmitWait").value == 84704351);
  CHECK_FALSE(counter(in, sw(5), "PortXmitWait").saturated);
  CHECK(counter(in, sw(7), "SymbolErrorCounter").saturated);
  CHECK(counter(in, sw(7), "LinkErrorRecoveryCounter").value == 7);
  CHECK(counter(in, sw(7), "PortRcvSwitchRelayErrors").value == 1);
  CHECK(counter(in, sw(6), "PortXmitDiscards").value == 14176);
  CHECK(counter(in, sw(8), "PortXmitDiscards").value == 1029);
  CHECK(counter(in, sw(6), "PortRcvSwitchRelayErrors").value == 2285);
  // Link downs per switch port 1..8: 8, 5, 5, 8, 2, 9, 2, 9 = 48; the ALL line is not added.
  const uint64_t downs[] = {8, 5, 5, 8, 2, 9, 2, 9};
  uint64_t total = 0;
  for (int p = 1; p <= 8; ++p) {
    CHECK(counter(in, sw(p), "LinkDownedCounter").value == downs[p - 1]);
    total += counter(in, sw(p), "LinkDownedCounter").value;
  }
  CHECK(total == 48);
  size_t link_downed_readings = 0;
  for (const auto& ch : in.changes) link_downed_readings += ch.counter.name == "LinkDownedCounter";
  CHECK(link_downed_readings == 8);
  // PortXmitWait saturated (4294967295 = 32-bit maximum) on these ports.
  for (const std::string& d : {std::string("node01 mlx4_0 port 1"), std::string("node02 mlx4_0 port 1"),
                               std::string("node03 mlx4_0 port 1"), sw(1), sw(2), sw(3), sw(6)}) {
    INFO(d);
    CHECK(counter(in, d, "PortXmitWait").saturated);
    CHECK(counter(in, d, "PortXmitWait").value == 4294967295ull);
  }
  CHECK(counter(in, "node01 mlx4_0 port 1", "VL15Dropped").value == 14);
  CHECK(counter(in, sw(2), "VL15Dropped").value == 2);
  CHECK(counter(in, sw(3), "VL15Dropped").value == 3);
}

TEST_CASE("case 018 verdict: critical L4 on switch ports 5 and 7, warn discards and flaps, "
          "PortXmitWait info only") {
  auto r = interpret_repo_file(CounterImportFormat::kIbqueryerrors, kCase018);
  std::set<std::string> critical, discards, flaps, saturated_info;
  for (const auto& f : r.result.findings) {
    INFO(f.code << " " << f.subject << ": " << f.message);
    if (f.severity == Severity::kCritical) {
      CHECK(f.code == "phy_degradation");
      CHECK(f.layer == Layer::kPhysical);
      critical.insert(f.subject);
      bool at_least = false;
      for (const auto& e : f.evidence) at_least = at_least || (e.at_least && *e.value == 65535.0);
      CHECK(at_least);  // 65535 is "at least", never an exact count
      CHECK(f.message.find("at least 65535") != std::string::npos);
    } else if (f.code == "xmit_discards") {
      CHECK(f.severity == Severity::kWarn);
      discards.insert(f.subject);
    } else if (f.code == "link_flap") {
      CHECK(f.severity == Severity::kWarn);
      flaps.insert(f.subject);
    } else if (f.code == "counter_saturated") {
      CHECK(f.severity == Severity::kInfo);
      for (const auto& e : f.evidence) CHECK(e.metric == "PortXmitWait");
      saturated_info.insert(f.subject);
    } else {
      FAIL("unexpected finding");
    }
    // PortXmitWait is never an error: every finding citing it is info.
    for (const auto& e : f.evidence)
      if (e.metric.rfind("PortXmitWait", 0) == 0) CHECK(f.severity == Severity::kInfo);
  }
  CHECK(critical == std::set<std::string>{sw(5), sw(7)});
  CHECK(discards == std::set<std::string>{sw(5), sw(6), sw(8)});
  CHECK(flaps == std::set<std::string>{sw(1), sw(2), sw(3), sw(4), sw(5), sw(6), sw(7), sw(8)});
  CHECK(saturated_info.size() == 7);
  CHECK(r.result.findings.size() == 2 + 3 + 8 + 7);
}

TEST_CASE("case w206: a lone \"GUID ... port ALL\" line is judged as the node's sum, not refused") {
  constexpr const char* kW206 = "tests/fixtures/cases/w206-ibqueryerrors-port-all-line-only-flaps-discards.input.txt";
  auto imp = import_repo_file(CounterImportFormat::kIbqueryerrors, kW206);
  const std::string node = "0x0000000000000001 all ports";
  REQUIRE(imp.ports.size() == 1);
  CHECK(imp.ports[0].device == node);
  CHECK(imp.ports[0].port == 0);
  CHECK(imp.facts["aggregates"]["0x0000000000000001"]["PortXmitDiscards"] == 2846);
  auto r = interpret_repo_file(CounterImportFormat::kIbqueryerrors, kW206);
  const Counter& wait = counter(r.combined.input, node, "PortXmitWait");
  CHECK(wait.value == 14681376621ull);
  CHECK_FALSE(wait.saturated);  // above 2^32: a 64-bit counter, not a pinned one
  CHECK(counter(r.combined.input, node, "LinkDownedCounter").value == 25);
  const Finding* flap = finding(r.result, "link_flap", node);
  REQUIRE(flap);
  CHECK(flap->severity == Severity::kWarn);
  const Finding* disc = finding(r.result, "xmit_discards", node);
  REQUIRE(disc);
  CHECK(disc->severity >= Severity::kWarn);
  CHECK_FALSE(finding(r.result, "counter_saturated"));
  // Inside an "Errors for" block with per-port lines the ALL line is still never a device.
  auto both = import_counters(CounterImportFormat::kIbqueryerrors,
                              "Errors for 0x2 \"sw\"\n"
                              "   GUID 0x2 port ALL: [LinkDownedCounter == 3]\n"
                              "   GUID 0x2 port 4: [LinkDownedCounter == 3]\n",
                              "t.txt", "");
  REQUIRE(both);
  REQUIRE(both->ports.size() == 1);
  CHECK(both->ports[0].device == "sw port 4");
}
