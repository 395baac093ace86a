#include "probes/topo/pci_config.h"

#include <string>
#include <utility>

#include <cstdio>
#include <set>

namespace fabdiag {

namespace {

uint32_t le32(const std::vector<uint8_t>& b, size_t off) {
  return static_cast<uint32_t>(b[off]) | static_cast<uint32_t>(b[off + 1]) << 8 |
         static_cast<uint32_t>(b[off + 2]) << 16 | static_cast<uint32_t>(b[off + 3]) << 24;
}

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

}  // namespace

Result<std::optional<uint16_t>> find_extended_capability(const std::vector<uint8_t>& config, uint16_t id) {
  std::set<uint32_t> visited;
  uint32_t off = kExtCapStart;
  // Each header is 4 bytes in 0x100..0xFFF: at most 960 of them, so a longer walk is a loop.
  for (int guard = 0; guard < 1024; ++guard) {
    if (off + 4 > config.size())
      return make_error(ErrorCode::kParse, "extended capability pointer " + hex(off) +
                                               " lies beyond the " + std::to_string(config.size()) +
                                               "-byte config space");
    if (!visited.insert(off).second)
      return make_error(ErrorCode::kParse, "extended capability list loops back to " + hex(off));
    uint32_t header = le32(config, off);
    if (header == 0 || header == 0xFFFFFFFFu) return std::optional<uint16_t>{};
    if ((header & 0xFFFFu) == id) return std::optional<uint16_t>{static_cast<uint16_t>(off)};
    uint32_t next = (header >> 20) & 0xFFCu;
    if (next == 0) return std::optional<uint16_t>{};
    if (next < kExtCapStart)
      return make_error(ErrorCode::kParse, "extended capability at " + hex(off) +
                                               " points to " + hex(next) + ", below 0x100");
    off = next;
  }
  return make_error(ErrorCode::kParse, "extended capability list does not end");
}

AcsLookup acs_from_config(const std::vector<uint8_t>& config) {
  AcsLookup out;
  if (config.size() < 256) {
    out.status = AcsStatus::kNeedsRoot;
    out.detail = "only " + std::to_string(config.size()) +
                 " bytes of config space readable (the kernel gives unprivileged readers 64): "
                 "reading ACS needs root";
    return out;
  }
  if (config.size() <= kExtCapStart) {
    out.status = AcsStatus::kNoExtendedSpace;
    out.detail = "256-byte config space: no PCIe extended capabilities visible";
    return out;
  }
  auto found = find_extended_capability(config, kExtCapAcs);
  if (!found) {
    out.status = AcsStatus::kUnreadable;
    out.detail = found.error().message;
    return out;
  }
  if (!*found) {
    out.status = AcsStatus::kNoCapability;
    return out;
  }
  uint16_t off = **found;
  if (static_cast<size_t>(off) + 8 > config.size()) {
    out.status = AcsStatus::kUnreadable;
    out.detail = "ACS capability at " + hex(off) + " is cut off by the end of the config space";
    return out;
  }
  out.status = AcsStatus::kRead;
  out.offset = off;
  out.control = static_cast<uint16_t>(config[off + 6] | (config[off + 7] << 8));
  return out;
}

AcsLookup read_acs(const FsRoot& fs, const std::string& bdf) {
  auto bytes = fs.read_sys_bytes("bus/pci/devices/" + bdf + "/config", 4096);
  if (!bytes) {
    AcsLookup out;
    out.status = AcsStatus::kUnreadable;
    out.detail = bytes.error().to_string();
    return out;
  }
  return acs_from_config(*bytes);
}

const char* to_string(AcsStatus s) {
  switch (s) {
    case AcsStatus::kRead: return "read";
    case AcsStatus::kNoCapability: return "no_capability";
    case AcsStatus::kNeedsRoot: return "needs_root";
    case AcsStatus::kNoExtendedSpace: return "no_extended_space";
    case AcsStatus::kUnreadable: return "unreadable";
  }
  return "unreadable";
}

std::string acs_control_text(uint16_t control) {
  static const std::pair<uint16_t, const char*> kBits[] = {
      {kAcsSrcValid, "SrcValid"},     {kAcsTransBlock, "TransBlk"},   {kAcsReqRedirect, "ReqRedir"},
      {kAcsCmpltRedirect, "CmpltRedir"}, {kAcsUpstreamFwd, "UpstreamFwd"}, {kAcsEgressCtrl, "EgressCtrl"},
      {kAcsDirectTrans, "DirectTrans"}};
  std::string out;
  for (const auto& [bit, name] : kBits)
    if (control & bit) out += (out.empty() ? "" : " ") + std::string(name) + "+";
  return out.empty() ? "none" : out;
}

}  // namespace fabdiag
