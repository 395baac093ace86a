// Reads one counter snapshot of a host: RDMA port counters and hw_counters, netdev statistics,
// driver (ethtool) statistics, and the port attributes that give them meaning.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/fs_root.h"
#include "probes/counters/counter_model.h"
#include "probes/counters/counter_sources.h"

namespace fabdiag {

/// What read_counter_snapshot reads.
struct CounterReadOptions {
  bool rdma = true;    ///< /sys/class/infiniband/<ibdev>/ports/<n>/{counters,hw_counters}/*.
  bool netdev = true;  ///< /sys/class/net/<netdev>/statistics/*.
  /// Driver statistics per netdev; nullptr = not read. Not owned.
  const EthtoolStatsSource* ethtool = nullptr;
  /// Link facts, standard statistics and module diagnostics per netdev (loopback skipped);
  /// nullptr = not read. Not owned.
  const EthtoolLinkSource* link = nullptr;
  bool link_stats = true;     ///< With `link`: statistics (pause, FEC, link-down, STATS_GET).
  bool module_eeprom = true;  ///< With `link`: module EEPROM pages (slow I2C reads on real NICs).
  /// Only these devices (an ibdev "mlx5_0", a port "mlx5_0/1" or a netdev "eth0"); empty = all.
  std::vector<std::string> devices;
  /// Stamps Snapshot::taken_at and ::monotonic_s; nullptr = real_clock(). Not owned.
  const Clock* clock = nullptr;
};

/// Reads every counter of the host behind `fs` (cost: one file read per counter; IB port
/// counters make the kernel send a PMA MAD each, tens of microseconds to milliseconds).
///
/// Sources:
///   class/infiniband/<ibdev>/ports/<n>/{state,phys_state,rate,link_layer}  -> PortInfo
///   class/infiniband/<ibdev>/ports/<n>/counters/*     group ib_port_counters (IBTA widths,
///       port_xmit_data / port_rcv_data converted from 4-octet words to bytes)
///   class/infiniband/<ibdev>/ports/<n>/hw_counters/*  group ib_hw_counters ("lifespan" skipped)
///   class/infiniband/<ibdev>/hw_counters/*            group ib_hw_counters, device "<ibdev>"
///   class/infiniband/<ibdev>/device/{driver,net/*}    driver and paired netdev
///   class/net/<netdev>/{operstate,speed,type}          -> PortInfo of the netdev
///   class/net/<netdev>/statistics/*                   group netdev_stats
///   class/net/<netdev>/carrier_{changes,down_count,up_count}  group netdev_stats (when present)
///   opts.ethtool->read_stats(<netdev>)                group ethtool_stats
///   opts.link->read(<netdev>)                         Snapshot::links, ::optics, group ethtool_stats
/// Never fails as a whole: what cannot be read becomes a gap in Snapshot::gaps (see there for
/// the codes); "N/A (no PMA)" values are gathered into one kUnsupported gap per directory; a
/// port without a counters/ directory (irdma) is a kNotFound gap (normal); a counter that
/// vanishes between listing and reading is a kNotFound gap; garbage is a kParse gap; a tree
/// with neither class/net nor class/infiniband is a kInvalidArgument gap (not a sysfs tree).
Snapshot read_counter_snapshot(const FsRoot& fs, const CounterReadOptions& opts);

/// Parses the text of one counter file. Errors: kUnsupported for "N/A (no PMA)" (or any "N/A"),
/// kParse for anything but an unsigned integer; both name `source`.
Result<uint64_t> parse_counter_text(std::string_view text, const std::string& source);

/// Builds a Counter from a raw reading: classification (counter_classes.h), unit, x4 scale of
/// IB data counters, width and overflow behaviour, saturation. `driver` is the kernel driver or
/// ibdev name ("mlx5_core", "mlx5_0"); `ext_width` says whether the port's IB data counters are
/// 64-bit (PortCountersExtended) rather than 32-bit saturating ones. A raw value above the
/// declared width's maximum makes the counter 64-bit (it cannot be pinned at a maximum it passed).
Counter make_counter(std::string device, CounterGroup group, std::string name, uint64_t raw,
                     std::string_view driver, std::string source, bool ext_width = true);

/// A "<number>: <name>" attribute such as state "4: ACTIVE" or phys_state "5: LinkUp".
struct NumberedState {
  int number = 0;
  std::string name;  ///< Text after the colon, trimmed ("LinkUp").
};
/// Parses "<number>: <name>"; nullopt when there is no leading number and colon.
std::optional<NumberedState> parse_numbered_state(std::string_view text);

}  // namespace fabdiag
