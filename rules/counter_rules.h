// Counter rules: turn port attributes and counter readings or deltas into findings (layer L3
// transport or L4 physical), with the counters, the window and the threshold source as
// evidence. Thresholds and their sources: docs/thresholds.md#per-hour-rules,
// docs/thresholds.md#rdma-core-error-thresholds and one section per symptom of docs/thresholds.md;
// they are data in one table (rules/counter_rule_table.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"
#include "probes/counters/counter_delta.h"
#include "probes/counters/counter_model.h"

namespace fabdiag {

/// Findings for one RDMA port's attributes: state not ACTIVE ("1: DOWN" -> error port_down,
/// INIT/ARMED -> warn port_not_active) and phys_state not LinkUp (IBTA values only: a
/// non-standard text such as "4: ACTIVE" is ignored, never a fault). The rate of a port that
/// is not up is shown as "not a link speed" (mlx5 prints "40 Gb/sec (4X QDR)" with no link).
/// Link width or speed is never judged here (that needs the expected inventory). Netdevs
/// (is_rdma == false) give no findings.
std::vector<Finding> port_state_findings(const PortInfo& port);

/// True when the phys_state text is one of the IBTA pairs ("1: Sleep" .. "7: Phy Test"; case and
/// spaces ignored). False for empty, unparsable or non-standard text such as "4: ACTIVE".
bool phys_state_is_ibta(const std::string& phys_state);

/// True when the phys_state text is an IBTA value other than 5: LinkUp ("2: Polling").
/// False for LinkUp, for empty or unparsable text and for non-standard pairs ("4: ACTIVE").
bool phys_state_is_down(const std::string& phys_state);

/// Findings for counter readings.
///
/// Each change is judged by its status: kSnapshot = a cumulative reading (the snapshot rules
/// below), anything else = a delta. `window_s` is the time the deltas cover; empty when the
/// deltas have no known time base (imported snapshots without timestamps: any-growth rules
/// fire, rates and per-hour escalations do not). So one call can judge a mix, e.g. ethtool
/// deltas of an imported capture next to a single hw_counters reading.
///
/// Deltas: A counter of an error kind whose
/// delta is > 0 fires its rule (link_downed -> critical L4; symbol_error, port_rcv_errors -> warn,
/// error at >= 10/h with at least 2 events; loss set local_ack_timeout_err / out_of_sequence /
/// packet_seq_err / ... -> warn L3; req_transport_retries_exceeded -> critical; *_cqe_error ->
/// error; rp_cnp_ignored -> warn; pause-storm error events -> critical; pause/ECN/CNP and
/// port_xmit_wait -> info only). Pause durations give a paused fraction (> 1 % warn, > 5 % error).
///
/// Error counters no rule names fall back to the knowledge base: a counter whose base rule is
/// any_growth or per_hour and whose category is an error kind gives a warn when it grows
/// (phy_errors, link_events, packet_drops or rdma_packet_loss by category).
///
/// Snapshot readings are cumulative since the last reset and carry no time base, so only the
/// rules for absolute counts fire (docs/thresholds.md#rdma-core-error-thresholds: symbol_error
/// >= 10 -> warn, ...; *_cqe_error and the loss set >= 10 -> warn; rp_cnp_ignored >= 1 -> warn;
/// link_downed >= 1 -> warn, a flap or a peer reboot since the counters were cleared (case 018));
/// no rate is claimed. port_xmit_wait never fires on a snapshot.
///
/// Either way: saturated counters give counter_saturated ("at least N"; warn for error kinds,
/// info otherwise), counters that appeared/vanished give counter_set_changed (info) and counters
/// that went down give counter_reset (info). One finding per (device, rule), evidence per counter.
std::vector<Finding> counter_findings(const std::vector<CounterChange>& changes,
                                      std::optional<double> window_s);

/// One counter name (or '#' pattern) a rule of the table names.
struct CounterRulePattern {
  std::string pattern;  ///< "symbol_error", "rx_prio#_pause".
  std::string code;     ///< The finding code it feeds ("symbol_errors").
  Severity on_growth;   ///< Severity of any growth in a window.
  bool escalates = false;  ///< A larger delta or rate raises the severity.
};
/// Every counter the rule table names, for consistency tests against the knowledge base.
std::vector<CounterRulePattern> counter_rule_patterns();

/// port_state_findings for every port, then counter_findings.
std::vector<Finding> evaluate_counter_rules(const std::vector<PortInfo>& ports,
                                            const std::vector<CounterChange>& changes,
                                            std::optional<double> window_s);

}  // namespace fabdiag
