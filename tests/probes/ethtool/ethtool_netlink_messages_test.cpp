#include <doctest/doctest.h>

#include <cstring>

#include "tests/support/fake_ethtool_netlink.h"
#include "probes/ethtool/ethtool_netlink_messages.h"
#include "probes/ethtool/netlink_attr.h"

using namespace fabdiag;
using namespace fabdiag::testing;

TEST_CASE("netlink attributes: wire layout of a nest with a string and a u32") {
  NlAttrWriter w;
  size_t h = w.begin_nest(1);
  w.put_string(2, "eth0");
  w.put_u32(3, 4);
  w.end_nest(h);
  const std::vector<uint8_t> expected = {
      24, 0, 0x01, 0x80,                   // nest: len 24, type 1 | NLA_F_NESTED
      9, 0, 2, 0, 'e', 't', 'h', '0', 0, 0, 0, 0,  // string "eth0\0", padded to 12
      8, 0, 3, 0, 4, 0, 0, 0};             // u32 4
  CHECK(w.bytes() == expected);

  auto top = parse_nlattrs(expected.data(), expected.size(), "t");
  REQUIRE(top.ok());
  REQUIRE(top->size() == 1);
  CHECK((*top)[0].type == 1);
  CHECK((*top)[0].nested);
  auto inner = parse_nested((*top)[0], "t");
  REQUIRE(inner.ok());
  REQUIRE(inner->size() == 2);
  CHECK(nlattr_string((*inner)[0]) == "eth0");
  CHECK(*nlattr_u32((*inner)[1]) == 4);
}

TEST_CASE("netlink attributes: truncation and bad lengths are kParse naming the message") {
  const std::vector<uint8_t> short_header = {8, 0};
  auto a = parse_nlattrs(short_header.data(), short_header.size(), "FEC_GET reply");
  REQUIRE_FALSE(a.ok());
  CHECK(a.error().code == ErrorCode::kParse);
  CHECK(a.error().source == "FEC_GET reply");
  const std::vector<uint8_t> too_long = {12, 0, 1, 0, 0, 0, 0, 0};
  CHECK_FALSE(parse_nlattrs(too_long.data(), too_long.size(), "x").ok());
  const std::vector<uint8_t> too_short = {2, 0, 1, 0};
  CHECK_FALSE(parse_nlattrs(too_short.data(), too_short.size(), "x").ok());
  // The last attribute may come without its padding.
  const std::vector<uint8_t> unpadded = {5, 0, 1, 0, 7};
  auto u = parse_nlattrs(unpadded.data(), unpadded.size(), "x");
  REQUIRE(u.ok());
  CHECK(*nlattr_u8((*u)[0]) == 7);
  CHECK_FALSE(nlattr_u32((*u)[0]).has_value());  // short payload
}

TEST_CASE("netlink attributes: u64 at a 4-byte boundary and u64 arrays") {
  NlAttrWriter w;
  put_u64(w, 2, 0x0102030405060708ull);
  std::vector<uint64_t> arr = {10, 1, 2};
  w.put_binary(3, arr.data(), 24);
  w.put_binary(4, arr.data(), 5);
  auto top = parse_nlattrs(w.bytes().data(), w.bytes().size(), "x");
  REQUIRE(top.ok());
  CHECK(*nlattr_u64((*top)[0]) == 0x0102030405060708ull);
  CHECK(*nlattr_u64_array((*top)[1]) == arr);
  CHECK_FALSE(nlattr_u64_array((*top)[2]).has_value());
}

TEST_CASE("requests: header with DEV_NAME and FLAGS, STATS_GET asks for four groups, EEPROM read fields") {
  auto h = encode_header_request(ethnl::kPauseHeader, "ens1f0np0", ethnl::kFlagStats);
  FakeEthtoolFamily fam;
  fam.replies[ethnl::kMsgPauseGet] = pause_reply(true, true, std::nullopt);
  REQUIRE(fam.request(ethnl::kMsgPauseGet, h).ok());
  REQUIRE(fam.seen.size() == 1);
  CHECK(fam.seen[0].netdev == "ens1f0np0");
  CHECK(fam.seen[0].flags == ethnl::kFlagStats);
  CHECK(fam.seen[0].header_nested_flag);
  auto plain = encode_header_request(1, "eth0", 0);
  auto top = parse_nlattrs(plain.data(), plain.size(), "x");
  REQUIRE(top.ok());
  auto inner = parse_nested((*top)[0], "x");
  REQUIRE(inner.ok());
  CHECK(inner->size() == 1);  // no FLAGS attribute when there are none

  auto st = encode_stats_request("eth0");
  auto sa = parse_nlattrs(st.data(), st.size(), "x");
  REQUIRE(sa.ok());
  REQUIRE(sa->size() == 2);
  CHECK((*sa)[0].type == ethnl::kStatsHeader);
  CHECK((*sa)[1].type == ethnl::kStatsGroups);
  CHECK((*sa)[1].nested);
  auto bits = parse_nested((*sa)[1], "x");
  REQUIRE(bits.ok());
  REQUIRE(bits->size() == 3);
  CHECK((*bits)[0].type == ethnl::kBitsetNomask);
  CHECK((*bits)[0].len == 0);
  CHECK(*nlattr_u32((*bits)[1]) == 4);
  CHECK(*nlattr_u32((*bits)[2]) == 0x0F);

  fam.module = ModuleMemory{};
  REQUIRE(fam.request(ethnl::kMsgModuleEepromGet,
                      encode_module_eeprom_request("eth0", EepromRead{0x51, 2, 0x11, 128, 64}))
              .ok());
  REQUIRE(fam.seen.back().eeprom.has_value());
  CHECK(fam.seen.back().eeprom->i2c_address == 0x51);
  CHECK(fam.seen.back().eeprom->bank == 2);
  CHECK(fam.seen.back().eeprom->page == 0x11);
  CHECK(fam.seen.back().eeprom->offset == 128);
  CHECK(fam.seen.back().eeprom->length == 64);
}

TEST_CASE("LINKMODES reply: speed, lanes, duplex, autoneg, unknown attributes and bitsets ignored") {
  LinkFacts f;
  REQUIRE(decode_linkmodes_reply(linkmodes_reply(400000, 4, 1, 1), f).ok());
  CHECK(*f.speed_mbps == 400000);
  CHECK(*f.lanes == 4);
  CHECK(f.duplex == "full");
  CHECK(*f.autoneg);
  LinkFacts down;
  REQUIRE(decode_linkmodes_reply(linkmodes_reply(0xFFFFFFFFu, 0, 0xFF, 0), down).ok());
  CHECK_FALSE(down.speed_mbps.has_value());  // SPEED_UNKNOWN
  CHECK_FALSE(down.lanes.has_value());
  CHECK(down.duplex.empty());                // DUPLEX_UNKNOWN
  CHECK_FALSE(*down.autoneg);
}

TEST_CASE("LINKSTATE reply: link, extended state names, link-down count as a statistic") {
  LinkFacts f;
  std::vector<NetlinkStat> stats;
  REQUIRE(decode_linkstate_reply(linkstate_reply(false, 5, 1, 7), f, stats).ok());
  CHECK_FALSE(*f.link_up);
  CHECK(*f.ext_state == 5);
  CHECK(f.ext_state_name == "CABLE_ISSUE");
  CHECK(f.ext_substate_name == "UNSUPPORTED_CABLE");
  CHECK(*f.link_down_events == 7);
  REQUIRE(stats.size() == 1);
  CHECK(stats[0].name == "linkstate-link_down_events");
  CHECK(stats[0].value == 7);
  CHECK(link_ext_state_name(3) == "BAD_SIGNAL_INTEGRITY");
  CHECK(link_ext_substate_name(3, 4) == "SERDES_ALOS");
  CHECK(link_ext_substate_name(0, 1) == "NO_PARTNER_DETECTED");
  CHECK(link_ext_substate_name(10, 1) == "CMIS_NOT_READY");
  CHECK(link_ext_state_name(40) == "state 40");
  CHECK(link_ext_substate_name(4, 1) == "substate 1");
}

TEST_CASE("PAUSE reply: configuration and the two frame counters (PAD skipped)") {
  LinkFacts f;
  std::vector<NetlinkStat> stats;
  REQUIRE(decode_pause_reply(pause_reply(true, false, std::make_pair(uint64_t{11}, uint64_t{22})), f, stats).ok());
  CHECK(*f.pause_rx);
  CHECK_FALSE(*f.pause_tx);
  CHECK_FALSE(*f.pause_autoneg);
  REQUIRE(stats.size() == 2);
  CHECK(stats[0].name == "pause-tx_pause_frames");
  CHECK(stats[0].value == 11);
  CHECK(stats[1].name == "pause-rx_pause_frames");
  CHECK(stats[1].value == 22);
  CHECK(stats[1].message == "PAUSE_GET");
}

TEST_CASE("FEC reply: active mode, totals and per-lane arrays, an empty array is not a counter") {
  LinkFacts f;
  std::vector<NetlinkStat> stats;
  REQUIRE(decode_fec_reply(fec_reply(ethnl::kLinkModeFecRs, {100, 40, 60}, {3}, {}), f, stats).ok());
  CHECK(f.fec_active == "RS");
  REQUIRE(stats.size() == 4);
  CHECK(stats[0].name == "fec-corrected_blocks");
  CHECK(stats[0].value == 100);
  CHECK(stats[1].name == "fec-corrected_blocks_lane0");
  CHECK(stats[1].value == 40);
  CHECK(stats[2].name == "fec-corrected_blocks_lane1");
  CHECK(stats[3].name == "fec-uncorrectable_blocks");
  CHECK(stats[3].value == 3);
  CHECK(fec_mode_name(ethnl::kLinkModeFecNone) == "None");
  CHECK(fec_mode_name(ethnl::kLinkModeFecLlrs) == "LLRS");
  CHECK(fec_mode_name(ethnl::kLinkModeFecBaser) == "BaseR");

  // An array that is not a multiple of 8 bytes is malformed.
  NlAttrWriter w;
  size_t s = w.begin_nest(ethnl::kFecStats);
  uint32_t four = 4;
  w.put_binary(ethnl::kFecStatUncorr, &four, 4);
  w.end_nest(s);
  std::vector<NetlinkStat> none;
  auto st = decode_fec_reply(w.bytes(), f, none);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::kParse);
}

TEST_CASE("STATS reply: one STAT nest per statistic, unknown groups skipped, unknown ids kept") {
  NlAttrWriter w;
  w.put_flag(1);  // PAD
  stats_group(w, 1, {{4, 17}, {0, 1000}, {12, 5000}, {30, 9}});  // eth-mac
  stats_group(w, 0, {{0, 3}});                                  // eth-phy
  stats_group(w, 9, {{0, 1}});                                  // a group from the future
  stats_group(w, 3, {{1, 2}});                                  // rmon oversize
  std::vector<NetlinkStat> stats;
  REQUIRE(decode_stats_reply(w.bytes(), stats).ok());
  REQUIRE(stats.size() == 6);
  CHECK(stats[0].name == "eth-mac-FrameCheckSequenceErrors");
  CHECK(stats[0].value == 17);
  CHECK(stats[0].message == "STATS_GET eth-mac");
  CHECK(stats[1].name == "eth-mac-FramesTransmittedOK");
  CHECK(stats[2].name == "eth-mac-OctetsReceivedOK");
  CHECK(stats[3].name == "eth-mac-stat30");
  CHECK(stats[4].name == "eth-phy-SymbolErrorDuringCarrier");
  CHECK(stats[4].value == 3);
  CHECK(stats[5].name == "rmon-etherStatsOversizePkts");
}

TEST_CASE("MODULE_EEPROM reply: DATA bytes, or kParse without DATA") {
  NlAttrWriter w;
  const uint8_t bytes[] = {0x11, 0x07, 0x00};
  w.put_binary(ethnl::kEepromData, bytes, 3);
  auto d = decode_module_eeprom_reply(w.bytes());
  REQUIRE(d.ok());
  CHECK(*d == std::vector<uint8_t>{0x11, 0x07, 0x00});
  NlAttrWriter empty;
  empty.put_u32(ethnl::kEepromOffset, 0);
  CHECK_FALSE(decode_module_eeprom_reply(empty.bytes()).ok());
}
