// Netlink attributes (struct nlattr TLVs) encoded and decoded in plain C++, so the ethtool
// netlink messages can be built and parsed (and unit-tested with hand-built bytes) without any
// netlink header; only the transport in probes/ethtool/ethtool_netlink.cpp talks to libnl.
//
// Wire format (linux:include/uapi/linux/netlink.h): u16 nla_len (header + payload, unpadded),
// u16 nla_type (low 14 bits = type, 0x8000 NLA_F_NESTED, 0x4000 NLA_F_NET_BYTEORDER), payload,
// padding to a multiple of 4. Host byte order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace fabdiag {

/// NLA_F_NESTED: set on nested attributes (the kernel's strict parsers require it in requests).
constexpr uint16_t kNlaFlagNested = 0x8000;
/// Mask of the attribute type without the flag bits (NLA_TYPE_MASK).
constexpr uint16_t kNlaTypeMask = 0x3FFF;

/// One attribute, pointing into the buffer it was parsed from (which must outlive it).
struct NlAttr {
  uint16_t type = 0;             ///< Without flag bits.
  bool nested = false;           ///< NLA_F_NESTED was set.
  const uint8_t* data = nullptr; ///< Payload.
  size_t len = 0;                ///< Payload length in bytes (without header or padding).
};

/// Parses a run of attributes (a message's attribute area or a nest's payload).
/// Errors: kParse when a header is truncated or an nla_len is < 4 or runs past the end; the
/// message names `what` (e.g. "ethtool FEC_GET reply").
Result<std::vector<NlAttr>> parse_nlattrs(const uint8_t* data, size_t len, const std::string& what);
/// Same over a nest's payload.
Result<std::vector<NlAttr>> parse_nested(const NlAttr& nest, const std::string& what);

/// Payload as an integer; nullopt when the payload is shorter than the type (longer payloads
/// are accepted and the low bytes used, as the kernel's nla_get_* do).
std::optional<uint8_t> nlattr_u8(const NlAttr& a);
std::optional<uint32_t> nlattr_u32(const NlAttr& a);
std::optional<uint64_t> nlattr_u64(const NlAttr& a);
/// Payload as a string up to the first NUL.
std::string nlattr_string(const NlAttr& a);
/// Payload as an array of u64 (FEC statistics); nullopt when the length is not a multiple of 8.
std::optional<std::vector<uint64_t>> nlattr_u64_array(const NlAttr& a);

/// Netlink message header flags of an NLMSG_ERROR (linux:include/uapi/linux/netlink.h):
/// NLM_F_CAPPED (the request is not echoed back) and NLM_F_ACK_TLVS (extended-ack attributes
/// follow); NLMSGERR_ATTR_MSG, the attribute holding the kernel's message; the sizes of
/// struct nlmsghdr and struct nlmsgerr. Checked against the headers in ethtool_netlink.cpp.
constexpr uint16_t kNlmFlagCapped = 0x100;
constexpr uint16_t kNlmFlagAckTlvs = 0x200;
constexpr uint16_t kNlmsgerrAttrMsg = 1;
constexpr size_t kNlmsgHeaderLen = 16;
constexpr size_t kNlmsgerrLen = 20;

/// The extended-ack message of an NLMSG_ERROR: `err` is the message's payload (a struct
/// nlmsgerr: the errno, the header of the request it answers and, unless NLM_F_CAPPED is in
/// `nlmsg_flags`, the rest of that request), `len` its length (nlmsg_len - 16). When
/// NLM_F_ACK_TLVS is set, the attributes after it are parsed and the last NLMSGERR_ATTR_MSG
/// string is returned; empty when there is none, the flag is not set, or the payload is shorter
/// than struct nlmsgerr or malformed.
std::string netlink_extack_message(const uint8_t* err, size_t len, uint16_t nlmsg_flags);

/// Builds an attribute area. Nests are opened and closed explicitly:
///   NlAttrWriter w; size_t h = w.begin_nest(1); w.put_string(2, "eth0"); w.end_nest(h);
class NlAttrWriter {
 public:
  void put_u8(uint16_t type, uint8_t v);
  void put_u32(uint16_t type, uint32_t v);
  void put_string(uint16_t type, const std::string& s);  ///< NUL-terminated, as NLA_NUL_STRING.
  void put_flag(uint16_t type);                         ///< Zero-length payload (NLA_FLAG).
  void put_binary(uint16_t type, const void* data, size_t len);
  /// Opens a nest (NLA_F_NESTED set); returns the handle for end_nest.
  size_t begin_nest(uint16_t type);
  /// Closes the nest opened at `handle`, fixing its length.
  void end_nest(size_t handle);
  /// The encoded attributes (always a multiple of 4 bytes).
  const std::vector<uint8_t>& bytes() const { return buf_; }

 private:
  void put_raw(uint16_t type, const void* data, size_t len);
  std::vector<uint8_t> buf_;
};

}  // namespace fabdiag
