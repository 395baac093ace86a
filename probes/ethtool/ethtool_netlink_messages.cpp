#include "probes/ethtool/ethtool_netlink_messages.h"

#include <iterator>

#include "probes/ethtool/netlink_attr.h"

namespace fabdiag {
namespace {


Error short_payload(const char* what, const char* attr) {
  return make_error(ErrorCode::kParse, std::string("attribute ") + attr + " has a short payload",
                    std::string("ethtool netlink ") + what);
}

// IEEE 802.3 names of the standard statistics, indexed by stat id (ETH_SS_STATS_STD string
// sets; linux:net/ethtool/common.c stats_eth_*_names, stats_rmon_names).
const char* const kEthPhy[] = {"SymbolErrorDuringCarrier"};
const char* const kEthMac[] = {
    "FramesTransmittedOK",      "SingleCollisionFrames",       "MultipleCollisionFrames",
    "FramesReceivedOK",         "FrameCheckSequenceErrors",    "AlignmentErrors",
    "OctetsTransmittedOK",      "FramesWithDeferredXmissions", "LateCollisions",
    "FramesAbortedDueToXSColls", "FramesLostDueToIntMACXmitError", "CarrierSenseErrors",
    "OctetsReceivedOK",         "FramesLostDueToIntMACRcvError", "MulticastFramesXmittedOK",
    "BroadcastFramesXmittedOK", "FramesWithExcessiveDeferral", "MulticastFramesReceivedOK",
    "BroadcastFramesReceivedOK", "InRangeLengthErrors",        "OutOfRangeLengthField",
    "FrameTooLongErrors"};
const char* const kEthCtrl[] = {"MACControlFramesTransmitted", "MACControlFramesReceived",
                                "UnsupportedOpcodesReceived"};
const char* const kRmon[] = {"etherStatsUndersizePkts", "etherStatsOversizePkts",
                             "etherStatsFragments", "etherStatsJabbers"};

struct Group {
  const char* prefix;
  const char* const* names;
  size_t count;
};
const Group kGroups[] = {{"eth-phy", kEthPhy, std::size(kEthPhy)},
                         {"eth-mac", kEthMac, std::size(kEthMac)},
                         {"eth-ctrl", kEthCtrl, std::size(kEthCtrl)},
                         {"rmon", kRmon, std::size(kRmon)}};
static_assert(std::size(kGroups) == ethnl::kStatsGroupCount);

std::optional<bool> as_bool(const NlAttr& a) {
  auto v = nlattr_u8(a);
  if (!v) return std::nullopt;
  return *v != 0;
}

void add_fec_stat(const std::vector<uint64_t>& v, const char* name, std::vector<NetlinkStat>& out) {
  if (v.empty()) return;  // length 0 = the driver does not report it
  out.push_back({std::string("fec-") + name, v[0], "FEC_GET"});
  for (size_t lane = 1; lane < v.size(); ++lane)
    out.push_back({std::string("fec-") + name + "_lane" + std::to_string(lane - 1), v[lane], "FEC_GET"});
}

}  // namespace

std::vector<uint8_t> encode_header_request(uint16_t header_attr, const std::string& netdev,
                                           uint32_t flags) {
  NlAttrWriter w;
  size_t h = w.begin_nest(header_attr);
  w.put_string(ethnl::kHeaderDevName, netdev);
  if (flags) w.put_u32(ethnl::kHeaderFlags, flags);
  w.end_nest(h);
  return w.bytes();
}

std::vector<uint8_t> encode_stats_request(const std::string& netdev) {
  std::vector<uint8_t> out = encode_header_request(ethnl::kStatsHeader, netdev, 0);
  NlAttrWriter w;
  size_t g = w.begin_nest(ethnl::kStatsGroups);
  w.put_flag(ethnl::kBitsetNomask);
  w.put_u32(ethnl::kBitsetSize, ethnl::kStatsGroupCount);
  uint32_t bits = (1u << ethnl::kStatsGroupCount) - 1;
  w.put_binary(ethnl::kBitsetValue, &bits, sizeof bits);
  w.end_nest(g);
  out.insert(out.end(), w.bytes().begin(), w.bytes().end());
  return out;
}

std::vector<uint8_t> encode_module_eeprom_request(const std::string& netdev, const EepromRead& r) {
  std::vector<uint8_t> out = encode_header_request(ethnl::kEepromHeader, netdev, 0);
  NlAttrWriter w;
  w.put_u32(ethnl::kEepromOffset, r.offset);
  w.put_u32(ethnl::kEepromLength, r.length);
  w.put_u8(ethnl::kEepromPage, r.page);
  w.put_u8(ethnl::kEepromBank, r.bank);
  w.put_u8(ethnl::kEepromI2cAddress, r.i2c_address);
  out.insert(out.end(), w.bytes().begin(), w.bytes().end());
  return out;
}

Status decode_linkmodes_reply(const std::vector<uint8_t>& attrs, LinkFacts& out) {
  auto top = parse_nlattrs(attrs.data(), attrs.size(), "ethtool netlink LINKMODES_GET reply");
  if (!top) return top.error();
  for (const auto& a : *top) {
    switch (a.type) {
      case ethnl::kLinkmodesSpeed: {
        auto v = nlattr_u32(a);
        if (!v) return short_payload("LINKMODES_GET", "SPEED");
        if (*v == 0xFFFFFFFFu || *v == 0) out.speed_mbps.reset();  // SPEED_UNKNOWN
        else out.speed_mbps = *v;
        break;
      }
      case ethnl::kLinkmodesLanes: {
        auto v = nlattr_u32(a);
        if (!v) return short_payload("LINKMODES_GET", "LANES");
        if (*v > 0) out.lanes = *v;
        break;
      }
      case ethnl::kLinkmodesDuplex: {
        auto v = nlattr_u8(a);
        if (!v) return short_payload("LINKMODES_GET", "DUPLEX");
        out.duplex = *v == 0 ? "half" : *v == 1 ? "full" : "";
        break;
      }
      case ethnl::kLinkmodesAutoneg:
        out.autoneg = as_bool(a);
        break;
      default: break;  // bitsets and newer attributes
    }
  }
  return Ok{};
}

Status decode_linkstate_reply(const std::vector<uint8_t>& attrs, LinkFacts& out,
                              std::vector<NetlinkStat>& stats) {
  auto top = parse_nlattrs(attrs.data(), attrs.size(), "ethtool netlink LINKSTATE_GET reply");
  if (!top) return top.error();
  for (const auto& a : *top) {
    switch (a.type) {
      case ethnl::kLinkstateLink: out.link_up = as_bool(a); break;
      case ethnl::kLinkstateExtState: {
        auto v = nlattr_u8(a);
        if (!v) return short_payload("LINKSTATE_GET", "EXT_STATE");
        out.ext_state = *v;
        break;
      }
      case ethnl::kLinkstateExtSubstate: {
        auto v = nlattr_u8(a);
        if (!v) return short_payload("LINKSTATE_GET", "EXT_SUBSTATE");
        out.ext_substate = *v;
        break;
      }
      case ethnl::kLinkstateExtDownCnt: {
        auto v = nlattr_u32(a);
        if (!v) return short_payload("LINKSTATE_GET", "EXT_DOWN_CNT");
        out.link_down_events = *v;
        stats.push_back({"linkstate-link_down_events", *v, "LINKSTATE_GET"});
        break;
      }
      default: break;
    }
  }
  if (out.ext_state) {
    out.ext_state_name = link_ext_state_name(*out.ext_state);
    if (out.ext_substate) out.ext_substate_name = link_ext_substate_name(*out.ext_state, *out.ext_substate);
  }
  return Ok{};
}

Status decode_pause_reply(const std::vector<uint8_t>& attrs, LinkFacts& out,
                          std::vector<NetlinkStat>& stats) {
  const std::string what = "ethtool netlink PAUSE_GET reply";
  auto top = parse_nlattrs(attrs.data(), attrs.size(), what);
  if (!top) return top.error();
  for (const auto& a : *top) {
    if (a.type == ethnl::kPauseAutoneg) out.pause_autoneg = as_bool(a);
    else if (a.type == ethnl::kPauseRx) out.pause_rx = as_bool(a);
    else if (a.type == ethnl::kPauseTx) out.pause_tx = as_bool(a);
    else if (a.type == ethnl::kPauseStats) {
      auto inner = parse_nested(a, what);
      if (!inner) return inner.error();
      for (const auto& s : *inner) {
        if (s.type != ethnl::kPauseStatTxFrames && s.type != ethnl::kPauseStatRxFrames) continue;
        auto v = nlattr_u64(s);
        if (!v) return short_payload("PAUSE_GET", "PAUSE_STAT");
        stats.push_back({s.type == ethnl::kPauseStatTxFrames ? "pause-tx_pause_frames"
                                                             : "pause-rx_pause_frames",
                         *v, "PAUSE_GET"});
      }
    }
  }
  return Ok{};
}

Status decode_fec_reply(const std::vector<uint8_t>& attrs, LinkFacts& out,
                        std::vector<NetlinkStat>& stats) {
  const std::string what = "ethtool netlink FEC_GET reply";
  auto top = parse_nlattrs(attrs.data(), attrs.size(), what);
  if (!top) return top.error();
  for (const auto& a : *top) {
    if (a.type == ethnl::kFecActive) {
      auto v = nlattr_u32(a);
      if (!v) return short_payload("FEC_GET", "ACTIVE");
      out.fec_active = fec_mode_name(*v);
    } else if (a.type == ethnl::kFecStats) {
      auto inner = parse_nested(a, what);
      if (!inner) return inner.error();
      for (const auto& s : *inner) {
        const char* name = s.type == ethnl::kFecStatCorrected ? "corrected_blocks"
                           : s.type == ethnl::kFecStatUncorr  ? "uncorrectable_blocks"
                           : s.type == ethnl::kFecStatCorrBits ? "corrected_bits"
                                                               : nullptr;
        if (!name) continue;  // PAD and newer statistics
        auto v = nlattr_u64_array(s);
        if (!v)
          return make_error(ErrorCode::kParse,
                            std::string("FEC statistic ") + name + " is not an array of u64", what);
        add_fec_stat(*v, name, stats);
      }
    }
  }
  return Ok{};
}

Status decode_stats_reply(const std::vector<uint8_t>& attrs, std::vector<NetlinkStat>& stats) {
  const std::string what = "ethtool netlink STATS_GET reply";
  auto top = parse_nlattrs(attrs.data(), attrs.size(), what);
  if (!top) return top.error();
  for (const auto& a : *top) {
    if (a.type != ethnl::kStatsGrp) continue;
    auto grp = parse_nested(a, what);
    if (!grp) return grp.error();
    std::optional<uint32_t> id;
    for (const auto& g : *grp)
      if (g.type == ethnl::kStatsGrpId) id = nlattr_u32(g);
    if (!id || *id >= std::size(kGroups)) continue;  // a group this build does not know
    const Group& group = kGroups[*id];
    std::string message = std::string("STATS_GET ") + group.prefix;
    for (const auto& g : *grp) {
      if (g.type != ethnl::kStatsGrpStat) continue;
      // Each STAT nest holds one u64 whose attribute type is the statistic id.
      auto one = parse_nested(g, what);
      if (!one) return one.error();
      for (const auto& s : *one) {
        auto v = nlattr_u64(s);
        if (!v) return short_payload("STATS_GET", "GRP_STAT");
        std::string name = std::string(group.prefix) + "-" +
                           (s.type < group.count ? std::string(group.names[s.type])
                                                 : "stat" + std::to_string(s.type));
        stats.push_back({name, *v, message});
      }
    }
  }
  return Ok{};
}

Result<std::vector<uint8_t>> decode_module_eeprom_reply(const std::vector<uint8_t>& attrs) {
  const std::string what = "ethtool netlink MODULE_EEPROM_GET reply";
  auto top = parse_nlattrs(attrs.data(), attrs.size(), what);
  if (!top) return top.error();
  for (const auto& a : *top)
    if (a.type == ethnl::kEepromData) return std::vector<uint8_t>(a.data, a.data + a.len);
  return make_error(ErrorCode::kParse, "reply without a DATA attribute", what);
}

std::string link_ext_state_name(uint32_t state) {
  static const char* const kNames[] = {
      "AUTONEG",          "LINK_TRAINING_FAILURE", "LINK_LOGICAL_MISMATCH", "BAD_SIGNAL_INTEGRITY",
      "NO_CABLE",         "CABLE_ISSUE",           "EEPROM_ISSUE",          "CALIBRATION_FAILURE",
      "POWER_BUDGET_EXCEEDED", "OVERHEAT",         "MODULE",                "OTP_SPEED_VIOLATION",
      "BMC_REQUEST_DOWN"};
  if (state < std::size(kNames)) return kNames[state];
  return "state " + std::to_string(state);
}

std::string link_ext_substate_name(uint32_t state, uint32_t sub) {
  static const std::vector<std::vector<const char*>> kSub = {
      {"NO_PARTNER_DETECTED", "ACK_NOT_RECEIVED", "NEXT_PAGE_EXCHANGE_FAILED",
       "NO_PARTNER_DETECTED_FORCE_MODE", "FEC_MISMATCH_DURING_OVERRIDE", "NO_HCD"},
      {"KR_FRAME_LOCK_NOT_ACQUIRED", "KR_LINK_INHIBIT_TIMEOUT",
       "KR_LINK_PARTNER_DID_NOT_SET_RECEIVER_READY", "REMOTE_FAULT"},
      {"PCS_DID_NOT_ACQUIRE_BLOCK_LOCK", "PCS_DID_NOT_ACQUIRE_AM_LOCK",
       "PCS_DID_NOT_GET_ALIGN_STATUS", "FC_FEC_IS_NOT_LOCKED", "RS_FEC_IS_NOT_LOCKED"},
      {"LARGE_NUMBER_OF_PHYSICAL_ERRORS", "UNSUPPORTED_RATE", "SERDES_REFERENCE_CLOCK_LOST",
       "SERDES_ALOS"},
      {},
      {"UNSUPPORTED_CABLE", "CABLE_TEST_FAILURE"},
      {}, {}, {}, {},
      {"CMIS_NOT_READY"}};
  // Substate enums start at 1.
  if (state < kSub.size() && sub >= 1 && sub <= kSub[state].size()) return kSub[state][sub - 1];
  return "substate " + std::to_string(sub);
}

std::string fec_mode_name(uint32_t bit) {
  switch (bit) {
    case ethnl::kLinkModeFecNone: return "None";
    case ethnl::kLinkModeFecRs: return "RS";
    case ethnl::kLinkModeFecBaser: return "BaseR";
    case ethnl::kLinkModeFecLlrs: return "LLRS";
    default: return "mode bit " + std::to_string(bit);
  }
}

}  // namespace fabdiag
