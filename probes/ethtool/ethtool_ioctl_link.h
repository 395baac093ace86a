// The legacy SIOCETHTOOL fallback for link facts and module EEPROM, used when ethtool netlink
// is not available (built without libnl, or Linux < 5.6). Goes through the EthtoolIoctl seam
// of probes/ethtool/ethtool_ioctl.h, so tests drive it with a fake kernel.
// docs/domain.md#ethtool-ioctl, docs/domain.md#module-eeprom-over-netlink (the module ioctls).
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "probes/counters/counter_model.h"
#include "probes/ethtool/ethtool_ioctl.h"
#include "probes/module/module_pages.h"

namespace fabdiag {

/// Link facts through the ioctl (all unprivileged):
///   ETHTOOL_GLINKSETTINGS (0x4c; the two-call handshake for the link-mode mask size):
///     speed (Mb/s, SPEED_UNKNOWN -> empty), duplex, autoneg;
///   ETHTOOL_GLINK (0x0a): link detected;
///   ETHTOOL_GFECPARAM (0x50): active FEC mode ("None" for ETHTOOL_FEC_OFF).
/// No lanes, link extended state or statistics (netlink only). Each call that the driver
/// refuses with EOPNOTSUPP is appended to `unsupported` ("ETHTOOL_GFECPARAM") and skipped.
/// Errors: kNotFound (ENODEV: no such netdev), kPermission, kIo for other errnos of
/// ETHTOOL_GLINK (the one call every driver answers).
Result<LinkFacts> read_link_facts_ioctl(const EthtoolIoctl& io, const std::string& netdev,
                                        std::vector<std::string>& unsupported);

/// Module EEPROM through ETHTOOL_GMODULEINFO (0x42) then ETHTOOL_GMODULEEEPROM (0x43), both
/// CAP_NET_ADMIN: the flat image (SFF-8079 256 bytes, SFF-8472 512, SFF-8636 256 or 640) as
/// pages (module_memory_from_flat). CMIS modules are not reachable this way beyond the first
/// 256 bytes. Errors: kUnsupported (EOPNOTSUPP: no module support in the driver), kNotFound
/// (ENODEV/EIO: no module plugged), kPermission (EPERM: needs CAP_NET_ADMIN), kIo.
Result<ModuleMemory> read_module_eeprom_ioctl(const EthtoolIoctl& io, const std::string& netdev);

}  // namespace fabdiag
