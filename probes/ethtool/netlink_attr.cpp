#include "probes/ethtool/netlink_attr.h"

#include <cstring>

namespace fabdiag {
namespace {

constexpr size_t kHeader = 4;

size_t align4(size_t n) { return (n + 3) & ~size_t{3}; }

template <typename T>
std::optional<T> read_int(const NlAttr& a) {
  if (a.len < sizeof(T)) return std::nullopt;
  T v;
  std::memcpy(&v, a.data, sizeof v);  // payloads of u64 attributes need not be 8-aligned
  return v;
}

}  // namespace

Result<std::vector<NlAttr>> parse_nlattrs(const uint8_t* data, size_t len, const std::string& what) {
  std::vector<NlAttr> out;
  size_t off = 0;
  while (off < len) {
    if (len - off < kHeader)
      return make_error(ErrorCode::kParse,
                        "truncated netlink attribute header at byte " + std::to_string(off), what);
    uint16_t nla_len, nla_type;
    std::memcpy(&nla_len, data + off, 2);
    std::memcpy(&nla_type, data + off + 2, 2);
    if (nla_len < kHeader || nla_len > len - off)
      return make_error(ErrorCode::kParse,
                        "netlink attribute at byte " + std::to_string(off) + " has length " +
                            std::to_string(nla_len) + " (" + std::to_string(len - off) +
                            " bytes left)",
                        what);
    NlAttr a;
    a.type = nla_type & kNlaTypeMask;
    a.nested = (nla_type & kNlaFlagNested) != 0;
    a.data = data + off + kHeader;
    a.len = nla_len - kHeader;
    out.push_back(a);
    off += align4(nla_len);  // the last attribute may lack its padding
  }
  return out;
}

std::string netlink_extack_message(const uint8_t* err, size_t len, uint16_t nlmsg_flags) {
  if (!(nlmsg_flags & kNlmFlagAckTlvs) || len < kNlmsgerrLen) return {};
  size_t skip = kNlmsgerrLen;
  if (!(nlmsg_flags & kNlmFlagCapped)) {
    uint32_t request_len;  // nlmsgerr.msg.nlmsg_len: the echoed request, header included
    std::memcpy(&request_len, err + 4, sizeof request_len);
    skip += static_cast<uint32_t>(request_len - kNlmsgHeaderLen);  // as the u32 sum in C
  }
  if (skip >= len) return {};
  size_t start = align4(skip);
  size_t tlv_len = len > start ? len - start : 0;
  std::string message;
  if (auto attrs = parse_nlattrs(err + start, tlv_len, "netlink extended ack"))
    for (const auto& a : *attrs)
      if (a.type == kNlmsgerrAttrMsg) message = nlattr_string(a);
  return message;
}

Result<std::vector<NlAttr>> parse_nested(const NlAttr& nest, const std::string& what) {
  return parse_nlattrs(nest.data, nest.len, what);
}

std::optional<uint8_t> nlattr_u8(const NlAttr& a) { return read_int<uint8_t>(a); }
std::optional<uint32_t> nlattr_u32(const NlAttr& a) { return read_int<uint32_t>(a); }
std::optional<uint64_t> nlattr_u64(const NlAttr& a) { return read_int<uint64_t>(a); }

std::string nlattr_string(const NlAttr& a) {
  const char* p = reinterpret_cast<const char*>(a.data);
  return std::string(p, strnlen(p, a.len));
}

std::optional<std::vector<uint64_t>> nlattr_u64_array(const NlAttr& a) {
  if (a.len % 8 != 0) return std::nullopt;
  std::vector<uint64_t> v(a.len / 8);
  if (!v.empty()) std::memcpy(v.data(), a.data, a.len);
  return v;
}

void NlAttrWriter::put_raw(uint16_t type, const void* data, size_t len) {
  size_t start = buf_.size();
  uint16_t nla_len = static_cast<uint16_t>(kHeader + len);
  buf_.resize(start + align4(kHeader + len), 0);
  std::memcpy(buf_.data() + start, &nla_len, 2);
  std::memcpy(buf_.data() + start + 2, &type, 2);
  if (len) std::memcpy(buf_.data() + start + kHeader, data, len);
}

void NlAttrWriter::put_u8(uint16_t type, uint8_t v) { put_raw(type, &v, 1); }
void NlAttrWriter::put_u32(uint16_t type, uint32_t v) { put_raw(type, &v, 4); }
void NlAttrWriter::put_string(uint16_t type, const std::string& s) {
  put_raw(type, s.c_str(), s.size() + 1);
}
void NlAttrWriter::put_flag(uint16_t type) { put_raw(type, nullptr, 0); }
void NlAttrWriter::put_binary(uint16_t type, const void* data, size_t len) {
  put_raw(type, data, len);
}

size_t NlAttrWriter::begin_nest(uint16_t type) {
  size_t start = buf_.size();
  put_raw(static_cast<uint16_t>(type | kNlaFlagNested), nullptr, 0);
  return start;
}

void NlAttrWriter::end_nest(size_t handle) {
  uint16_t nla_len = static_cast<uint16_t>(buf_.size() - handle);
  std::memcpy(buf_.data() + handle, &nla_len, 2);
}

}  // namespace fabdiag
