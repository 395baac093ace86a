#include <doctest/doctest.h>

#include <cstdint>

#include "probes/counters/ethtool_s_text.h"

using namespace fabdiag;

TEST_CASE("ethtool -S text, strict: names with dots, the header, u64 values") {
  auto r = parse_ethtool_s_text(
      "NIC statistics:\n     rx_pause_ctrl_phy: 1000\n     rx_crc_errors.nic: 4\n\n"
      "     port.rx_priority_3_xoff_rx: 7\n     tx_queue_0_packets: 18446744073709551615\n",
      "f", EthtoolSStrictness::kStrict);
  REQUIRE(r.ok());
  REQUIRE(r->stats.size() == 4);
  CHECK(r->stats[0].name == "rx_pause_ctrl_phy");
  CHECK(r->stats[0].value == 1000);
  CHECK(r->stats[1].name == "rx_crc_errors.nic");
  CHECK(r->stats[2].name == "port.rx_priority_3_xoff_rx");
  CHECK(r->stats[3].value == UINT64_MAX);
  CHECK(r->stat_lines == std::vector<size_t>{2, 3, 5, 6});
  CHECK(r->bad_lines.empty());
  auto bad = parse_ethtool_s_text("NIC statistics:\n  rx: 1\n  tx: lots\n", "cap.txt", EthtoolSStrictness::kStrict);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::kParse);
  CHECK(bad.error().message == "line 3 has no unsigned value: tx: lots");
  CHECK(bad.error().source == "cap.txt");
  auto no_colon = parse_ethtool_s_text("no colon here\n", "x", EthtoolSStrictness::kStrict);
  REQUIRE_FALSE(no_colon.ok());
  CHECK(no_colon.error().message == "line 1 is not \"name: value\": no colon here");
  CHECK(parse_ethtool_s_text("", "x", EthtoolSStrictness::kStrict)->stats.empty());
}

TEST_CASE("ethtool -S text, lenient: bad lines are listed, counted from first_line") {
  auto r = parse_ethtool_s_text(
      "# captured on node07\nStandard stats for ens1f0np0:\n  rx_bytes: 10\n  garbage\n  tx: lots\n"
      "  tx_bytes: 20\n",
      "cap.txt", EthtoolSStrictness::kLenient, 11);
  REQUIRE(r.ok());
  REQUIRE(r->stats.size() == 2);
  CHECK(r->stats[0].name == "rx_bytes");
  CHECK(r->stats[1].value == 20);
  CHECK(r->stat_lines == std::vector<size_t>{13, 16});
  CHECK(r->bad_lines == std::vector<size_t>{14, 15});
  // A header is only a header as the first line that says something.
  auto late = parse_ethtool_s_text("rx_bytes: 1\nNIC statistics:\n", "x", EthtoolSStrictness::kLenient);
  REQUIRE(late.ok());
  CHECK(late->bad_lines == std::vector<size_t>{2});
}
