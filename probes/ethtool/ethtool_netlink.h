// The ethtool generic-netlink transport: one request to the kernel's "ethtool" family
// (version 1) and the replies it gets, behind a small interface so the readers above it
// (probes/ethtool/ethtool_link.h) are tested with a fake. The real transport uses libnl-genl and lives
// in probes/ethtool/ethtool_netlink.cpp, the only file that includes netlink headers; a build without
// libnl (FABDIAG_HAVE_LIBNL 0) gets a transport that answers kUnsupported, and the readers
// fall back to the SIOCETHTOOL ioctl.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"

namespace fabdiag {

/// What the kernel answered to one request.
struct NetlinkReply {
  /// 0 on success, else the positive errno of the kernel's NLMSG_ERROR: EOPNOTSUPP (the driver
  /// lacks the operation), EINVAL (e.g. ETHTOOL_FLAG_STATS on a request type or kernel that
  /// does not take it), ENODEV (no such netdev), EPERM (needs CAP_NET_ADMIN), EIO, ...
  int error = 0;
  /// The kernel's extended-ack message, when it sent one ("can't read module EEPROM ...").
  std::string error_message;
  /// The attribute area (after the generic-netlink header) of each reply message, in order.
  std::vector<std::vector<uint8_t>> messages;
};

/// One request/replies exchange with the "ethtool" family.
class EthtoolNetlinkTransport {
 public:
  virtual ~EthtoolNetlinkTransport() = default;
  /// Sends request `cmd` (ETHTOOL_MSG_*_GET) carrying the encoded attributes `attrs` with
  /// NLM_F_REQUEST | NLM_F_ACK, and reads until the ACK or the error arrives (so no reply
  /// spills into the next request). A kernel refusal is NetlinkReply::error, not an Error.
  /// Errors: kUnsupported when this transport cannot talk to the family at all (built without
  /// libnl, or the kernel has no "ethtool" family: Linux < 5.6); kIo / kTimeout when the socket
  /// fails or no answer comes within a few seconds.
  virtual Result<NetlinkReply> request(uint8_t cmd, const std::vector<uint8_t>& attrs) const = 0;
  /// One line for the result's params ("ethtool netlink (libnl-genl, family id 20)").
  virtual std::string describe() const = 0;
};

/// The real transport over libnl-genl. Opens a generic-netlink socket and resolves the family
/// on the first request (unprivileged; MODULE_EEPROM_GET needs CAP_NET_ADMIN from the kernel).
/// Reads the network namespace the process runs in. Without libnl in the build, every request
/// answers kUnsupported naming the missing library.
std::unique_ptr<EthtoolNetlinkTransport> make_libnl_ethtool_transport();

}  // namespace fabdiag
