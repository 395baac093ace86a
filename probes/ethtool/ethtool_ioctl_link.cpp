#include "probes/ethtool/ethtool_ioctl_link.h"

#include <linux/ethtool.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>

namespace fabdiag {
namespace {

Error errno_error(int err, const std::string& netdev, const char* what) {
  ErrorCode code = ErrorCode::kIo;
  if (err == EOPNOTSUPP) code = ErrorCode::kUnsupported;
  else if (err == ENODEV || err == ENXIO) code = ErrorCode::kNotFound;
  else if (err == EPERM || err == EACCES) code = ErrorCode::kPermission;
  std::string msg = std::string(what) + " failed: " + std::strerror(err);
  if (code == ErrorCode::kPermission) msg += " (needs CAP_NET_ADMIN: run as root)";
  return make_error(code, msg, "SIOCETHTOOL " + netdev);
}

// GLINKSETTINGS: first call with nwords 0 asks the kernel for the mask size (it answers -N).
void link_settings(const EthtoolIoctl& io, const std::string& netdev, LinkFacts& out,
                   std::vector<std::string>& unsupported) {
  ethtool_link_settings probe{};
  probe.cmd = ETHTOOL_GLINKSETTINGS;
  int rc = io.call(netdev, &probe);
  if (rc != 0) {
    unsupported.push_back("ETHTOOL_GLINKSETTINGS");
    return;
  }
  int nwords = probe.link_mode_masks_nwords < 0 ? -probe.link_mode_masks_nwords
                                                : probe.link_mode_masks_nwords;
  std::vector<uint32_t> buf((sizeof(ethtool_link_settings) + 3u * 4u * static_cast<unsigned>(nwords)) / 4 + 1);
  auto* ls = reinterpret_cast<ethtool_link_settings*>(buf.data());
  ls->cmd = ETHTOOL_GLINKSETTINGS;
  ls->link_mode_masks_nwords = static_cast<int8_t>(nwords);
  if (io.call(netdev, ls) != 0 || ls->link_mode_masks_nwords <= 0) {
    unsupported.push_back("ETHTOOL_GLINKSETTINGS");
    return;
  }
  if (ls->speed != 0 && ls->speed != static_cast<uint32_t>(SPEED_UNKNOWN)) out.speed_mbps = ls->speed;
  out.duplex = ls->duplex == DUPLEX_FULL ? "full" : ls->duplex == DUPLEX_HALF ? "half" : "";
  out.autoneg = ls->autoneg == AUTONEG_ENABLE;
}

void fec_param(const EthtoolIoctl& io, const std::string& netdev, LinkFacts& out,
               std::vector<std::string>& unsupported) {
  ethtool_fecparam fp{};
  fp.cmd = ETHTOOL_GFECPARAM;
  if (io.call(netdev, &fp) != 0) {
    unsupported.push_back("ETHTOOL_GFECPARAM");
    return;
  }
  if (fp.active_fec & ETHTOOL_FEC_OFF) out.fec_active = "None";
  else if (fp.active_fec & ETHTOOL_FEC_RS) out.fec_active = "RS";
  else if (fp.active_fec & ETHTOOL_FEC_BASER) out.fec_active = "BaseR";
  else if (fp.active_fec & ETHTOOL_FEC_LLRS) out.fec_active = "LLRS";
}

}  // namespace

Result<LinkFacts> read_link_facts_ioctl(const EthtoolIoctl& io, const std::string& netdev,
                                        std::vector<std::string>& unsupported) {
  LinkFacts f;
  f.netdev = netdev;
  f.source = "SIOCETHTOOL ioctl";
  ethtool_value link{};
  link.cmd = ETHTOOL_GLINK;
  int rc = io.call(netdev, &link);
  if (rc == EOPNOTSUPP) unsupported.push_back("ETHTOOL_GLINK");
  else if (rc != 0) return errno_error(rc, netdev, "ETHTOOL_GLINK");
  else f.link_up = link.data != 0;
  link_settings(io, netdev, f, unsupported);
  fec_param(io, netdev, f, unsupported);
  return f;
}

Result<ModuleMemory> read_module_eeprom_ioctl(const EthtoolIoctl& io, const std::string& netdev) {
  ethtool_modinfo info{};
  info.cmd = ETHTOOL_GMODULEINFO;
  int rc = io.call(netdev, &info);
  if (rc == EIO || rc == ENODEV)  // the netdev exists (GLINK answered): no module in the cage
    return make_error(ErrorCode::kNotFound,
                      std::string("no module readable (ETHTOOL_GMODULEINFO: ") + std::strerror(rc) + ")",
                      "SIOCETHTOOL " + netdev);
  if (rc != 0) return errno_error(rc, netdev, "ETHTOOL_GMODULEINFO");
  if (info.eeprom_len == 0 || info.eeprom_len > 4096)
    return make_error(ErrorCode::kIo, "implausible module EEPROM length " + std::to_string(info.eeprom_len),
                      "SIOCETHTOOL " + netdev);
  std::vector<uint64_t> storage((sizeof(ethtool_eeprom) + info.eeprom_len + 7) / 8);
  auto* ee = reinterpret_cast<ethtool_eeprom*>(storage.data());
  ee->cmd = ETHTOOL_GMODULEEEPROM;
  ee->offset = 0;
  ee->len = info.eeprom_len;
  rc = io.call(netdev, ee);
  if (rc == EIO)
    return make_error(ErrorCode::kNotFound, "no module readable (ETHTOOL_GMODULEEEPROM: I/O error)",
                      "SIOCETHTOOL " + netdev);
  if (rc != 0) return errno_error(rc, netdev, "ETHTOOL_GMODULEEEPROM");
  const auto* data = reinterpret_cast<const uint8_t*>(ee) + offsetof(ethtool_eeprom, data);
  std::vector<uint8_t> image(data, data + std::min(ee->len, info.eeprom_len));
  return module_memory_from_flat(info.type, image);
}

}  // namespace fabdiag
