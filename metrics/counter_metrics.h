// The node_exporter textfile mapping of a counters result: metric families in base units
// (core/metric_family.h), rendered by report/prometheus.h. Labels stay low-cardinality:
// device, port, netdev, counter (plus lane for optics and severity for the findings count).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"
#include "core/metric_family.h"
#include "probes/counters/counter_delta.h"
#include "probes/counters/counter_model.h"

namespace fabdiag {

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

/// Metric families of a counters run, in base units (metrics/counter_metrics.cpp):
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

}  // namespace fabdiag
