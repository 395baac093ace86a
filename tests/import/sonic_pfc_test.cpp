// SONiC `show pfc counters` import: case 056 (shared/cases/056-sonic-pfc-counters-ethernet6-rx-pfc3-pfc4-pause-storm)
// and made-up variants: a cleared counter set ("Last cached time was"), N/A counters, two samples
// (rising and flat), Tx pause, a healthy control, a cut last line, another tool's text.
#include <doctest/doctest.h>

#include "import/format_detect.h"
#include "import/sonic_pfc.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kCase056 =
    "tests/fixtures/cases/056-sonic-pfc-counters-ethernet6-rx-pfc3-pfc4-pause-storm.input.txt";

constexpr const char* kRxHeader =
    "  Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7\n"
    "---------  ------  ------  ------  ------  ------  ------  ------  ------\n";
constexpr const char* kTxHeader =
    "  Port Tx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7\n"
    "---------  ------  ------  ------  ------  ------  ------  ------  ------\n";

SonicPfcImport read(const std::string& text) {
  auto r = import_sonic_pfc(text, "t.txt");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return *r;
}

const Finding* on(const std::vector<Finding>& fs, const std::string& port, Severity at_least = Severity::kWarn) {
  for (const auto& f : fs)
    if (f.subject == port && f.severity >= at_least) return &f;
  return nullptr;
}

const PfcPort& port(const SonicPfcImport& imp, const std::string& name) {
  for (const auto& p : imp.ports)
    if (p.port == name) return p;
  FAIL("no port " << name);
  return imp.ports.front();
}
}  // namespace

TEST_CASE("case 056: Ethernet6 RX PFC3/PFC4, nine ports, the Tx table cut") {
  auto imp = read(repo_text(kCase056));
  CHECK(imp.rx_rows == 9);
  CHECK(imp.rx_tables == 1);
  CHECK(imp.tx_tables == 1);
  const auto& e6 = port(imp, "Ethernet6");
  CHECK(e6.rx.last[3] == 93845u);
  CHECK(e6.rx.last[4] == 93844u);
  CHECK(e6.rx.last[0] == 0u);
  CHECK(e6.tx.samples == 0);  // not in the cut Tx table: unknown, not zero
  auto data = sonic_pfc_data(imp);
  CHECK(data["summary"]["ports_with_rx_pfc"] == 1);
  CHECK(data["summary"]["rx_ports_listed"] == 9);
  CHECK(data["summary"]["tx_ports_listed"] == 1);
  REQUIRE(imp.gaps.size() == 1);
  CHECK(imp.gaps[0].message.find("Ethernet2") != std::string::npos);
  CHECK(imp.gaps[0].message.find("unknown, not zero") != std::string::npos);

  auto fs = sonic_pfc_findings(imp);
  const Finding* f = on(fs, "Ethernet6");
  REQUIRE(f);
  CHECK(f->severity == Severity::kWarn);
  CHECK(f->code == "pfc_pause_received");
  CHECK(f->message.find("93,845 PFC pause frames on priority 3") != std::string::npos);
  CHECK(f->message.find("93,844 on priority 4") != std::string::npos);
  REQUIRE(f->evidence.size() == 2);
  CHECK(f->evidence[0].value == doctest::Approx(93845));
  CHECK(f->evidence[0].metric == "PFC3 rx pause frames");
  // must not: the ports without pause frames
  for (const char* p : {"Ethernet0", "Ethernet2", "Ethernet4", "Ethernet8", "Ethernet16"}) CHECK_FALSE(on(fs, p, Severity::kInfo));
  CHECK(fs.size() == 1);
}

TEST_CASE("cleared counters, N/A and Tx pause") {
  std::string text = std::string("Last cached time was 2026-11-30 08:00:00.123456\n") + kRxHeader +
                     "Ethernet0       0       0       0     N/A     N/A       0       0       0\n"
                     "Ethernet4       0       0       0      12       0       0       0       0\n\n" + kTxHeader +
                     "Ethernet0       0       0       0       0       0       0       0       0\n"
                     "Ethernet4       0       0       0 1,204,331      0       0       0       0\n";
  auto imp = read(text);
  CHECK(imp.gaps.empty());
  CHECK(imp.cached_time == "2026-11-30 08:00:00.123456");
  CHECK_FALSE(port(imp, "Ethernet0").rx.last[3].has_value());  // N/A: unknown
  auto fs = sonic_pfc_findings(imp);
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].code == "pfc_pause_received");
  CHECK(fs[0].severity == Severity::kInfo);  // 12 frames: below the warning
  CHECK(fs[1].code == "pfc_pause_sent");
  CHECK(fs[1].severity == Severity::kWarn);
  CHECK(fs[1].message.find("1,204,331") != std::string::npos);
  CHECK(fs[1].message.find("since 2026-11-30") != std::string::npos);
  CHECK_FALSE(on(fs, "Ethernet0", Severity::kInfo));
}

TEST_CASE("two samples: rising is an error, flat is old news") {
  std::string first = std::string("### first\n") + kRxHeader +
                      "Ethernet6  0  0  0  93,845  93,844  0  0  0\n"
                      "Ethernet8  0  0  0  5,000  0  0  0  0\n";
  std::string second = std::string("### ten seconds later\n") + kRxHeader +
                       "Ethernet6  0  0  0  101,002  100,990  0  0  0\n"
                       "Ethernet8  0  0  0  5,000  0  0  0  0\n";
  auto imp = read(first + second);
  CHECK(imp.rx_tables == 2);
  auto fs = sonic_pfc_findings(imp);
  const Finding* e6 = on(fs, "Ethernet6");
  REQUIRE(e6);
  CHECK(e6->severity == Severity::kError);
  CHECK(e6->message.find("+7,157") != std::string::npos);
  CHECK_FALSE(on(fs, "Ethernet8"));  // no new frames: info only
  REQUIRE(on(fs, "Ethernet8", Severity::kInfo));
  auto data = sonic_pfc_data(imp);
  CHECK(data["ports"][0]["rx_delta"][3] == 7157);
}

TEST_CASE("healthy control: no finding") {
  auto imp = read(std::string(kRxHeader) + "Ethernet0  0  0  0  0  0  0  0  0\nEthernet4  0  0  0  0  0  0  0  0\n" +
                  kTxHeader + "Ethernet0  0  0  0  0  0  0  0  0\nEthernet4  0  0  0  0  0  0  0  0\n");
  CHECK(imp.gaps.empty());
  CHECK(sonic_pfc_findings(imp).empty());
}

TEST_CASE("a cut last line is a gap") {
  auto imp = read(std::string(kRxHeader) + "Ethernet0  0  0  0  0  0  0  0  0\nEthernet4  0  0  0  1");
  REQUIRE(imp.gaps.size() == 1);
  CHECK(imp.gaps[0].message.find("NOT READ") != std::string::npos);
  CHECK(imp.gaps[0].source == "t.txt:4");
  CHECK(imp.ports.size() == 1);
}

TEST_CASE("another tool's output is refused") {
  auto r = import_sonic_pfc("CA 'mlx5_0'\n\tCA type: MT4123\n", "ibstat.txt");
  REQUIRE_FALSE(r);
  CHECK(r.error().code == ErrorCode::kParse);
  CHECK(r.error().source == "ibstat.txt:1");
  CHECK(marker_of_line("    Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7") ==
        ToolText::kSonicPfc);
  CHECK(detect_tool_in_text(repo_text(kCase056)).tool == ToolText::kSonicPfc);
}
