// The ethtool generic-netlink messages fabdiag uses: ids and attribute numbers, request builders
// and reply decoders. Plain C++ over probes/ethtool/netlink_attr.h: no netlink header, so the
// decoders are unit-tested with hand-built replies in every build. Numbers from
// linux:include/uapi/linux/ethtool_netlink.h (docs/domain.md#ethtool-netlink); the ones the build
// host's header has are checked against it by static_assert in probes/ethtool/ethtool_netlink.cpp,
// the newer ones (LINKSTATE_EXT_DOWN_CNT, Linux 6.2) are defined here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "probes/counters/counter_model.h"
#include "probes/module/module_pages.h"

namespace fabdiag {
namespace ethnl {

// Message ids, userspace -> kernel (ETHTOOL_MSG_*_GET).
constexpr uint8_t kMsgLinkmodesGet = 4;
constexpr uint8_t kMsgLinkstateGet = 6;
constexpr uint8_t kMsgPauseGet = 21;
constexpr uint8_t kMsgFecGet = 29;
constexpr uint8_t kMsgModuleEepromGet = 31;
constexpr uint8_t kMsgStatsGet = 32;
// Reply ids, kernel -> userspace (ETHTOOL_MSG_*_GET_REPLY).
constexpr uint8_t kMsgLinkmodesGetReply = 4;
constexpr uint8_t kMsgLinkstateGetReply = 6;
constexpr uint8_t kMsgPauseGetReply = 22;
constexpr uint8_t kMsgFecGetReply = 30;
constexpr uint8_t kMsgModuleEepromGetReply = 32;
constexpr uint8_t kMsgStatsGetReply = 33;

// Request header nest (ETHTOOL_A_HEADER_*) and its flags (ETHTOOL_FLAG_*).
constexpr uint16_t kHeaderDevName = 2;
constexpr uint16_t kHeaderFlags = 3;
constexpr uint32_t kFlagStats = 1u << 2;

// ETHTOOL_A_LINKMODES_*
constexpr uint16_t kLinkmodesHeader = 1, kLinkmodesAutoneg = 2, kLinkmodesSpeed = 5,
                   kLinkmodesDuplex = 6, kLinkmodesLanes = 9;
// ETHTOOL_A_LINKSTATE_* (EXT_DOWN_CNT: Linux 6.2)
constexpr uint16_t kLinkstateHeader = 1, kLinkstateLink = 2, kLinkstateExtState = 5,
                   kLinkstateExtSubstate = 6, kLinkstateExtDownCnt = 7;
// ETHTOOL_A_PAUSE_* and ETHTOOL_A_PAUSE_STAT_*
constexpr uint16_t kPauseHeader = 1, kPauseAutoneg = 2, kPauseRx = 3, kPauseTx = 4, kPauseStats = 5;
constexpr uint16_t kPauseStatTxFrames = 2, kPauseStatRxFrames = 3;
// ETHTOOL_A_FEC_* and ETHTOOL_A_FEC_STAT_* (each stat: u64 array, [0] total, [1..] per lane)
constexpr uint16_t kFecHeader = 1, kFecActive = 4, kFecStats = 5;
constexpr uint16_t kFecStatCorrected = 2, kFecStatUncorr = 3, kFecStatCorrBits = 4;
// ETHTOOL_A_MODULE_EEPROM_*
constexpr uint16_t kEepromHeader = 1, kEepromOffset = 2, kEepromLength = 3, kEepromPage = 4,
                   kEepromBank = 5, kEepromI2cAddress = 6, kEepromData = 7;
// ETHTOOL_A_STATS_*, ETHTOOL_A_STATS_GRP_* and the groups (ETHTOOL_STATS_*)
constexpr uint16_t kStatsHeader = 2, kStatsGroups = 3, kStatsGrp = 4;
constexpr uint16_t kStatsGrpId = 2, kStatsGrpStat = 4;
constexpr uint32_t kStatsGroupCount = 4;  // eth-phy, eth-mac, eth-ctrl, rmon
// ETHTOOL_A_BITSET_*
constexpr uint16_t kBitsetNomask = 1, kBitsetSize = 2, kBitsetValue = 4;
// Link-mode bit indexes of the FEC modes (ETHTOOL_LINK_MODE_FEC_*_BIT), FEC_ACTIVE values.
constexpr uint32_t kLinkModeFecNone = 49, kLinkModeFecRs = 50, kLinkModeFecBaser = 51,
                   kLinkModeFecLlrs = 74;

}  // namespace ethnl

/// One standard statistic read over netlink, named like `ethtool` prints it:
/// STATS_GET "eth-phy-SymbolErrorDuringCarrier", "eth-mac-FrameCheckSequenceErrors",
/// "eth-ctrl-...", "rmon-etherStatsUndersizePkts"; PAUSE "pause-tx_pause_frames";
/// FEC "fec-corrected_blocks", "fec-uncorrectable_blocks", "fec-corrected_bits" and per lane
/// "fec-corrected_blocks_lane0" (0-based, as `ethtool --show-fec` numbers lanes);
/// LINKSTATE "linkstate-link_down_events".
struct NetlinkStat {
  std::string name;
  uint64_t value = 0;
  std::string message;  ///< The request it came from ("STATS_GET eth-mac", "FEC_GET").
};

/// Attributes of a request for `netdev`: the header nest (attribute `header_attr`, DEV_NAME and,
/// when non-zero, FLAGS).
std::vector<uint8_t> encode_header_request(uint16_t header_attr, const std::string& netdev,
                                           uint32_t flags);
/// STATS_GET request: header plus the GROUPS bitset (compact, NOMASK) asking for all four
/// standard groups.
std::vector<uint8_t> encode_stats_request(const std::string& netdev);
/// MODULE_EEPROM_GET request for one read (offset, length, page, bank, I2C address).
std::vector<uint8_t> encode_module_eeprom_request(const std::string& netdev, const EepromRead& read);

/// Decoders of one reply's attribute area. Unknown attributes are ignored (newer kernels add
/// some); a malformed attribute area or a known attribute with a short payload is kParse.
Status decode_linkmodes_reply(const std::vector<uint8_t>& attrs, LinkFacts& out);
/// Also appends "linkstate-link_down_events" when EXT_DOWN_CNT is present.
Status decode_linkstate_reply(const std::vector<uint8_t>& attrs, LinkFacts& out,
                              std::vector<NetlinkStat>& stats);
/// Pause configuration into `out`, pause frame counters into `stats`.
Status decode_pause_reply(const std::vector<uint8_t>& attrs, LinkFacts& out,
                          std::vector<NetlinkStat>& stats);
/// Active FEC mode into `out`; FEC counters (totals and per lane) into `stats`. An array of
/// length 0 means "not supported" and gives no counter.
Status decode_fec_reply(const std::vector<uint8_t>& attrs, LinkFacts& out,
                        std::vector<NetlinkStat>& stats);
/// Standard statistics groups. Groups this build does not know are skipped; a statistic id
/// past the known names is kept as "<group>-stat<id>".
Status decode_stats_reply(const std::vector<uint8_t>& attrs, std::vector<NetlinkStat>& stats);
/// The DATA bytes of a MODULE_EEPROM_GET reply. kParse when DATA is missing.
Result<std::vector<uint8_t>> decode_module_eeprom_reply(const std::vector<uint8_t>& attrs);

/// uapi name of a link extended state (enum ethtool_link_ext_state): "AUTONEG",
/// "LINK_TRAINING_FAILURE", ..., "BMC_REQUEST_DOWN"; "state <n>" when unknown.
std::string link_ext_state_name(uint32_t state);
/// uapi name of a substate of `state` ("NO_PARTNER_DETECTED", "UNSUPPORTED_CABLE", ...);
/// "substate <n>" when unknown.
std::string link_ext_substate_name(uint32_t state, uint32_t substate);
/// Name of a FEC_ACTIVE link-mode bit: "None", "RS", "BaseR", "LLRS"; "mode bit <n>" else.
std::string fec_mode_name(uint32_t link_mode_bit);

}  // namespace fabdiag
