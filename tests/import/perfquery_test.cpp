// perfquery import: case 017 (shared/cases/017-perfquery-clean-xmitwait-only, healthy control)
// and the value forms perfquery prints.
#include <doctest/doctest.h>

#include "tests/support/import_test_util.h"
#include "import/perfquery.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kCase017 = "tests/fixtures/cases/017-perfquery-clean-xmitwait-only.input.txt";

uint64_t raw_of(const InterpretInput& in, const std::string& dev, const std::string& name) {
  const CounterChange* c = change(in, dev, name);
  REQUIRE_MESSAGE(c, dev << " " << name);
  return c->counter.raw;
}
}  // namespace

TEST_CASE("case 017: the expected values, per port") {
  auto r = interpret_repo_file(CounterImportFormat::kPerfquery, kCase017);
  const InterpretInput& in = r.combined.input;
  REQUIRE(in.ports.size() == 2);
  CHECK(in.ports[0].device == "lid 1719 port 1");
  CHECK(in.ports[1].device == "lid 1719 port 2");
  CHECK(in.ports[0].link_layer == "InfiniBand");
  // 4-octet words: the value is bytes (x4), the raw number is what perfquery printed.
  const CounterChange* xd = change(in, "lid 1719 port 1", "PortXmitData");
  REQUIRE(xd);
  CHECK(xd->counter.raw == 36298026860928ull);
  CHECK(xd->counter.value == 36298026860928ull * 4);  // about 145.2 TB
  CHECK(xd->counter.unit == "bytes");
  CHECK(xd->counter.canonical == "port_xmit_data");
  CHECK(change(in, "lid 1719 port 1", "PortRcvData")->counter.value == 12279028775751ull * 4);
  CHECK(raw_of(in, "lid 1719 port 1", "PortXmitPkts") == 101733204203ull);
  CHECK(raw_of(in, "lid 1719 port 1", "PortRcvPkts") == 32262508468ull);
  CHECK(raw_of(in, "lid 1719 port 1", "PortXmitWait") == 22730501);
  CHECK(change(in, "lid 1719 port 2", "PortXmitData")->counter.value == 26006570014026ull * 4);
  CHECK(change(in, "lid 1719 port 2", "PortRcvData")->counter.value == 39078804993378ull * 4);
  CHECK(raw_of(in, "lid 1719 port 2", "PortMulticastXmitPkts") == 0);
  CHECK(raw_of(in, "lid 1719 port 2", "PortMulticastRcvPkts") == 0);
  CHECK(raw_of(in, "lid 1719 port 2", "PortXmitWait") == 36510964);
  for (const char* dev : {"lid 1719 port 1", "lid 1719 port 2"})
    for (const char* n : {"SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter",
                          "PortRcvErrors", "PortRcvRemotePhysicalErrors", "PortRcvSwitchRelayErrors",
                          "PortXmitDiscards", "PortXmitConstraintErrors", "PortRcvConstraintErrors",
                          "LocalLinkIntegrityErrors", "ExcessiveBufferOverrunErrors", "VL15Dropped",
                          "QP1Dropped"}) {
      INFO(dev << " " << n);
      CHECK(raw_of(in, dev, n) == 0);
    }
  for (const char* n : {"PortLocalPhysicalErrors", "PortMalformedPktErrors", "PortBufferOverrunErrors",
                        "PortDLIDMappingErrors", "PortVLMappingErrors", "PortLoopingErrors"})
    CHECK(raw_of(in, "lid 1719 port 1", n) == 0);
  // 22 counters of -x per port plus 6 receive error details on port 1; all known.
  CHECK(in.changes.size() == 22 + 22 + 6);
  CHECK(r.result.unknown_counters == 0);
  CHECK(r.combined.gaps.empty());
}

TEST_CASE("case 017 must not: PortSelect, CounterSelect, CounterSelect2, CapMask are not counters") {
  auto r = interpret_repo_file(CounterImportFormat::kPerfquery, kCase017);
  for (const auto& c : r.combined.input.changes) {
    INFO(c.counter.name);
    CHECK(c.counter.name.find("Select") == std::string::npos);
    CHECK(c.counter.name.find("CapMask") == std::string::npos);
  }
}

TEST_CASE("case 017 verdict: healthy, PortXmitWait alone raises nothing") {
  auto r = interpret_repo_file(CounterImportFormat::kPerfquery, kCase017);
  CHECK(problems(r.result).empty());
  CHECK(r.result.findings.empty());  // a single cumulative PortXmitWait has no time base: not even info
  for (const auto& s : r.result.summaries) CHECK(s.healthy);
  // A delta of PortXmitWait is at most info.
  std::string two = repo_text(kCase017);
  std::string later = two;
  later.replace(later.find("PortXmitWait:....................22730501"), 40,
                "PortXmitWait:....................92730501");
  auto imp = import_perfquery(two + later, "017 twice");
  REQUIRE(imp.ok());
  auto c = combine_imports({*imp}, 60.0);
  auto res = interpret_counters(c.input);
  REQUIRE(res.findings.size() == 1);
  CHECK(res.findings[0].code == "xmit_wait");
  CHECK(res.findings[0].severity == Severity::kInfo);
}

TEST_CASE("perfquery values: decimal, hex, humanized, aggregates of port 255") {
  bool approx = false;
  CHECK(parse_perfquery_value("36298026860928", approx) == 36298026860928ull);
  CHECK_FALSE(approx);
  CHECK(parse_perfquery_value("0x0000", approx) == 0);
  CHECK(parse_perfquery_value("2779 (2.779K)", approx) == 2779);
  CHECK_FALSE(approx);
  CHECK(parse_perfquery_value("(2.779K)", approx) == 2779);
  CHECK(approx);
  CHECK(parse_perfquery_value("(1.5M)", approx) == 1500000);
  CHECK_FALSE(parse_perfquery_value("N/A", approx).has_value());
  auto imp = import_perfquery(
      "# Port counters: Lid 4 port 1 (CapMask: 0x1600)\n"
      "PortSelect:......................1\n"
      "SymbolErrorCounter:..............12 (12)\n"
      "PortXmitWait:....................(2.779K)\n"
      "PortXmitData:....................4294967295\n"
      "# Port counters: Lid 4 port 255 (CapMask: 0x1600)\n"
      "PortSelect:......................255\n"
      "SymbolErrorCounter:..............40\n",
      "t.txt");
  REQUIRE(imp.ok());
  REQUIRE(imp->ports.size() == 1);  // port 255 is the sum of all ports, not a port
  CHECK(imp->facts["aggregates"]["lid 4"]["SymbolErrorCounter"] == 40);
  const auto& s = imp->series.at(0).at(0).samples;
  REQUIRE(s.size() == 3);
  CHECK(s[0].raw == 12);
  CHECK(s[1].raw == 2779);
  CHECK(s[1].source.find("approximate") != std::string::npos);
  // Basic (not extended) data counters are 32-bit and saturate.
  CHECK(s[2].width_bits == 32);
  CHECK(s[2].saturated);
}

TEST_CASE("perfquery: not perfquery output, orphan and bad lines") {
  auto none = import_perfquery("hello\nworld\n", "x");
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code == ErrorCode::kParse);
  auto bad = import_perfquery("SymbolErrorCounter:....1\n# Port counters: Lid 1 port 1\n"
                              "PortXmitWait:....lots\n",
                              "y");
  REQUIRE(bad.ok());
  CHECK(bad->gaps.size() == 2);
}
