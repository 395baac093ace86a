// Internal to `fabdiag counters` (cmd/counters*.cpp): cell formatting, the link and optics
// sections, the --watch loop and the Prometheus metric families.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cmd/commands.h"
#include "core/metric_family.h"
#include "probes/counter_delta.h"
#include "probes/counter_model.h"
#include "probes/sysfs_counters.h"
#include "report/document.h"

namespace fabdiag::cmd {

/// "port", "hw", "netdev", "ethtool": the SRC column.
const char* counter_short_group(CounterGroup g);
/// A value in its unit for people ("1.23 MB", "12.3 ms", "1,234").
std::string fmt_counter_amount(double v, const std::string& unit);
/// Cumulative value; ">= " for a saturated counter.
std::string fmt_counter_value(const CounterChange& ch);
/// "+1,234", ">= +5", "new", "gone", "reset", "(wrap)" suffix.
std::string fmt_counter_delta(const CounterChange& ch);
/// Per-second rate in the counter's unit ("1.2 GB/s", "3.4/s", "0.5 % paused"); empty without.
std::string fmt_counter_rate(const CounterChange& ch);

/// "links" section: one row per netdev with ethtool link facts; nullopt when there are none.
std::optional<Section> links_section(const std::vector<LinkFacts>& links);
/// "optics" section: one table per module (lanes with rx/tx power in dBm and bias), the
/// module's thresholds as notes; nullopt when there are none. `indent` prefixes rows (table).
std::optional<Section> optics_section(const std::vector<ModuleDiagnostics>& optics,
                                      const std::string& indent);

/// `fabdiag counters --watch`: reads a snapshot every interval (module EEPROM not re-read),
/// prints per-second rates of the top movers and the findings of the last window; on a
/// terminal it clears and redraws (cursor hidden, restored on exit), otherwise it appends
/// plain blocks. SIGINT/SIGTERM end it cleanly. Returns 0, or 2 for unusable options.
/// `first` is the snapshot already read (the start of the first window).
int run_counters_watch(const GlobalOptions& g, const CountersOptions& o, const FsRoot& fs,
                       const CounterReadOptions& ro, std::optional<CounterCategory> only,
                       Snapshot first);

/// What the metric families are made of (the latest snapshot of a counters run).
struct CountersMetricsInput {
  const std::vector<PortInfo>& ports;
  const std::vector<CounterChange>& changes;  ///< Latest values (vanished counters are skipped).
  const std::vector<LinkFacts>& links;
  const std::vector<ModuleDiagnostics>& optics;
  const std::vector<Finding>& findings;
  size_t read_errors = 0;  ///< Failure gaps (envelope errors[]).
  std::optional<CounterCategory> only;
  bool all = false;        ///< --prometheus-all: every counter, not only classified ones.
};

/// Metric families of a counters run, in base units (cmd/counters_prometheus.cpp):
///   fabdiag_<category>_total / _bytes_total / _bits_total / _seconds_total (pause durations,
///     us -> s): counters, labels device (ibdev or netdev), port (RDMA port or ""), netdev
///     (paired netdev of an RDMA port, or the netdev), counter (kernel/driver name). By default
///     only classified counters (known to the knowledge base, category not "other"), without per-queue ring counters (rx3_*, tx12_*, ch0_*); a driver
///     statistic named like a netdev statistic of the same netdev is exported once (netdev).
///   fabdiag_port_state, fabdiag_port_phys_state (IBTA numbers), fabdiag_link_up,
///     fabdiag_link_speed_bytes_per_second, fabdiag_link_lanes: gauges.
///   fabdiag_optics_temperature_celsius, _supply_voltage_volts, _rx_power_watts,
///     _tx_power_watts, _tx_bias_amperes (label lane), and the module's thresholds
///     _rx_power_low_warning_watts, _rx_power_low_alarm_watts, _temperature_high_warning_celsius.
///   fabdiag_counters_findings{severity}, fabdiag_counters_read_errors: gauges.
std::vector<MetricFamily> counters_metric_families(const CountersMetricsInput& in);

/// True for per-queue/ring counter names (rx3_packets, tx12_bytes, ch0_events, rxq1_...,
/// queue_5_...), left out of the default Prometheus export.
bool is_per_queue_counter(const std::string& name);

}  // namespace fabdiag::cmd
