// Cumulus NVUE interface import: the outputs of NVIDIA's Cumulus Linux documentation
// (tests/fixtures/nvue-interface/README.md): counters with sections, phy-detail, --view=counters,
// -o json, pdsh prefixes, a cut last line, refusals.
#include <doctest/doctest.h>

#include "import/format_detect.h"
#include "import/nvue_interface.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kDir = "tests/fixtures/nvue-interface/";

NvueImport read(const std::string& text) {
  auto r = import_nvue_interface(text, "t.txt");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return *r;
}

const NvuePort& port(const NvueImport& imp, const std::string& name) {
  for (const auto& p : imp.ports)
    if (p.port == name) return p;
  FAIL("no port " << name);
  return imp.ports.front();
}

const Finding* find(const std::vector<Finding>& fs, const std::string& code) {
  for (const auto& f : fs)
    if (f.code == code) return &f;
  return nullptr;
}
}  // namespace

TEST_CASE("nvue: swp1 counters with its sections, named by the prompt") {
  auto imp = read(repo_text(std::string(kDir) + "swp1-counters.txt"));
  REQUIRE(imp.ports.size() == 1);
  const auto& p = port(imp, "swp1");
  CHECK(p.host == "leaf01");
  CHECK(p.counts.at("carrier-transitions") == 14);
  CHECK(p.counts.at("FCS Errors rx") == 37);
  CHECK(p.counts.at("Total Errors rx") == 37);
  CHECK(p.counts.at("Total Packets tx") == 502040);
  CHECK(p.counts.count("ACL Drops tx") == 0);  // n/a
  CHECK(imp.gaps.empty());
  REQUIRE(imp.commands.size() == 1);
  auto fs = nvue_interface_findings(imp);
  const Finding* e = find(fs, "nvue_port_errors");
  REQUIRE(e);
  CHECK(e->subject == "leaf01 swp1");
  CHECK(e->message.find("37 Total Errors rx") != std::string::npos);
  CHECK(e->message.find("37 FCS Errors rx") != std::string::npos);
  REQUIRE(find(fs, "nvue_carrier_transitions"));
  CHECK_FALSE(find(fs, "nvue_port_drops"));
}

TEST_CASE("nvue: phy-detail, raw BER per lane, effective BER of zero") {
  auto imp = read(repo_text(std::string(kDir) + "swp1-phy-detail.txt"));
  const auto& p = port(imp, "swp1");
  CHECK(p.bers.at("raw-ber") == doctest::Approx(1e-7));
  CHECK(p.bers.at("raw-ber-lane0") == doctest::Approx(3e-6));
  CHECK(p.counts.at("phy-raw-errors-lane0") == 747567424u);
  CHECK(p.counts.at("effective-errors") == 0);
  auto fs = nvue_interface_findings(imp);
  const Finding* raw = find(fs, "nvue_raw_ber");
  REQUIRE(raw);
  CHECK(raw->severity == Severity::kWarn);
  CHECK(raw->message.find("raw-ber-lane0") != std::string::npos);
  CHECK_FALSE(find(fs, "nvue_effective_errors"));  // 15E-255: no post-FEC errors
}

TEST_CASE("nvue: --view=counters rows, drops on two uplinks") {
  auto imp = read(repo_text(std::string(kDir) + "view-counters.txt"));
  CHECK(imp.ports.size() == 6);
  CHECK(port(imp, "swp51").counts.at("RX_DRP") == 10793);
  CHECK(port(imp, "swp51").host == "spine01");
  auto fs = nvue_interface_findings(imp);
  size_t drops = 0;
  for (const auto& f : fs) drops += f.code == "nvue_port_drops";
  CHECK(drops == 2);
  const Finding* d = find(fs, "nvue_port_drops");
  REQUIRE(d);
  CHECK(d->severity == Severity::kWarn);  // 10793 of ~558k packets: 1.9 %
}

TEST_CASE("nvue: -o json of phy-detail") {
  auto imp = read(repo_text(std::string(kDir) + "phy-detail-json-bad-lane.json"));
  CHECK(imp.format == "json");
  const auto& p = port(imp, "(port not named)");
  CHECK(p.counts.at("effective-errors") == 12);
  CHECK(p.bers.at("raw-ber-lane2") == doctest::Approx(3e-4));
  auto fs = nvue_interface_findings(imp);
  REQUIRE(find(fs, "nvue_raw_ber"));
  CHECK(find(fs, "nvue_raw_ber")->severity == Severity::kError);
  REQUIRE(find(fs, "nvue_effective_errors"));
  CHECK(find(fs, "nvue_effective_errors")->severity == Severity::kWarn);  // 3e-13 is within 1e-12
  auto named = read("cumulus@leaf03:mgmt:~$ nv show interface swp7 link phy-detail -o json\n{\"raw-ber\": \"2E-6\"}\n");
  CHECK(named.ports.at(0).port == "swp7");
  CHECK(named.ports.at(0).host == "leaf03");
}

TEST_CASE("nvue: pdsh prefixes, a cut last line") {
  auto imp = read(
      "leaf01: carrier-transitions  2\nleaf01: in-errors            0\nleaf02: carrier-transitions  40\nleaf02: in-err");
  CHECK(imp.ports.size() == 2);
  bool cut = false;
  for (const auto& g : imp.gaps) cut = cut || g.message.find("cut") != std::string::npos;
  CHECK(cut);
  auto fs = nvue_interface_findings(imp);
  REQUIRE(find(fs, "nvue_carrier_transitions"));
  CHECK(find(fs, "nvue_carrier_transitions")->subject == "leaf02 (port not named)");
}

TEST_CASE("nvue: detection and refusals") {
  for (const char* f : {"swp1-counters.txt", "swp1-phy-detail.txt", "view-counters.txt", "phy-detail-json-bad-lane.json"})
    CHECK_MESSAGE(detect_tool_in_text(repo_text(std::string(kDir) + f)).tool == ToolText::kNvueInterface, f);
  CHECK(detect_tool_in_text("NIC statistics:\n     rx_packets: 1\n").tool == ToolText::kEthtoolS);
  CHECK_FALSE(import_nvue_interface("hca_id:\tmlx5_0\n", "x.txt"));
  CHECK_FALSE(import_nvue_interface("{\"lldp\": {}}\n", "x.json"));
}
