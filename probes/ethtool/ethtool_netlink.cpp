// The libnl-genl adapter: the only file that includes netlink headers (besides the capability
// probe). Everything above the transport is plain C++ (probes/ethtool/ethtool_netlink_messages.h).
#include "probes/ethtool/ethtool_netlink.h"

#include "core/build_config.h"

#if FABDIAG_HAVE_LIBNL
#include <linux/ethtool_netlink.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "probes/ethtool/ethtool_netlink_messages.h"
#include "probes/ethtool/netlink_attr.h"
#endif

namespace fabdiag {

#if FABDIAG_HAVE_LIBNL

// The numbers we define ourselves must match the build host's uapi header where it has them
// (LINKSTATE_EXT_DOWN_CNT is newer than Debian 12's 6.1 header, so it is not checked).
static_assert(ethnl::kMsgLinkmodesGet == ETHTOOL_MSG_LINKMODES_GET);
static_assert(ethnl::kMsgLinkstateGet == ETHTOOL_MSG_LINKSTATE_GET);
static_assert(ethnl::kMsgPauseGet == ETHTOOL_MSG_PAUSE_GET);
static_assert(ethnl::kMsgFecGet == ETHTOOL_MSG_FEC_GET);
static_assert(ethnl::kMsgModuleEepromGet == ETHTOOL_MSG_MODULE_EEPROM_GET);
static_assert(ethnl::kMsgStatsGet == ETHTOOL_MSG_STATS_GET);
static_assert(ethnl::kMsgPauseGetReply == ETHTOOL_MSG_PAUSE_GET_REPLY);
static_assert(ethnl::kMsgFecGetReply == ETHTOOL_MSG_FEC_GET_REPLY);
static_assert(ethnl::kMsgModuleEepromGetReply == ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY);
static_assert(ethnl::kMsgStatsGetReply == ETHTOOL_MSG_STATS_GET_REPLY);
static_assert(ethnl::kHeaderDevName == ETHTOOL_A_HEADER_DEV_NAME);
static_assert(ethnl::kHeaderFlags == ETHTOOL_A_HEADER_FLAGS);
static_assert(ethnl::kFlagStats == ETHTOOL_FLAG_STATS);
static_assert(ethnl::kLinkmodesSpeed == ETHTOOL_A_LINKMODES_SPEED);
static_assert(ethnl::kLinkmodesDuplex == ETHTOOL_A_LINKMODES_DUPLEX);
static_assert(ethnl::kLinkmodesAutoneg == ETHTOOL_A_LINKMODES_AUTONEG);
static_assert(ethnl::kLinkmodesLanes == ETHTOOL_A_LINKMODES_LANES);
static_assert(ethnl::kLinkstateLink == ETHTOOL_A_LINKSTATE_LINK);
static_assert(ethnl::kLinkstateExtState == ETHTOOL_A_LINKSTATE_EXT_STATE);
static_assert(ethnl::kLinkstateExtSubstate == ETHTOOL_A_LINKSTATE_EXT_SUBSTATE);
static_assert(ethnl::kPauseStats == ETHTOOL_A_PAUSE_STATS);
static_assert(ethnl::kPauseStatTxFrames == ETHTOOL_A_PAUSE_STAT_TX_FRAMES);
static_assert(ethnl::kPauseStatRxFrames == ETHTOOL_A_PAUSE_STAT_RX_FRAMES);
static_assert(ethnl::kFecActive == ETHTOOL_A_FEC_ACTIVE);
static_assert(ethnl::kFecStats == ETHTOOL_A_FEC_STATS);
static_assert(ethnl::kFecStatCorrected == ETHTOOL_A_FEC_STAT_CORRECTED);
static_assert(ethnl::kFecStatUncorr == ETHTOOL_A_FEC_STAT_UNCORR);
static_assert(ethnl::kFecStatCorrBits == ETHTOOL_A_FEC_STAT_CORR_BITS);
static_assert(ethnl::kEepromData == ETHTOOL_A_MODULE_EEPROM_DATA);
static_assert(ethnl::kEepromI2cAddress == ETHTOOL_A_MODULE_EEPROM_I2C_ADDRESS);
static_assert(ethnl::kStatsHeader == ETHTOOL_A_STATS_HEADER);
static_assert(ethnl::kStatsGroups == ETHTOOL_A_STATS_GROUPS);
static_assert(ethnl::kStatsGrp == ETHTOOL_A_STATS_GRP);
static_assert(ethnl::kStatsGrpId == ETHTOOL_A_STATS_GRP_ID);
static_assert(ethnl::kStatsGrpStat == ETHTOOL_A_STATS_GRP_STAT);
static_assert(ethnl::kStatsGroupCount == __ETHTOOL_STATS_CNT);
static_assert(ethnl::kBitsetNomask == ETHTOOL_A_BITSET_NOMASK);
static_assert(ethnl::kBitsetSize == ETHTOOL_A_BITSET_SIZE);
static_assert(ethnl::kBitsetValue == ETHTOOL_A_BITSET_VALUE);
static_assert(kNlmFlagCapped == NLM_F_CAPPED);
static_assert(kNlmFlagAckTlvs == NLM_F_ACK_TLVS);
static_assert(kNlmsgerrAttrMsg == NLMSGERR_ATTR_MSG);
static_assert(kNlmsgHeaderLen == NLMSG_HDRLEN);
static_assert(kNlmsgerrLen == sizeof(nlmsgerr));

namespace {

constexpr int kReceiveTimeoutS = 5;   // a kernel answers in microseconds; a module read in ms
constexpr int kMaxEmptyReceives = 100;

struct Exchange {
  NetlinkReply reply;
  bool done = false;
};

int on_valid(nl_msg* msg, void* arg) {
  auto* ex = static_cast<Exchange*>(arg);
  nlmsghdr* nlh = nlmsg_hdr(msg);
  auto* gnlh = static_cast<genlmsghdr*>(nlmsg_data(nlh));
  const auto* attrs = reinterpret_cast<const uint8_t*>(genlmsg_attrdata(gnlh, 0));
  int len = genlmsg_attrlen(gnlh, 0);
  ex->reply.messages.emplace_back(attrs, attrs + (len > 0 ? len : 0));
  return NL_OK;
}

int on_ack(nl_msg*, void* arg) {
  static_cast<Exchange*>(arg)->done = true;
  return NL_STOP;
}

// NLMSG_ERROR: keep the errno and the extended-ack message (NLMSGERR_ATTR_MSG) when present.
// libnl calls this only for a message that holds a whole struct nlmsgerr.
int on_error(sockaddr_nl*, nlmsgerr* err, void* arg) {
  auto* ex = static_cast<Exchange*>(arg);
  ex->done = true;
  ex->reply.error = err->error < 0 ? -err->error : err->error;
  const auto* nlh = reinterpret_cast<const nlmsghdr*>(reinterpret_cast<const char*>(err) - NLMSG_HDRLEN);
  std::string message = netlink_extack_message(reinterpret_cast<const uint8_t*>(err),
                                               nlh->nlmsg_len - NLMSG_HDRLEN, nlh->nlmsg_flags);
  if (!message.empty()) ex->reply.error_message = std::move(message);
  return NL_STOP;
}

class LibnlTransport final : public EthtoolNetlinkTransport {
 public:
  ~LibnlTransport() override {
    if (sock_) nl_socket_free(sock_);
  }

  Result<NetlinkReply> request(uint8_t cmd, const std::vector<uint8_t>& attrs) const override {
    if (auto st = init(); !st) return st.error();
    nl_msg* msg = nlmsg_alloc();
    if (!msg) return make_error(ErrorCode::kIo, "nlmsg_alloc failed (out of memory)", "ethtool netlink");
    if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family_, 0, 0, cmd, ETHTOOL_GENL_VERSION) ||
        nlmsg_append(msg, const_cast<uint8_t*>(attrs.data()), attrs.size(), NLMSG_ALIGNTO) < 0) {
      nlmsg_free(msg);
      return make_error(ErrorCode::kInternal, "request does not fit a netlink message", "ethtool netlink");
    }
    int rc = nl_send_auto(sock_, msg);  // sets NLM_F_REQUEST | NLM_F_ACK (auto-ack is on)
    nlmsg_free(msg);
    if (rc < 0)
      return make_error(ErrorCode::kIo, std::string("netlink send failed: ") + nl_geterror(rc),
                        "ethtool netlink");
    Exchange ex;
    nl_cb* cb = nl_cb_alloc(NL_CB_CUSTOM);
    if (!cb) return make_error(ErrorCode::kIo, "nl_cb_alloc failed", "ethtool netlink");
    nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &ex);
    nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &ex);
    nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_ack, &ex);
    nl_cb_err(cb, NL_CB_CUSTOM, on_error, &ex);
    int empty = 0;
    std::optional<Error> failure;
    while (!ex.done) {
      rc = nl_recvmsgs(sock_, cb);
      if (ex.done) break;
      if (rc == -NLE_AGAIN) {
        failure = make_error(ErrorCode::kTimeout,
                             "no netlink answer within " + std::to_string(kReceiveTimeoutS) + " s",
                             "ethtool netlink");
        break;
      }
      if (rc < 0) {
        failure = make_error(ErrorCode::kIo, std::string("netlink receive failed: ") + nl_geterror(rc),
                             "ethtool netlink");
        break;
      }
      if (rc == 0 && ++empty > kMaxEmptyReceives) {
        failure = make_error(ErrorCode::kIo, "netlink socket returned nothing", "ethtool netlink");
        break;
      }
    }
    nl_cb_put(cb);
    if (failure) {
      // The exchange is out of step: start over on a fresh socket next time.
      nl_socket_free(sock_);
      sock_ = nullptr;
      tried_ = false;
      return *failure;
    }
    return std::move(ex.reply);
  }

  std::string describe() const override {
    if (auto st = init(); !st) return "ethtool netlink unavailable: " + st.error().message;
    return "ethtool netlink (libnl-genl, family \"ethtool\" id " + std::to_string(family_) + ")";
  }

 private:
  Status init() const {
    if (tried_) {
      if (init_error_) return *init_error_;
      return Ok{};
    }
    tried_ = true;
    init_error_.reset();
    sock_ = nl_socket_alloc();
    if (!sock_) return fail(ErrorCode::kIo, "nl_socket_alloc failed (out of memory)");
    int rc = genl_connect(sock_);
    if (rc < 0) return fail(ErrorCode::kIo, std::string("cannot open a generic netlink socket: ") + nl_geterror(rc));
    int fd = nl_socket_get_fd(sock_);
    timeval tv{kReceiveTimeoutS, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    int one = 1;
    setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof one);  // best effort
    family_ = genl_ctrl_resolve(sock_, ETHTOOL_GENL_NAME);
    if (family_ < 0)
      return fail(ErrorCode::kUnsupported,
                  "the kernel has no \"ethtool\" generic netlink family (Linux < 5.6 or "
                  "CONFIG_ETHTOOL_NETLINK off)");
    return Ok{};
  }

  Status fail(ErrorCode code, const std::string& why) const {
    init_error_ = make_error(code, why, "ethtool netlink");
    if (sock_) nl_socket_free(sock_);
    sock_ = nullptr;
    return *init_error_;
  }

  mutable nl_sock* sock_ = nullptr;
  mutable int family_ = -1;
  mutable bool tried_ = false;
  mutable std::optional<Error> init_error_;
};

}  // namespace

std::unique_ptr<EthtoolNetlinkTransport> make_libnl_ethtool_transport() {
  return std::make_unique<LibnlTransport>();
}

#else  // !FABDIAG_HAVE_LIBNL

namespace {
class NoNetlinkTransport final : public EthtoolNetlinkTransport {
 public:
  Result<NetlinkReply> request(uint8_t, const std::vector<uint8_t>&) const override {
    return make_error(ErrorCode::kUnsupported,
                      "built without libnl-genl-3 (install libnl-3-dev libnl-genl-3-dev and "
                      "rebuild); the SIOCETHTOOL ioctl is used instead",
                      "ethtool netlink");
  }
  std::string describe() const override { return "ethtool netlink not compiled in (no libnl)"; }
};
}  // namespace

std::unique_ptr<EthtoolNetlinkTransport> make_libnl_ethtool_transport() {
  return std::make_unique<NoNetlinkTransport>();
}

#endif

}  // namespace fabdiag
