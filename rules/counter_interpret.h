// Interpretation of counters over a window: from per-counter rule hits (rules/counter_rules.h)
// to ONE finding per symptom and link, with the computed signals that need several counters
// (pause share per priority, pre-FEC BER, lane imbalance, ECN marks against traffic, whether a
// RoCE port has a lossless class), and one line per port saying what is happening. Links are
// grouped by rules/counter_links.h.
//
// Symptoms (rules/symptom.h; the names are their finding codes), their layer, and where their
// thresholds come from:
//   pfc_storm        L4  pause-storm error events (any growth: critical), paused share of the
//                        window per priority (> 1 % warn, > 5 % error;
//                        docs/thresholds.md#pause-and-pfc-storms, heuristic),
//                        storm warning / continuous pause events (warn). Below that, pause frames
//                        alone are "pause_frames" (info: flow control at work).
//   congestion       L3  ECN marks and CNPs; marked / received RoCE packets > 1 % warn
//                        (docs/thresholds.md#congestion-ecn-and-cnp, heuristic), else info.
//   ecn_not_enabled  L3  rp_cnp_ignored (and irdma cnpIgnored) > 0
//                        (docs/thresholds.md#ecn-not-enabled).
//   lossy_roce       L3  RDMA loss (ack timeouts, out-of-sequence, retransmits) on a RoCE port
//                        whose netdev has no PFC counter for the priority carrying the traffic
//                        and saw no pause (docs/thresholds.md#lossy-roce: a lossy queue, PFC off
//                        or the wrong traffic class);
//                        with PFC, or on InfiniBand, it stays "rdma_packet_loss".
//   phy_degradation  L4  symbol/CRC/FCS/ICRC errors, post-FEC symbol errors, uncorrectable FEC
//                        blocks (any growth: error), pre-FEC BER = d corrected bits / d received
//                        bits (> 1e-6 warn, > 1e-5 error), one lane >= 10x the others (warn;
//                        both docs/thresholds.md#fec-and-pre-fec-ber, heuristic), a symbol_error
//                        counter pinned at its maximum (critical;
//                        docs/thresholds.md#saturated-counters).
//   link_flap        L4  link_downed, link_down_events_phy, link error recovery, carrier
//                        changes, carrier losses in a log (>= 5 in 24 h error; Azure NHC).
//   rx_starvation    L3  out_of_buffer (RDMA RQ), rx_out_of_buffer (netdev RQ), rx_discards_phy
//                        and other NIC receive-buffer drops (any growth: warn, heuristic).
//   optics           L4  module power, lane spread, temperature, voltage and bias against the
//                        module's own thresholds (rules/optics.h, the one optics judgement).
// Other rule findings (port state, fatal QP and CQE errors, xmit_wait, discards, saturated
// counters, counter set changes) pass through unchanged.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"
#include "probes/counters/counter_delta.h"
#include "probes/counters/counter_model.h"

namespace fabdiag {

/// What the interpretation reads.
struct InterpretInput {
  std::vector<PortInfo> ports;          ///< RDMA ports and netdevs (pairs them into links).
  std::vector<CounterChange> changes;   ///< Deltas and/or single readings (judged by status).
  std::optional<double> window_s;       ///< Seconds the deltas cover; empty = unknown or none.
  std::vector<ModuleDiagnostics> optics;  ///< Optical modules (EEPROM or ethtool -m), judged when present.
};

/// One line per link (an RDMA port with its netdev, or a lone device) or optical module.
struct PortSummary {
  std::string subject;  ///< "mlx5_0/1 (ens1f0np0)", "enp1s0f0", "optics swp1".
  Severity worst = Severity::kInfo;  ///< Worst finding about it (kInfo when none).
  bool healthy = true;               ///< No warn or worse finding.
  std::string line;     ///< "PFC storm on enp1s0f0 prio 3: paused 12 % of the window".
};

/// The interpretation of one host's (or one import's) counters.
struct CounterInterpretation {
  std::vector<Finding> findings;        ///< Port state first, then one per (link, symptom).
  std::vector<PortSummary> summaries;   ///< In port order, then optical modules.
  size_t unknown_counters = 0;          ///< Readings whose name is not in the knowledge base.
  std::vector<std::string> unknown_names;  ///< Their distinct names, in order of appearance.
};

/// Interprets `in` (see the file comment for the symptoms and their thresholds). Never fails;
/// what cannot be judged (no window for a share, no traffic counter for a ratio) is said in the
/// finding's evidence instead of being guessed.
CounterInterpretation interpret_counters(const InterpretInput& in);
/// The same over the parts of an input held elsewhere (a CounterObservation): nothing copied.
CounterInterpretation interpret_counters(const std::vector<PortInfo>& ports,
                                         const std::vector<CounterChange>& changes,
                                         std::optional<double> window_s,
                                         const std::vector<ModuleDiagnostics>& optics);

/// Pre-FEC bit error ratio over a window: d corrected / d received, nullopt when the received
/// bits did not move. Both in bits.
std::optional<double> pre_fec_ber(uint64_t corrected_bits_delta, uint64_t received_bits_delta);

}  // namespace fabdiag
