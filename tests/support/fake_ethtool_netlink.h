// Test helper: a fake "ethtool" generic-netlink family behind EthtoolNetlinkTransport. It
// parses each request like the kernel does (header nest with NLA_F_NESTED, DEV_NAME, FLAGS;
// MODULE_EEPROM_GET offset/length/page/bank/I2C address) and answers with hand-built replies,
// with errnos, or as a kernel without the family.
#pragma once

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "probes/ethtool/ethtool_netlink.h"
#include "probes/ethtool/ethtool_netlink_messages.h"
#include "probes/module/module_pages.h"
#include "probes/ethtool/netlink_attr.h"

namespace fabdiag::testing {

inline void put_u64(NlAttrWriter& w, uint16_t type, uint64_t v) { w.put_binary(type, &v, 8); }

/// What the fake saw of one request.
struct SeenRequest {
  uint8_t cmd = 0;
  std::string netdev;
  uint32_t flags = 0;
  bool header_nested_flag = false;
  std::optional<EepromRead> eeprom;
};

class FakeEthtoolFamily final : public EthtoolNetlinkTransport {
 public:
  /// cmd -> reply attribute areas, without and with ETHTOOL_FLAG_STATS.
  std::map<uint8_t, std::vector<uint8_t>> replies, replies_with_stats;
  /// cmd -> errno the kernel answers.
  std::map<uint8_t, int> errors;
  /// Kernel before "stats on this request type": FLAG_STATS gets EINVAL for these commands.
  std::set<uint8_t> einval_on_stats;
  /// No "ethtool" family (or no libnl): every request fails with kUnsupported.
  bool missing = false;
  /// Transport failure (socket trouble) for every request.
  bool broken = false;
  /// The module; MODULE_EEPROM_GET answers from it, or with `module_errno`.
  std::optional<ModuleMemory> module;
  int module_errno = 0;
  /// Pages (page number) whose reads fail with EIO.
  std::set<uint8_t> unreadable_pages;
  mutable std::vector<SeenRequest> seen;

  Result<NetlinkReply> request(uint8_t cmd, const std::vector<uint8_t>& attrs) const override {
    if (missing)
      return make_error(ErrorCode::kUnsupported, "the kernel has no \"ethtool\" generic netlink family",
                        "ethtool netlink");
    if (broken) return make_error(ErrorCode::kIo, "netlink receive failed: boom", "ethtool netlink");
    SeenRequest r = parse(cmd, attrs);
    seen.push_back(r);
    NetlinkReply rep;
    if (auto it = errors.find(cmd); it != errors.end()) {
      rep.error = it->second;
      return rep;
    }
    if ((r.flags & ethnl::kFlagStats) && einval_on_stats.count(cmd)) {
      rep.error = EINVAL;
      rep.error_message = "reserved bit set";
      return rep;
    }
    if (cmd == ethnl::kMsgModuleEepromGet) return eeprom(r);
    const auto& table = (r.flags & ethnl::kFlagStats) && replies_with_stats.count(cmd) ? replies_with_stats : replies;
    auto it = table.find(cmd);
    if (it == table.end()) {
      rep.error = EOPNOTSUPP;
      return rep;
    }
    rep.messages.push_back(it->second);
    return rep;
  }
  std::string describe() const override { return "fake ethtool family"; }

  /// How many requests of `cmd` were sent.
  size_t count(uint8_t cmd) const {
    size_t n = 0;
    for (const auto& s : seen) n += s.cmd == cmd;
    return n;
  }

 private:
  static SeenRequest parse(uint8_t cmd, const std::vector<uint8_t>& attrs) {
    SeenRequest r;
    r.cmd = cmd;
    auto top = parse_nlattrs(attrs.data(), attrs.size(), "request");
    if (!top) return r;
    EepromRead e;
    bool is_eeprom = false;
    const uint16_t header = cmd == ethnl::kMsgStatsGet ? ethnl::kStatsHeader : 1;
    for (const auto& a : *top) {
      if (a.type == header) {
        r.header_nested_flag = a.nested;
        auto inner = parse_nested(a, "header");
        if (!inner) continue;
        for (const auto& h : *inner) {
          if (h.type == ethnl::kHeaderDevName) r.netdev = nlattr_string(h);
          if (h.type == ethnl::kHeaderFlags) r.flags = *nlattr_u32(h);
        }
      } else if (cmd == ethnl::kMsgModuleEepromGet) {
        is_eeprom = true;
        if (a.type == ethnl::kEepromOffset) e.offset = static_cast<uint8_t>(*nlattr_u32(a));
        if (a.type == ethnl::kEepromLength) e.length = static_cast<uint8_t>(*nlattr_u32(a));
        if (a.type == ethnl::kEepromPage) e.page = *nlattr_u8(a);
        if (a.type == ethnl::kEepromBank) e.bank = *nlattr_u8(a);
        if (a.type == ethnl::kEepromI2cAddress) e.i2c_address = *nlattr_u8(a);
      }
    }
    if (is_eeprom) r.eeprom = e;
    return r;
  }

  NetlinkReply eeprom(const SeenRequest& r) const {
    NetlinkReply rep;
    if (module_errno) {
      rep.error = module_errno;
      return rep;
    }
    if (!module) {
      rep.error = EOPNOTSUPP;
      return rep;
    }
    const EepromRead& e = *r.eeprom;
    if (e.length == 0 || e.length > 128 || (e.offset < 128 && e.offset + e.length > 128) ||
        (e.page > 0 && e.offset < 128)) {
      rep.error = EINVAL;  // the kernel's checks
      return rep;
    }
    if (unreadable_pages.count(e.page)) {
      rep.error = EIO;
      return rep;
    }
    std::vector<uint8_t> data;
    for (unsigned o = e.offset; o < e.offset + e.length; ++o)
      data.push_back(module->byte(e.i2c_address, e.bank, e.page, o).value_or(0));
    NlAttrWriter w;
    w.put_binary(ethnl::kEepromData, data.data(), data.size());
    rep.messages.push_back(w.bytes());
    return rep;
  }
};

// ---- reply builders (the kernel's attribute layout) ----

/// LINKMODES_GET reply: header nest, AUTONEG, an OURS bitset nest (ignored), SPEED, DUPLEX, LANES,
/// and an attribute number from the future (ignored).
inline std::vector<uint8_t> linkmodes_reply(uint32_t speed, uint32_t lanes, uint8_t duplex, uint8_t autoneg) {
  NlAttrWriter w;
  size_t h = w.begin_nest(ethnl::kLinkmodesHeader);
  w.put_u32(1, 7);  // DEV_INDEX
  w.put_string(ethnl::kHeaderDevName, "ens1f0np0");
  w.end_nest(h);
  w.put_u8(ethnl::kLinkmodesAutoneg, autoneg);
  size_t b = w.begin_nest(3);  // OURS bitset
  w.put_u32(2, 100);
  w.end_nest(b);
  w.put_u32(ethnl::kLinkmodesSpeed, speed);
  w.put_u8(ethnl::kLinkmodesDuplex, duplex);
  if (lanes) w.put_u32(ethnl::kLinkmodesLanes, lanes);
  w.put_u32(42, 0xDEAD);  // unknown attribute
  return w.bytes();
}

inline std::vector<uint8_t> linkstate_reply(bool link, std::optional<uint8_t> ext_state,
                                            std::optional<uint8_t> ext_sub,
                                            std::optional<uint32_t> down_cnt) {
  NlAttrWriter w;
  w.put_u8(ethnl::kLinkstateLink, link ? 1 : 0);
  if (ext_state) w.put_u8(ethnl::kLinkstateExtState, *ext_state);
  if (ext_sub) w.put_u8(ethnl::kLinkstateExtSubstate, *ext_sub);
  if (down_cnt) w.put_u32(ethnl::kLinkstateExtDownCnt, *down_cnt);
  return w.bytes();
}

inline std::vector<uint8_t> pause_reply(bool rx, bool tx, std::optional<std::pair<uint64_t, uint64_t>> tx_rx_frames) {
  NlAttrWriter w;
  w.put_u8(ethnl::kPauseAutoneg, 0);
  w.put_u8(ethnl::kPauseRx, rx);
  w.put_u8(ethnl::kPauseTx, tx);
  if (tx_rx_frames) {
    size_t s = w.begin_nest(ethnl::kPauseStats);
    w.put_flag(1);  // PAD
    put_u64(w, ethnl::kPauseStatTxFrames, tx_rx_frames->first);
    put_u64(w, ethnl::kPauseStatRxFrames, tx_rx_frames->second);
    w.end_nest(s);
  }
  return w.bytes();
}

inline std::vector<uint8_t> fec_reply(uint32_t active_bit, const std::vector<uint64_t>& corrected,
                                      const std::vector<uint64_t>& uncorr, const std::vector<uint64_t>& bits) {
  NlAttrWriter w;
  w.put_u8(3, 0);  // AUTO
  w.put_u32(ethnl::kFecActive, active_bit);
  size_t s = w.begin_nest(ethnl::kFecStats);
  w.put_binary(ethnl::kFecStatCorrected, corrected.data(), corrected.size() * 8);
  w.put_binary(ethnl::kFecStatUncorr, uncorr.data(), uncorr.size() * 8);
  w.put_binary(ethnl::kFecStatCorrBits, bits.data(), bits.size() * 8);
  w.end_nest(s);
  return w.bytes();
}

/// STATS_GET reply group: id and (stat id, value) pairs, each in its own STAT nest.
inline void stats_group(NlAttrWriter& w, uint32_t id, const std::vector<std::pair<uint16_t, uint64_t>>& stats) {
  size_t g = w.begin_nest(ethnl::kStatsGrp);
  w.put_u32(ethnl::kStatsGrpId, id);
  w.put_u32(3, 20 + id);  // SS_ID
  for (const auto& [sid, v] : stats) {
    size_t st = w.begin_nest(ethnl::kStatsGrpStat);
    put_u64(w, sid, v);
    w.end_nest(st);
  }
  w.end_nest(g);
}

}  // namespace fabdiag::testing
