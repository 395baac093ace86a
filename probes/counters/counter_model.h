// Counter model: one sample of one NIC/RDMA counter, the port it belongs to, and a snapshot of
// all of them on one host. Produced by probes/counters/sysfs_counters.h (sysfs + ethtool), consumed by
// probes/counters/counter_delta.h (deltas, rates) and rules/counter_rules.h (findings).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/result.h"
#include "probes/module/module_diagnostics.h"

namespace fabdiag {

/// Where a counter was read.
enum class CounterGroup {
  kIbPortCounters,  ///< /sys/class/infiniband/<ibdev>/ports/<n>/counters/* (IBTA PMA PortCounters).
  kIbHwCounters,    ///< /sys/class/infiniband/<ibdev>/ports/<n>/hw_counters/* (driver rdma_hw_stats).
  kNetdevStats,     ///< /sys/class/net/<netdev>/statistics/* (rtnl_link_stats64).
  kEthtoolStats,    ///< Driver statistics of `ethtool -S <netdev>` (SIOCETHTOOL ETHTOOL_GSTATS).
  kLogEvents,       ///< Events counted in a log (`fabdiag import syslog`: carrier losses).
};

/// "ib_port_counters", "ib_hw_counters", "netdev_stats", "ethtool_stats", "log_events" (JSON).
const char* to_string(CounterGroup g);
/// Parses the names above; nullopt for anything else.
std::optional<CounterGroup> parse_counter_group(const std::string& s);

/// What a counter is evidence of (docs/domain.md#counter-categories).
enum class CounterCategory {
  kTraffic,     ///< Bytes/packets moved (volume, not health).
  kPause,       ///< Link-level pause / PFC frames and pause durations (flow control).
  kEcn,         ///< ECN congestion-experienced marks.
  kCnp,         ///< RoCE congestion notification packets (DCQCN) sent/handled/ignored.
  kPhyError,    ///< Physical-layer errors: symbol, CRC/FCS, FEC uncorrectable, ICRC, receive errors.
  kDiscard,     ///< Packets dropped for lack of buffer, congestion or a down port.
  kRetransmit,  ///< Transport loss and recovery: ack timeouts, sequence errors, retries, CQE errors.
  kLink,        ///< Link state events: link down, link error recovery (retrain), carrier changes.
  kOther,       ///< Anything else the knowledge base knows (requests by opcode, management packets).
  kUnknown,     ///< Not in the knowledge base (probes/counters/data/counters.json): listed, never judged.
};

/// "traffic", "pause", "ecn", "cnp", "phy_error", "discard", "retransmit", "link", "other",
/// "unknown".
const char* to_string(CounterCategory c);
/// Parses the names above; nullopt for anything else.
std::optional<CounterCategory> parse_counter_category(const std::string& s);
/// Every category, in the order above (for help texts and tests).
std::vector<CounterCategory> all_counter_categories();

/// How the knowledge base says a counter is judged (probes/counters/data/counters.json "rules").
enum class CounterRule {
  kAnyGrowth,  ///< Any increase in a window is a finding.
  kPerHour,    ///< A rate per hour over the window; one snapshot: absolute count vs rdma-core limits.
  kPerSecond,  ///< A rate per second, or a share of the window (pause durations).
  kBer,        ///< Numerator or denominator of a bit error ratio over the window.
  kRatio,      ///< Judged against traffic (ECN marks per received RoCE packet).
  kInfo,       ///< Shown, never a problem by itself.
  kVolume,     ///< Traffic volume: the denominator of ratios and averages.
  kGauge,      ///< Not cumulative: a current value, a delta means nothing.
  kUnknown,    ///< The counter is not in the knowledge base.
};

/// "any_growth", "per_hour", "per_second", "ber", "ratio", "info", "volume", "gauge", "unknown".
const char* to_string(CounterRule r);
/// Parses the names above; nullopt for anything else.
std::optional<CounterRule> parse_counter_rule(const std::string& s);

/// One sample of one counter.
///
/// `raw` is the number as read; `value` = raw x `scale` in `unit`, saturating at UINT64_MAX.
/// `scale` is 4 for port_xmit_data / port_rcv_data, which count 4-octet words (IBTA), so their
/// `value` is bytes. Overflow behaviour: a counter narrower than 64 bits either wraps modulo
/// 2^width_bits (`wraps`, e.g. mlx5 Q counters, 32 bits) or saturates at 2^width_bits - 1 (IBTA
/// PortCounters: symbol_error 16, link_downed 8, local_link_integrity_errors 4, ...).
struct Counter {
  std::string device;     ///< "mlx5_0/1" (ibdev/port), "mlx5_0" (device-level), or a netdev.
  CounterGroup group = CounterGroup::kNetdevStats;
  std::string name;       ///< As the kernel or driver spells it ("to_retransmits", "rx_prio3_pause").
  std::string canonical;  ///< Meaning-level name after aliasing ("local_ack_timeout_err"); = name if none.
  CounterCategory category = CounterCategory::kUnknown;
  CounterRule rule = CounterRule::kUnknown;  ///< From the knowledge base; kUnknown when not in it.
  std::string unit = "count";  ///< "count", "bytes", "bits" or "us" (pause durations).
  uint64_t raw = 0;       ///< As read.
  uint64_t scale = 1;     ///< value = raw * scale.
  uint64_t value = 0;     ///< In `unit`.
  unsigned width_bits = 64;  ///< Hardware width; 64 = never overflows in practice.
  bool wraps = false;     ///< Narrow counter that wraps (true) or saturates (false).
  bool saturated = false; ///< raw == 2^width_bits - 1 on a saturating counter: "at least value".
  std::string source;     ///< Physical sysfs path, or "ethtool -S <netdev>" / fixture file.
};


/// Attributes of one RDMA port (or one netdev) that counters are read for: the evidence that
/// says whether a counter on it means anything (a DOWN port's rate is not a speed).
struct PortInfo {
  std::string device;      ///< "mlx5_0/1" for an RDMA port, the netdev name for a netdev.
  std::string ibdev;       ///< "mlx5_0"; empty for a plain netdev.
  int port = 0;            ///< 1-based RDMA port; 0 for a plain netdev.
  std::string netdev;      ///< Paired netdev ("ens1f0np0"); empty when none is known.
  std::string driver;      ///< Kernel driver of the PCI function ("mlx5_core"); empty if unknown.
  std::string link_layer;  ///< "InfiniBand" | "Ethernet" (RDMA ports); "Ethernet", "Loopback", ... (netdev type).
  std::string state;       ///< RDMA: ports/<n>/state ("4: ACTIVE"); netdev: operstate ("up").
  std::string phys_state;  ///< RDMA: ports/<n>/phys_state ("5: LinkUp"); empty for a netdev.
  std::string rate;        ///< RDMA: ports/<n>/rate ("400 Gb/sec (4X NDR)"); netdev: "<speed> Mb/s".
  bool is_rdma = false;    ///< True for an RDMA port, false for a plain netdev.
  std::string sysfs_dir;   ///< Physical directory the attributes were read from (evidence source).
};

/// Link facts of one netdev from ethtool: netlink LINKMODES, LINKSTATE, PAUSE and FEC
/// (probes/ethtool/ethtool_link.h), or the ioctl fallback (ETHTOOL_GLINKSETTINGS, ETHTOOL_GLINK,
/// ETHTOOL_GFECPARAM). Unknown or unreported values stay empty.
struct LinkFacts {
  std::string netdev;
  std::optional<uint32_t> speed_mbps;  ///< Mb/s; empty when unknown (SPEED_UNKNOWN, link down).
  std::optional<uint32_t> lanes;       ///< LINKMODES_LANES (Linux >= 5.12; netlink only).
  std::string duplex;                  ///< "full", "half", or empty when unknown.
  std::optional<bool> autoneg;         ///< Link autonegotiation on/off.
  std::optional<bool> link_up;         ///< LINKSTATE_LINK / ETHTOOL_GLINK.
  std::optional<uint32_t> ext_state;   ///< LINKSTATE_EXT_STATE (why the link is down, Linux >= 5.9).
  std::string ext_state_name;          ///< "CABLE_ISSUE", "BAD_SIGNAL_INTEGRITY", ...
  std::optional<uint32_t> ext_substate;
  std::string ext_substate_name;       ///< "UNSUPPORTED_CABLE", ...
  std::optional<uint64_t> link_down_events;  ///< LINKSTATE_EXT_DOWN_CNT (Linux >= 6.2); also a counter.
  std::optional<bool> pause_autoneg;   ///< Pause configuration (PAUSE_GET).
  std::optional<bool> pause_rx;
  std::optional<bool> pause_tx;
  std::string fec_active;              ///< "None", "RS", "BaseR", "LLRS"; empty when unknown.
  std::string source;                  ///< "ethtool netlink" or "SIOCETHTOOL ioctl".
};

/// All counters of one host at one moment.
struct Snapshot {
  std::string taken_at;      ///< UTC ISO 8601 when reading started.
  double monotonic_s = 0;    ///< Clock::monotonic_s() when reading started (for windows).
  std::vector<PortInfo> ports;
  std::vector<Counter> samples;
  std::vector<LinkFacts> links;  ///< Per netdev, when an ethtool link source was read.
  /// Module diagnostics per netdev with a readable module EEPROM (probes/module/module_eeprom.h);
  /// judged by rules/optics.h. Empty when none were read.
  std::vector<ModuleDiagnostics> optics;
  /// What could not be read. kUnsupported = "N/A (no PMA)" or EOPNOTSUPP (not applicable),
  /// kNotFound = absent by design (irdma has no counters/ folder) or vanished while reading;
  /// anything else (kParse garbage, kIo, kPermission) is a failure: see is_failure().
  std::vector<Error> gaps;
  /// The capture ends early (an imported text cut short): counters absent here that an earlier
  /// snapshot had are unknown, not vanished (compute_delta reports them as kMissing).
  bool truncated = false;
};

/// True when a gap is a real failure (the result is partial), false when it only says that a
/// counter or source does not exist or is not supported on this device.
bool is_failure(const Error& gap);

/// JSON form of a port: {device, ibdev, port, netdev, driver, link_layer, state, phys_state, rate}.
void to_json(nlohmann::json& j, const PortInfo& p);

/// JSON form of link facts: {netdev, speed_mbps, lanes, duplex, autoneg, link_up, ext_state,
/// ext_state_name, ext_substate, ext_substate_name, link_down_events, pause_autoneg, pause_rx,
/// pause_tx, fec_active, source}; null for unknown values.
void to_json(nlohmann::json& j, const LinkFacts& l);
/// Inverse of to_json(LinkFacts); members that are absent or null stay unknown. Throws
/// nlohmann::json::exception on a member of the wrong type (callers convert it to kParse).
void from_json(const nlohmann::json& j, LinkFacts& l);

}  // namespace fabdiag
