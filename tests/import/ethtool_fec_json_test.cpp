// `ethtool --json [-I] --show-fec` and ethtool 6.18's one-line lanes and symbol error histogram
// (tests/fixtures/ethtool-fec/README.md: the pastes of the ethtool patch that added them), into
// the counters and facts of the text reader (import/ethtool_fec.h).
#include <doctest/doctest.h>

#include <map>

#include "import/counter_formats.h"
#include "import/ethtool_fec.h"
#include "import/format_detect.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kJsonHist = "tests/fixtures/ethtool-fec/json-hist-eni8np1.json";
constexpr const char* kTextHist = "tests/fixtures/ethtool-fec/text-hist-eni8np1.txt";
constexpr const char* kTwoRunsCut = "tests/fixtures/ethtool-fec/json-two-runs-cut.json";

std::map<std::string, uint64_t> values(const Snapshot& s, const std::string& device) {
  std::map<std::string, uint64_t> v;
  for (const auto& c : s.samples)
    if (c.device == device) v[c.name] = c.value;
  return v;
}

void check_hist(const nlohmann::json& hist) {
  REQUIRE(hist.is_array());
  REQUIRE(hist.size() == 3);
  CHECK(hist[0]["bin_low"] == 0);
  CHECK(hist[0]["bin_high"] == 0);
  CHECK(hist[0]["total"] == 445);
  CHECK(hist[0]["lanes"] == nlohmann::json({125, 120, 100, 100}));
  CHECK(hist[1]["bin_low"] == 1);
  CHECK(hist[1]["bin_high"] == 3);
  CHECK(hist[1]["total"] == 12);
  CHECK_FALSE(hist[1].contains("lanes"));
  CHECK(hist[2]["bin_high"] == 7);
  CHECK(hist[2]["total"] == 2);
}
}  // namespace

TEST_CASE("ethtool --json -I --show-fec with the 6.18 histogram: detected, counters and bins read") {
  std::string text = repo_text(kJsonHist);
  CHECK(detect_counter_import_format(text) == CounterImportFormat::kEthtoolFec);
  auto imp = import_repo_file(CounterImportFormat::kEthtoolFec, kJsonHist);
  REQUIRE(imp.series.size() == 1);
  auto v = values(imp.series[0][0], "eni8np1");
  CHECK(v.size() == 2);
  CHECK(v["fec-corrected_blocks"] == 123);
  CHECK(v["fec-uncorrectable_blocks"] == 4);
  CHECK(imp.facts["fec"]["eni8np1"]["active"] == "None");
  CHECK(imp.facts["fec"]["eni8np1"]["configured"] == "None");
  check_hist(imp.facts["fec"]["eni8np1"]["hist"]);
  CHECK(imp.gaps.empty());
  auto r = interpret_repo_file(CounterImportFormat::kEthtoolFec, kJsonHist);
  CHECK(r.result.unknown_counters == 0);
  CHECK(finding(r.result, "phy_degradation", "eni8np1") != nullptr);
}

TEST_CASE("the same paste in text form: prompt line, Supported/Configured, per_lane on one line") {
  auto imp = import_repo_file(CounterImportFormat::kEthtoolFec, kTextHist);
  REQUIRE(imp.series.size() == 1);
  auto v = values(imp.series[0][0], "eni8np1");
  CHECK(v.size() == 2);
  CHECK(v["fec-uncorrectable_blocks"] == 4);
  CHECK(imp.facts["fec"]["eni8np1"]["configured"] == "None");
  check_hist(imp.facts["fec"]["eni8np1"]["hist"]);
  CHECK(imp.gaps.empty());
  CHECK(imp.notes.empty());
}

TEST_CASE("ethtool 6.18 text: corrected_blocks with per_lane values become the lane counters") {
  auto imp = import_ethtool_fec(
      "FEC parameters for eth2:\nActive FEC encoding: RS\nStatistics:\n"
      "  corrected_blocks: 300 [ per_lane:  100, 200 ]\n  uncorrectable_blocks: 0 [ per_lane: 0, 0 ]\n",
      "t.txt", "");
  REQUIRE(imp);
  auto v = values(imp->series[0][0], "eth2");
  CHECK(v.size() == 6);
  CHECK(v["fec-corrected_blocks_lane1"] == 200);
  CHECK(v["fec-uncorrectable_blocks_lane0"] == 0);
  CHECK(imp->gaps.empty());
  // A per_lane list that is not numbers is a line not understood, never a zero.
  auto bad = import_ethtool_fec("FEC parameters for eth2:\nStatistics:\n  corrected_blocks: 3 [ per_lane: x ]\n",
                                "t.txt", "");
  REQUIRE(bad);
  CHECK(bad->series.empty());
  REQUIRE(bad->gaps.size() == 1);
  CHECK(bad->gaps[0].message.find("t.txt:3") != std::string::npos);
}

TEST_CASE("two JSON runs of two netdevs, the second cut: lanes, a later snapshot and a gap naming the line") {
  auto imp = import_repo_file(CounterImportFormat::kEthtoolFec, kTwoRunsCut);
  REQUIRE(imp.series.size() == 2);
  auto a = values(imp.series[0][0], "ens1f0np0");
  CHECK(a["fec-corrected_blocks"] == 1048576);
  CHECK(a["fec-corrected_blocks_lane3"] == 262144);
  CHECK(a.size() == 10);
  auto b = values(imp.series[1][0], "ens1f1np1");
  CHECK(b["fec-uncorrectable_blocks"] == 17);
  CHECK(b["fec-uncorrectable_blocks_lane2"] == 17);
  CHECK(imp.series[0].size() == 1);  // the cut second run is not a snapshot
  CHECK(imp.facts["fec"]["ens1f1np1"]["active"] == "RS");
  CHECK(imp.facts["fec"]["ens1f1np1"]["configured"] == "Auto");
  REQUIRE(imp.gaps.size() == 1);
  CHECK(imp.gaps[0].source == std::string(kTwoRunsCut) + ":31");
  CHECK(imp.gaps[0].message.find("does not parse") != std::string::npos);
}

TEST_CASE("FEC JSON markers are positive evidence only") {
  CHECK(is_ethtool_fec_json_line("        \"active\": [ \"RS\" ],"));
  CHECK(is_ethtool_fec_json_line("\"config\": [ \"Auto\",\"RS\" ],"));
  CHECK(is_ethtool_fec_json_line("\"uncorrectable_blocks\": {"));
  CHECK_FALSE(is_ethtool_fec_json_line("\"active\": [ \"eth0\" ],"));
  CHECK_FALSE(is_ethtool_fec_json_line("\"config\": [ ],"));
  CHECK_FALSE(is_ethtool_fec_json_line("\"ifname\": \"eth0\","));
  CHECK(detect_tool_in_text("[ {\n  \"ifname\": \"eth0\",\n  \"active\": [ \"BaseR\" ]\n} ]\n").tool ==
        ToolText::kEthtoolFec);
  CHECK(detect_tool_in_text("[ {\n  \"ifname\": \"eth0\",\n  \"mtu\": 1500\n} ]\n").tool != ToolText::kEthtoolFec);
  // A cut single document has nothing to read: refused, naming its line.
  auto cut = import_ethtool_fec("[ {\n  \"ifname\": \"eth0\",\n  \"active\": [ \"RS\"", "c.json", "");
  REQUIRE_FALSE(cut);
  CHECK(cut.error().source == "c.json:1");
  auto parse = parse_fec_hist_bin_name("fec_symbols_err_8_to_15");
  REQUIRE(parse);
  CHECK(parse->first == 8);
  CHECK(parse->second == 15);
  CHECK_FALSE(parse_fec_hist_bin_name("fec_symbol_err_9_to_3"));
}
