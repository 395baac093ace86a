// Signals that need several counters of one link (an RDMA port with its netdev), computed from
// counter readings or deltas: paused share of the window per priority, which priorities have
// PFC counters and which carries the traffic, pre-FEC BER, per-lane corrected bits, ECN marks
// against received RoCE packets. Used by rules/counter_interpret.h; no judgement here.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "probes/counters/counter_delta.h"

namespace fabdiag {

/// Time paused on one priority (or globally) over the window, from a pause-duration counter
/// (mlx5e rx/tx_prioN_pause_duration, rx/tx_global_pause_duration; bnxt_en
/// pfc_priN_rx/tx_duration_us), all in microseconds: share = d duration / (window_s x 1e6).
struct PauseShare {
  std::string counter;  ///< As read ("rx_prio3_pause_duration").
  std::string device;   ///< The netdev it was read on.
  std::string source;
  int prio = -1;        ///< 0..7, -1 for global (802.3x) pause.
  bool rx = true;       ///< rx = this port was paused by its peer; tx = it paused its peer.
  uint64_t duration_us = 0;  ///< The delta.
  double share = 0;     ///< 0..1 of the window.
  bool at_least = false;
};

/// Everything the interpretation needs from one link's counters.
struct LinkSignals {
  std::vector<PauseShare> pause_shares;  ///< Only with deltas and a known window, largest first.
  bool pause_durations_without_window = false;  ///< Durations moved, but the window is unknown.

  bool has_driver_stats = false;  ///< Any ethtool statistic of the link's netdev was read.
  bool has_prio_counters = false; ///< Per-priority traffic or pause counters exist (an Ethernet NIC).
  std::set<int> pfc_prios;        ///< Priorities with a PFC (per-priority pause) counter.
  bool pause_seen = false;        ///< A pause counter grew (or is non-zero in a snapshot).
  std::optional<int> traffic_prio;         ///< Priority with the most packets (delta, else value).
  uint64_t traffic_prio_packets = 0;
  std::optional<double> rx_avg_frame_bytes;  ///< d rx_prioP_bytes / d rx_prioP_packets on it.
  std::optional<double> tx_avg_frame_bytes;

  std::optional<uint64_t> corrected_bits_delta;  ///< rx_corrected_bits_phy (mlx5e), rx_corrected_bits (bnxt_en).
  std::optional<uint64_t> received_bits_delta;   ///< rx_bits_phy, rx_bits.
  std::string ber_source;
  struct Lane {
    int lane = 0;
    uint64_t corrected_bits_delta = 0;
    std::string counter, source;
  };
  std::vector<Lane> lanes;        ///< rx_err_lane_N_phy deltas, in lane order.

  std::optional<uint64_t> ecn_marked_delta;     ///< np_ecn_marked_roce_packets (+aliases), cc_rx_ce_pkts.
  std::optional<uint64_t> roce_rx_packets_delta;  ///< The denominator of the marked share.
  std::string roce_rx_counter;    ///< Which counter gave it ("port_rcv_packets", ...).
  std::string ecn_source;
};

/// Computes the signals of the counters in `changes` that belong to the link's `devices`.
/// `window_s` is the time the deltas cover (empty = unknown: no shares).
LinkSignals compute_link_signals(const std::vector<const CounterChange*>& changes,
                                 std::optional<double> window_s);

/// The priority in a per-priority counter name (the last run of digits: "rx_prio3_pause" -> 3,
/// "rx_pfc_xon2xoff_frames_pri5" -> 5, "port.rx_priority_4_xoff_rx" -> 4); nullopt for a name
/// that is not a per-priority pause or traffic counter.
std::optional<int> pfc_priority_of(const std::string& name);

/// The amount a change stands for: its delta when it has one, its value for a single reading,
/// nullopt otherwise (appeared, vanished, reset, missing).
std::optional<uint64_t> change_amount(const CounterChange& ch);

}  // namespace fabdiag
