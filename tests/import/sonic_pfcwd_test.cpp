// SONiC `show pfcwd stats` import: cases w201 (stormed now, three samples), w202 (two queues,
// storms restored with drops), w219 (watchdog stopped, STATUS N/A), and made-up variants: the
// pre-2019 table without STATUS, a cut row, another tool's text.
#include <doctest/doctest.h>

#include "import/format_detect.h"
#include "import/sonic_pfcwd.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kW201 = "tests/fixtures/cases/w201-sonic-pfcwd-stats-ethernet4-q3-stormed-drops.input.txt";
constexpr const char* kW202 = "tests/fixtures/cases/w202-sonic-pfcwd-stats-two-queues-restored-with-drops.input.txt";
constexpr const char* kW219 = "tests/fixtures/cases/w219-sonic-pfcwd-stats-watchdog-stopped-status-na.input.txt";

SonicPfcwdImport read(const std::string& text) {
  auto r = import_sonic_pfcwd(text, "t.txt");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return *r;
}

const PfcwdQueue& queue(const SonicPfcwdImport& imp, const std::string& port, int q) {
  for (const auto& x : imp.queues)
    if (x.port == port && x.queue == q) return x;
  FAIL("no queue " << port << ":" << q);
  return imp.queues.front();
}

const Finding* with_code(const std::vector<Finding>& fs, const std::string& code, const std::string& subject = {}) {
  for (const auto& f : fs)
    if (f.code == code && (subject.empty() || f.subject == subject)) return &f;
  return nullptr;
}
}  // namespace

TEST_CASE("pfcwd w201: three samples behind prompts, the queue stormed in the last one is an error") {
  auto imp = read(repo_text(kW201));
  CHECK(imp.tables == 3);
  CHECK(imp.gaps.empty());
  REQUIRE(imp.queues.size() == 1);
  const auto& q = queue(imp, "Ethernet4", 3);
  CHECK(q.status == "stormed");
  CHECK(q.samples == 3);
  CHECK(q.storms.first == 2u);
  CHECK(q.storms.second == 1u);
  CHECK(q.first_detected == 1u);
  CHECK(q.tx.first == 0u);
  CHECK(q.tx.second == 46497254u);
  CHECK(q.tx_last.second == 666293u);
  CHECK(q.rx.second == 0u);
  CHECK(q.stormed_in_a_sample);
  auto fs = sonic_pfcwd_findings(imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "pfc_storm");
  CHECK(fs[0].subject == "Ethernet4");
  CHECK(fs[0].severity == Severity::kError);
  CHECK(fs[0].message.find("stormed now") != std::string::npos);
  CHECK(fs[0].message.find("46497254 tx") != std::string::npos);
  auto data = sonic_pfcwd_data(imp);
  CHECK(data["summary"]["stormed_now"] == 1);
  CHECK(data["queues"][0]["tx_drop"] == 46497254);
}

TEST_CASE("pfcwd w202: storms restored with drops on two ports are one warn each, not errors") {
  auto imp = read(repo_text(kW202));
  REQUIRE(imp.queues.size() == 2);
  const auto& e4 = queue(imp, "Ethernet4", 3);
  CHECK(e4.status == "operational");
  CHECK(e4.storms.first == 2u);
  CHECK(e4.storms.second == 2u);
  CHECK(e4.tx.second == 56035u);
  CHECK(e4.rx.first == 14053u);
  CHECK(e4.rx.second == 371184u);
  CHECK(queue(imp, "Ethernet6", 3).tx_last.second == 69u);
  auto fs = sonic_pfcwd_findings(imp);
  REQUIRE(fs.size() == 2);
  for (const auto& f : fs) {
    CHECK(f.code == "pfc_storm");
    CHECK(f.severity == Severity::kWarn);
  }
  CHECK(with_code(fs, "pfc_storm", "Ethernet6"));
}

TEST_CASE("pfcwd w219: STATUS N/A after pfcwd stop is one pfcwd_stopped, past storms stay warns per port") {
  auto imp = read(repo_text(kW219));
  CHECK(imp.stop_command_seen);
  REQUIRE(imp.queues.size() == 3);
  CHECK(queue(imp, "Ethernet96", 4).storms.first == 5u);
  CHECK(queue(imp, "Ethernet96", 4).rx.second == 300u);
  auto fs = sonic_pfcwd_findings(imp);
  REQUIRE(fs.size() == 3);  // Ethernet36, Ethernet96 (both queues), the stopped watchdog
  const Finding* stopped = with_code(fs, "pfcwd_stopped");
  REQUIRE(stopped);
  CHECK(stopped->severity == Severity::kWarn);
  CHECK(stopped->message.find("Ethernet96:4") != std::string::npos);
  CHECK(stopped->message.find("after `pfcwd stop`") != std::string::npos);
  const Finding* e96 = with_code(fs, "pfc_storm", "Ethernet96");
  REQUIRE(e96);
  CHECK(e96->severity == Severity::kWarn);
  CHECK(e96->message.find("queue 3") != std::string::npos);
  CHECK(e96->message.find("queue 4") != std::string::npos);
  CHECK(sonic_pfcwd_data(imp)["summary"]["not_watched"] == 3);
}

TEST_CASE("pfcwd: the table without STATUS, a healthy queue, a second sample with no new storm") {
  const std::string header =
      "       QUEUE    STORM DETECTED/RESTORED    TX OK/DROP    RX OK/DROP    TX LAST OK/DROP    RX LAST OK/DROP\n"
      "------------  -------------------------  ------------  ------------  -----------------  -----------------\n";
  auto imp = read(header + "Ethernet8:3                          3/3           0/9           0/0                0/3                0/0\n"
                           "Ethernet12:4                         0/0           0/0           0/0                0/0                0/0\n" +
                  header + "Ethernet8:3                          3/3           0/9           0/0                0/3                0/0\n");
  CHECK(imp.tables == 2);
  CHECK(queue(imp, "Ethernet8", 3).status.empty());
  CHECK(queue(imp, "Ethernet8", 3).samples == 2);
  auto fs = sonic_pfcwd_findings(imp);
  REQUIRE(fs.size() == 1);  // Ethernet12 had no storm
  CHECK(fs[0].subject == "Ethernet8");
  CHECK(fs[0].severity == Severity::kInfo);  // no new storm between the samples
}

TEST_CASE("pfcwd: a cut row is a gap, another tool's text is refused, detection") {
  auto imp = read(
      "      QUEUE       STATUS    STORM DETECTED/RESTORED    TX OK/DROP    RX OK/DROP    TX LAST OK/DROP    RX LAST OK/DROP\n"
      "-----------  -----------  -------------------------  ------------  ------------  -----------------  -----------------\n"
      "Ethernet0:3  operational                        0/0           0/0\n");
  CHECK(imp.queues.empty());
  REQUIRE(imp.gaps.size() == 1);
  CHECK(imp.gaps[0].message.find("cut short") != std::string::npos);
  auto bad = import_sonic_pfcwd("CA 'mlx5_0'\n\tCA type: MT4123\n", "ibstat.txt");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == ErrorCode::kParse);
  CHECK(detect_tool_in_text(repo_text(kW201)).tool == ToolText::kSonicPfcwd);
  CHECK(detect_tool_in_text(repo_text(kW219)).tool == ToolText::kSonicPfcwd);
}
