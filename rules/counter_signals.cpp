#include "rules/counter_signals.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>
#include <string_view>
#include <unordered_set>

#include "core/text.h"
#include "probes/counters/counter_classes.h"

namespace fabdiag {
namespace {

// Per-priority pause counter names (normalized), by driver (docs/domain.md#pause-and-pfc-counters).
const char* const kPfcCounters[] = {
    "rx_prio#_pause", "tx_prio#_pause", "rx_prio#_pause_duration", "tx_prio#_pause_duration",
    "rx_prio#_pause_transition",                                              // mlx5e
    "pfc_pri#_rx_duration_us", "pfc_pri#_tx_duration_us", "pfc_pri#_rx_transitions",
    "pfc_pri#_tx_transitions", "rx_pfc_ena_frames_pri#", "tx_pfc_ena_frames_pri#",
    "rx_pfc_xon#xoff_frames_pri#",                                            // bnxt_en
    "rx_priority_#_xon.nic", "rx_priority_#_xoff.nic", "tx_priority_#_xon.nic",
    "tx_priority_#_xoff.nic",                                                 // ice
    "port.rx_priority_#_xon_rx", "port.rx_priority_#_xoff_rx", "port.tx_priority_#_xon_tx",
    "port.tx_priority_#_xoff_tx"};                                            // i40e

// Pause durations in microseconds: (pattern, per-priority, rx).
struct DurationPattern {
  const char* pattern;
  bool per_prio;
  bool rx;
};
const DurationPattern kDurations[] = {{"rx_prio#_pause_duration", true, true},
                                      {"tx_prio#_pause_duration", true, false},
                                      {"rx_global_pause_duration", false, true},
                                      {"tx_global_pause_duration", false, false},
                                      {"pfc_pri#_rx_duration_us", true, true},
                                      {"pfc_pri#_tx_duration_us", true, false}};

// Denominators of the ECN-marked share, in order of preference: RDMA-only packet counts first.
const char* const kRoceRxPackets[] = {"rdma_rx_packets", "rx_vport_rdma_unicast_packets",
                                      "port_rcv_packets", "rx_roce_good_pkts", "rx_pkts", "RxUDP"};

// Per-priority traffic counter names (normalized).
const char* const kPrioTraffic[] = {"rx_prio#_packets", "tx_prio#_packets", "rx_prio#_bytes",
                                    "tx_prio#_bytes"};

// One hash lookup instead of comparing every counter's name with each of the names above
// (compute_link_signals sees every counter of a node).
template <size_t N>
bool one_of(const char* const (&names)[N], const std::string& norm) {
  static const std::unordered_set<std::string_view> set(std::begin(names), std::end(names));
  return set.count(norm) > 0;
}

bool is_delta(const CounterChange& ch) {
  return ch.status != DeltaStatus::kSnapshot && ch.delta.has_value();
}

std::optional<int> last_number(const std::string& name) {
  size_t end = name.size();
  while (end > 0 && !std::isdigit(static_cast<unsigned char>(name[end - 1]))) --end;
  if (end == 0) return std::nullopt;
  size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(name[begin - 1]))) --begin;
  auto v = parse_u64(name.substr(begin, end - begin));
  if (!v || *v > 15) return std::nullopt;
  return static_cast<int>(*v);
}

}  // namespace

std::optional<uint64_t> change_amount(const CounterChange& ch) {
  if (ch.status == DeltaStatus::kSnapshot) return ch.counter.value;
  return ch.delta;
}

std::optional<int> pfc_priority_of(const std::string& name) {
  std::string norm = normalize_counter_name(name);
  if (!one_of(kPfcCounters, norm) && !one_of(kPrioTraffic, norm)) return std::nullopt;
  return last_number(name);
}

namespace {

// Per-priority traffic of a link (delta, else value), by priority.
struct PrioTraffic {
  std::map<int, uint64_t> packets, rx_bytes, rx_packets, tx_bytes, tx_packets;
};

// ECN marks and the candidate denominators of the marked share (deltas).
struct EcnCounts {
  uint64_t marks = 0;
  bool marks_known = false;
  std::map<std::string, uint64_t> denominators;
};

// PFC counters, pause seen, and per-priority traffic.
void note_pfc_and_traffic(LinkSignals& s, const CounterChange& ch, const std::string& norm, PrioTraffic& t) {
  const Counter& c = ch.counter;
  auto amount = change_amount(ch);
  if (one_of(kPfcCounters, norm)) {
    s.has_prio_counters = true;
    if (auto prio = last_number(c.name)) s.pfc_prios.insert(*prio);
  }
  if (c.category == CounterCategory::kPause && amount && *amount > 0 && c.canonical != "port_xmit_wait")
    s.pause_seen = true;
  if (!one_of(kPrioTraffic, norm)) return;
  s.has_prio_counters = true;
  auto prio = last_number(c.name);
  if (!prio || !amount) return;
  bool rx = starts_with(c.name, "rx");
  bool bytes = ends_with(norm, "_bytes");
  auto& m = bytes ? (rx ? t.rx_bytes : t.tx_bytes) : (rx ? t.rx_packets : t.tx_packets);
  m[*prio] = *amount;
  if (!bytes) t.packets[*prio] += *amount;
}

// Pause durations: share of the window.
void add_pause_shares(LinkSignals& s, const CounterChange& ch, const std::string& norm,
                      std::optional<double> window_s) {
  const Counter& c = ch.counter;
  if (!is_delta(ch) || *ch.delta == 0) return;  // (a snapshot: no counter here can count)
  bool timed = window_s && *window_s > 0;
  for (const auto& d : kDurations) {
    if (norm != d.pattern) continue;
    if (!timed) {
      s.pause_durations_without_window = true;
      continue;
    }
    PauseShare ps;
    ps.counter = c.name;
    ps.device = c.device;
    ps.source = c.source;
    ps.prio = d.per_prio ? last_number(c.name).value_or(-1) : -1;
    ps.rx = d.rx;
    ps.duration_us = *ch.delta;
    ps.share = static_cast<double>(*ch.delta) / (*window_s * 1e6);
    ps.at_least = ch.at_least;
    s.pause_shares.push_back(ps);
  }
}

// Pre-FEC BER, lanes and ECN marks (deltas only).
void add_fec_and_ecn(LinkSignals& s, const CounterChange& ch, const std::string& norm, EcnCounts& ecn) {
  if (!is_delta(ch)) return;
  const Counter& c = ch.counter;
  if (c.canonical == "rx_corrected_bits_phy" || c.canonical == "rx_corrected_bits" ||
      c.canonical == "fec_corrected_bits") {
    s.corrected_bits_delta = s.corrected_bits_delta.value_or(0) + *ch.delta;
    s.ber_source = c.source;
  }
  if (c.canonical == "rx_bits_phy" || c.canonical == "rx_bits")
    s.received_bits_delta = s.received_bits_delta.value_or(0) + *ch.delta;
  if (norm == "rx_err_lane_#_phy")
    if (auto lane = last_number(c.name)) s.lanes.push_back({*lane, *ch.delta, c.name, c.source});
  if (c.canonical == "np_ecn_marked_roce_packets" || c.canonical == "cc_rx_ce_pkts") {
    ecn.marks += *ch.delta;
    ecn.marks_known = true;
    s.ecn_source = c.source;
  }
  for (const char* d : kRoceRxPackets)
    if (c.canonical == d) ecn.denominators[d] += *ch.delta;
}

// The priority with the most packets and its average frame sizes.
void pick_traffic_prio(LinkSignals& s, PrioTraffic& t) {
  for (const auto& [prio, n] : t.packets)
    if (!s.traffic_prio || n > s.traffic_prio_packets) {
      s.traffic_prio = prio;
      s.traffic_prio_packets = n;
    }
  if (s.traffic_prio && s.traffic_prio_packets == 0) s.traffic_prio.reset();
  if (!s.traffic_prio) return;
  int p = *s.traffic_prio;
  if (t.rx_packets.count(p) && t.rx_bytes.count(p) && t.rx_packets[p] > 0)
    s.rx_avg_frame_bytes = static_cast<double>(t.rx_bytes[p]) / static_cast<double>(t.rx_packets[p]);
  if (t.tx_packets.count(p) && t.tx_bytes.count(p) && t.tx_packets[p] > 0)
    s.tx_avg_frame_bytes = static_cast<double>(t.tx_bytes[p]) / static_cast<double>(t.tx_packets[p]);
}

// The marks and the most preferred denominator that was read.
void pick_ecn_share(LinkSignals& s, const EcnCounts& ecn) {
  if (!ecn.marks_known) return;
  s.ecn_marked_delta = ecn.marks;
  for (const char* d : kRoceRxPackets)
    if (auto it = ecn.denominators.find(d); it != ecn.denominators.end()) {
      s.roce_rx_packets_delta = it->second;
      s.roce_rx_counter = d;
      break;
    }
}

}  // namespace

LinkSignals compute_link_signals(const std::vector<const CounterChange*>& changes,
                                 std::optional<double> window_s) {
  LinkSignals s;
  PrioTraffic traffic;
  EcnCounts ecn;
  for (const CounterChange* chp : changes) {
    const CounterChange& ch = *chp;
    const std::string norm = normalize_counter_name(ch.counter.name);
    if (ch.counter.group == CounterGroup::kEthtoolStats) s.has_driver_stats = true;
    note_pfc_and_traffic(s, ch, norm, traffic);
    add_pause_shares(s, ch, norm, window_s);
    add_fec_and_ecn(s, ch, norm, ecn);
  }
  std::sort(s.pause_shares.begin(), s.pause_shares.end(),
            [](const PauseShare& a, const PauseShare& b) { return a.share > b.share; });
  std::sort(s.lanes.begin(), s.lanes.end(),
            [](const LinkSignals::Lane& a, const LinkSignals::Lane& b) { return a.lane < b.lane; });
  pick_traffic_prio(s, traffic);
  pick_ecn_share(s, ecn);
  return s;
}

}  // namespace fabdiag
