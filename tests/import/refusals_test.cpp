// Readers refuse what is not theirs: detection needs positive evidence (import/format_detect.h),
// a named format refuted by another tool's markers is a kParse naming the file and line, binary
// junk is no log, a cut nccl-tests section is a gap, ethtool --show-fec is its own format.
#include <doctest/doctest.h>

#include "import/ethtool_fec.h"
#include "import/ethtool_s.h"
#include "import/format_detect.h"
#include "import/host_formats.h"
#include "import/nccl_tests.h"
#include "import/syslog.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {

constexpr const char* kIbstat = "tests/fixtures/cases/013-ibstat-cx7-two-ports-down.input.txt";
constexpr const char* kIbvDevinfo = "tests/fixtures/ibv_devinfo/verbose-roce.txt";
constexpr const char* kShowFec = "tests/fixtures/cases/036-ethtool-show-fec-per-lane-corrected-uncorrectable-blocks.input.txt";
constexpr const char* kJunk = "tests/fixtures/import/binary-junk.bin";
constexpr const char* kCutNccl = "tests/fixtures/nccl-tests/cut-after-section-header.txt";

std::vector<std::string> head_of(const std::string& text) {
  auto lines = text_line_source(text);
  PeekedLineSource p(std::move(lines), 256);
  return p.head();
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("ibstat and ibv_devinfo text is not ethtool -S: not detected, and refused when named") {
  for (const char* file : {kIbstat, kIbvDevinfo}) {
    INFO(file);
    std::string text = repo_text(file);
    CHECK_FALSE(detect_counter_import_format(text).has_value());
    auto detected = counter_format_of(std::nullopt, head_of(text), file);
    REQUIRE_FALSE(detected.ok());
    CHECK(detected.error().code == ErrorCode::kInvalidArgument);
    CHECK(contains(detected.error().message, file == kIbstat ? "ibstat output, not counters (line 1" : "ibv_devinfo output"));
    auto named = counter_format_of(CounterImportFormat::kEthtoolS, head_of(text), file);
    REQUIRE_FALSE(named.ok());
    CHECK(named.error().code == ErrorCode::kParse);
    CHECK(named.error().source == std::string(file) + ":1");
    CHECK(contains(named.error().message, "expected `ethtool -S` output, but this is"));
  }
  // The host formats detect them by the same markers.
  CHECK(detect_format(repo_text(kIbstat)) == InputFormat::kIbstat);
  CHECK(detect_format(repo_text(kIbvDevinfo)) == InputFormat::kIbvDevinfo);
}

TEST_CASE("ethtool -S detection needs a header or counter-shaped lines without blanks in the names") {
  CHECK(detect_tool_in_text("NIC statistics:\n rx_packets: 1\n").tool == ToolText::kEthtoolS);
  CHECK(detect_tool_in_text(" rx_packets: 1\n tx_packets: 2\n").tool == ToolText::kEthtoolS);
  // ibstat's port block without its "CA '" line: "Base lid: 12" is no counter name.
  auto port_block = detect_tool_in_text("Port 1:\n\tState: Active\n\tBase lid: 12\n\tLMC: 0\n\tSM lid: 1\n");
  CHECK(port_block.tool == ToolText::kUnknown);
  CHECK(detect_tool_in_text("Port 1:\n\tCapability mask: 0x2651e848\n").tool == ToolText::kIbstat);
  // A named ethtool -S without a single counter: the first offending line is named.
  auto none = import_ethtool_s("hello\nworld: x\n", "notes.txt", "eth0");
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().source == "notes.txt:1");
  CHECK(contains(none.error().message, "expected `ethtool -S` output"));
  CHECK(contains(none.error().message, "\"hello\""));
}

TEST_CASE("case 036: ethtool --show-fec is recognised, refused as ethtool -S, read as ethtool-fec") {
  std::string text = repo_text(kShowFec);
  CHECK(detect_counter_import_format(text) == CounterImportFormat::kEthtoolFec);
  auto as_s = counter_format_of(CounterImportFormat::kEthtoolS, head_of(text), kShowFec);
  REQUIRE_FALSE(as_s.ok());
  CHECK(contains(as_s.error().message, "but this is `ethtool --show-fec` output"));
  CHECK(as_s.error().source == std::string(kShowFec) + ":2");

  auto imp = import_repo_file(CounterImportFormat::kEthtoolFec, kShowFec);
  REQUIRE(imp.series.size() == 1);
  REQUIRE(imp.series[0].size() == 1);
  std::map<std::string, uint64_t> v;
  for (const auto& c : imp.series[0][0].samples) {
    CHECK(c.device == "eth0");
    v[c.name] = c.value;
  }
  CHECK(v.size() == 6);
  CHECK(v["fec-corrected_blocks"] == 256);
  CHECK(v["fec-corrected_blocks_lane0"] == 255);
  CHECK(v["fec-corrected_blocks_lane1"] == 1);
  CHECK(v["fec-uncorrectable_blocks"] == 145);
  CHECK(v["fec-uncorrectable_blocks_lane0"] == 128);
  CHECK(v["fec-uncorrectable_blocks_lane1"] == 17);
  CHECK(imp.facts["fec"]["eth0"]["active"] == "None");
  CHECK(imp.facts["fec"]["eth0"]["configured"] == "None");
  CHECK(imp.gaps.empty());
  // The knowledge base knows every one of them (the names of the live netlink source).
  auto r = interpret_repo_file(CounterImportFormat::kEthtoolFec, kShowFec);
  CHECK(r.result.unknown_counters == 0);
  CHECK(change(r.combined.input, "eth0", "fec-uncorrectable_blocks")->counter.category == CounterCategory::kPhyError);
  CHECK_FALSE(import_ethtool_fec("rx_packets: 1\n", "x", "").ok());
}

TEST_CASE("syslog: binary junk and text without a logged line are refused, naming the line") {
  auto junk = import_syslog(repo_text(kJunk), kJunk);
  REQUIRE_FALSE(junk.ok());
  CHECK(junk.error().code == ErrorCode::kParse);
  CHECK(junk.error().source == std::string(kJunk) + ":1");
  CHECK(contains(junk.error().message, "expected syslog, journal or dmesg lines"));
  CHECK(contains(junk.error().message, "NUL bytes"));
  auto prose = import_syslog("dear operator,\nthe link is fine.\n", "letter.txt");
  REQUIRE_FALSE(prose.ok());
  CHECK(prose.error().source == "letter.txt:1");
  // A log without carrier loss stays a valid, healthy input; so do untimed dmesg -t lines.
  CHECK(import_syslog("Jan 10 12:00:01 host kernel: mlx5_core 0000:17:00.0: firmware ok\n", "l").ok());
  CHECK(import_syslog("mlx5_core 0000:17:00.0 ens1f0np0: Link down\n", "l").ok());
  CHECK(import_syslog("<6>[ 12.5] eth0: renamed\n", "l").ok());
}

TEST_CASE("nccl-tests: a section cut right after its header is a NOT READ gap") {
  auto imp = baseline::parse_nccl_tests(repo_text(kCutNccl), kCutNccl);
  REQUIRE(imp.ok());
  CHECK(imp->tables.size() == 1);
  REQUIRE(imp->gaps.size() == 1);
  CHECK(imp->gaps[0].source == std::string(kCutNccl) + ":10");
  CHECK(contains(imp->gaps[0].message, "section \"### alltoall_perf\" holds no result table: NOT READ"));
  // A section between two that holds nothing is cut too; one with a table is not.
  auto mid = baseline::parse_nccl_tests("### alltoall_perf\n" + repo_text(kCutNccl), "m");
  REQUIRE(mid.ok());
  REQUIRE(mid->gaps.size() == 2);
  CHECK(mid->gaps[0].source == "m:1");
  CHECK(mid->gaps[1].source == "m:11");
}

TEST_CASE("a named host format refuted by another tool's markers") {
  auto st = check_named_tool(ToolText::kIbstat, head_of(repo_text(kIbvDevinfo)), "x.txt");
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().source == "x.txt:1");
  CHECK(contains(st.error().message, "expected ibstat output, but this is ibv_devinfo output"));
  CHECK(check_named_tool(ToolText::kIbstat, head_of(repo_text(kIbstat)), "x.txt").ok());
  // Logs and nccl-tests output carry other tools' lines: not refused by markers.
  CHECK(check_named_tool(ToolText::kSyslog, head_of(repo_text(kIbstat)), "x.txt").ok());
}
