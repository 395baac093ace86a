// The sources the counter reader (probes/counters/sysfs_counters.h) draws on besides sysfs,
// as interfaces: driver statistics (`ethtool -S`) and link facts, standard statistics and module
// diagnostics of a netdev. probes/ethtool/ implements them (SIOCETHTOOL ioctl, ethtool netlink,
// fixture files); tests pass fakes. Keeping the interfaces here lets the counter model stay
// below the ethtool transports in the dependency order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "probes/counters/counter_model.h"
#include "probes/module/module_diagnostics.h"

namespace fabdiag {

/// One driver statistic: a line of `ethtool -S`.
struct EthtoolStat {
  std::string name;  ///< As the driver spells it ("rx_pause_ctrl_phy", "rx_crc_errors.nic").
  uint64_t value = 0;
};

/// Driver statistics of one netdev.
struct EthtoolStats {
  std::vector<EthtoolStat> stats;  ///< In the driver's order.
  std::string source;              ///< "ethtool -S <netdev> (SIOCETHTOOL)" or the fixture file path.
};

/// Where driver statistics come from (the real ioctl, a fixture file, nothing, or a test fake).
class EthtoolStatsSource {
 public:
  virtual ~EthtoolStatsSource() = default;
  /// Statistics of `netdev`. Errors: kUnsupported (the driver has no statistics: EOPNOTSUPP,
  /// or this source reads nothing), kNotFound (no such netdev / no fixture file), kPermission,
  /// kIo, kParse (malformed fixture file).
  virtual Result<EthtoolStats> read_stats(const std::string& netdev) const = 0;
  /// One line for the result's params: "SIOCETHTOOL ioctl", "fixture files <root>/ethtool/", ...
  virtual std::string describe() const = 0;
};

/// What to read for one netdev.
struct EthtoolLinkReadOptions {
  bool stats = true;          ///< PAUSE/FEC/LINKSTATE statistics (ETHTOOL_FLAG_STATS) and STATS_GET.
  bool module_eeprom = true;  ///< Module EEPROM pages (I2C reads in the NIC firmware: milliseconds each).
};

/// Everything read for one netdev.
struct EthtoolLinkReading {
  std::optional<LinkFacts> link;           ///< Empty when no request answered with any fact.
  std::vector<Counter> counters;           ///< Group ethtool_stats, names of NetlinkStat.
  std::optional<ModuleDiagnostics> module; ///< Decoded module EEPROM, when one was read.
  /// Gaps: one kUnsupported line listing the requests the driver refused with EOPNOTSUPP;
  /// kNotFound (no module plugged, netdev vanished); kPermission (module EEPROM needs
  /// CAP_NET_ADMIN); kParse (malformed reply or fixture); kIo / kTimeout.
  std::vector<Error> gaps;
};

/// Where link facts come from (netlink with ioctl fallback, a fixture, or a test fake).
class EthtoolLinkSource {
 public:
  virtual ~EthtoolLinkSource() = default;
  /// Reads `netdev` (whose kernel driver is `driver`, for counter widths; may be empty).
  virtual EthtoolLinkReading read(const std::string& netdev, const std::string& driver,
                                  const EthtoolLinkReadOptions& opts) const = 0;
  /// One line for the result's params.
  virtual std::string describe() const = 0;
};

}  // namespace fabdiag
