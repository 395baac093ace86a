#include <doctest/doctest.h>

#include <map>
#include <set>

#include "probes/counters/counter_classes.h"

using namespace fabdiag;

namespace {
CounterCategory cat(CounterGroup g, const char* name) { return classify_counter(g, name).category; }
constexpr auto kPort = CounterGroup::kIbPortCounters;
constexpr auto kHw = CounterGroup::kIbHwCounters;
constexpr auto kNet = CounterGroup::kNetdevStats;
constexpr auto kEth = CounterGroup::kEthtoolStats;
}  // namespace

TEST_CASE("IB PortCounters are classified with IBTA widths, saturating") {
  CHECK(cat(kPort, "symbol_error") == CounterCategory::kPhyError);
  CHECK(cat(kPort, "link_downed") == CounterCategory::kLink);
  CHECK(cat(kPort, "link_error_recovery") == CounterCategory::kLink);
  CHECK(cat(kPort, "port_xmit_discards") == CounterCategory::kDiscard);
  CHECK(cat(kPort, "port_xmit_wait") == CounterCategory::kPause);
  CHECK(cat(kPort, "port_xmit_data") == CounterCategory::kTraffic);
  CHECK(counter_width(kPort, "mlx5_core", "symbol_error").bits == 16);
  CHECK(counter_width(kPort, "mlx5_core", "link_downed").bits == 8);
  CHECK(counter_width(kPort, "mlx5_core", "link_error_recovery").bits == 8);
  CHECK(counter_width(kPort, "mlx5_core", "port_rcv_errors").bits == 16);
  CHECK(counter_width(kPort, "mlx5_core", "local_link_integrity_errors").bits == 4);
  CHECK(counter_width(kPort, "mlx5_core", "excessive_buffer_overrun_errors").bits == 4);
  CHECK(counter_width(kPort, "mlx5_core", "port_xmit_wait").bits == 32);
  CHECK(counter_width(kPort, "hfi1", "VL15_dropped").bits == 16);
  CHECK_FALSE(counter_width(kPort, "mlx5_core", "symbol_error").wraps);
  // Data counters: 32 or 64 depending on the port (decided by the reader).
  CHECK(counter_width(kPort, "mlx5_core", "port_xmit_data").bits == 0);
  CHECK(counter_width(kPort, "mlx5_core", "unicast_xmit_packets").bits == 64);
  // port_xmit_data / port_rcv_data count 4-octet words.
  CHECK(counter_scale(kPort, "port_xmit_data") == 4);
  CHECK(counter_scale(kPort, "port_rcv_data") == 4);
  CHECK(counter_scale(kPort, "port_xmit_packets") == 1);
  CHECK(counter_unit(kPort, "port_rcv_data") == "bytes");
  CHECK(counter_unit(kPort, "symbol_error") == "count");
}

TEST_CASE("mlx5 hw_counters: 32-bit wrapping Q counters except the 64-bit congestion ones") {
  CHECK(cat(kHw, "out_of_sequence") == CounterCategory::kRetransmit);
  CHECK(cat(kHw, "local_ack_timeout_err") == CounterCategory::kRetransmit);
  CHECK(cat(kHw, "req_cqe_error") == CounterCategory::kRetransmit);
  CHECK(cat(kHw, "np_ecn_marked_roce_packets") == CounterCategory::kEcn);
  CHECK(cat(kHw, "rp_cnp_handled") == CounterCategory::kCnp);
  CHECK(cat(kHw, "rp_cnp_ignored") == CounterCategory::kCnp);
  CHECK(cat(kHw, "rx_icrc_encapsulated") == CounterCategory::kPhyError);
  CHECK(cat(kHw, "out_of_buffer") == CounterCategory::kDiscard);
  CHECK(cat(kHw, "rx_write_requests") == CounterCategory::kOther);
  auto w = counter_width(kHw, "mlx5_core", "out_of_sequence");
  CHECK(w.bits == 32);
  CHECK(w.wraps);
  CHECK(counter_width(kHw, "mlx5_0", "local_ack_timeout_err").bits == 32);  // ibdev name fallback
  CHECK(counter_width(kHw, "mlx5_core", "np_cnp_sent").bits == 64);
  CHECK(counter_width(kHw, "mlx5_core", "rp_cnp_ignored").bits == 64);
  CHECK_FALSE(counter_width(kHw, "mlx5_core", "rx_icrc_encapsulated").wraps);
  // Other drivers' hw counters are not assumed narrow.
  CHECK(counter_width(kHw, "bnxt_en", "to_retransmits").bits == 64);
  CHECK(counter_width(kHw, "irdma", "cnpHandled").bits == 64);
}

TEST_CASE("bnxt_re old and new names map to the same meaning") {
  auto c = classify_counter(kHw, "to_retransmits");
  CHECK(c.canonical == "local_ack_timeout_err");
  CHECK(c.category == CounterCategory::kRetransmit);
  CHECK(c.family == "bnxt_re");
  CHECK(classify_counter(kHw, "seq_err_naks_rcvd").canonical == "packet_seq_err");
  CHECK(classify_counter(kHw, "max_retry_exceeded").canonical == "req_transport_retries_exceeded");
  CHECK(classify_counter(kHw, "oos_drop_count").canonical == "out_of_sequence");
  CHECK(classify_counter(kHw, "dup_req").canonical == "duplicate_request");
  CHECK(classify_counter(kHw, "rx_cnp_pkts").canonical == "rp_cnp_handled");
  CHECK(classify_counter(kHw, "tx_cnp_pkts").canonical == "np_cnp_sent");
  CHECK(classify_counter(kHw, "rx_ecn_marked_pkts").category == CounterCategory::kEcn);
  // New (2025) names are the mlx5 names.
  CHECK(classify_counter(kHw, "np_cnp_pkts").canonical == "np_cnp_sent");
  CHECK(classify_counter(kHw, "local_ack_timeout_err").canonical == "local_ack_timeout_err");
  // rx_out_of_buffer: an alias only among hw counters; mlx5e's ethtool stat is another queue.
  CHECK(classify_counter(kHw, "rx_out_of_buffer").canonical == "out_of_buffer");
  CHECK(classify_counter(kEth, "rx_out_of_buffer").canonical == "rx_out_of_buffer");
  CHECK(classify_counter(kEth, "rx_out_of_buffer").family == "mlx5e");
}

TEST_CASE("irdma names") {
  CHECK(classify_counter(kHw, "cnpIgnored").canonical == "rp_cnp_ignored");
  CHECK(classify_counter(kHw, "cnpHandled").canonical == "rp_cnp_handled");
  CHECK(classify_counter(kHw, "cnpSent").canonical == "np_cnp_sent");
  CHECK(cat(kHw, "RxECNMrkd") == CounterCategory::kEcn);
  CHECK(cat(kHw, "tcpRetransSegs") == CounterCategory::kRetransmit);
  CHECK(cat(kHw, "ip4InDiscards") == CounterCategory::kDiscard);
  CHECK(cat(kHw, "ip6InDiscards") == CounterCategory::kDiscard);
  CHECK(cat(kHw, "ip4InOcts") == CounterCategory::kTraffic);
  CHECK(counter_unit(kHw, "ip4InOcts") == "bytes");
}

TEST_CASE("ethtool names: mlx5e, bnxt_en, ice, i40e") {
  CHECK(cat(kEth, "rx_prio3_pause") == CounterCategory::kPause);
  CHECK(cat(kEth, "tx_prio7_pause_duration") == CounterCategory::kPause);
  CHECK(counter_unit(kEth, "rx_prio3_pause_duration") == "us");
  CHECK(cat(kEth, "tx_pause_storm_error_events") == CounterCategory::kPause);
  CHECK(cat(kEth, "rx_crc_errors_phy") == CounterCategory::kPhyError);
  CHECK(cat(kEth, "rx_err_lane_2_phy") == CounterCategory::kPhyError);
  CHECK(counter_unit(kEth, "rx_err_lane_2_phy") == "bits");
  CHECK(counter_unit(kEth, "rx_bits_phy") == "bits");
  CHECK(cat(kEth, "link_down_events_phy") == CounterCategory::kLink);
  CHECK(cat(kEth, "rx_discards_phy") == CounterCategory::kDiscard);
  CHECK(cat(kEth, "rx_prio4_marked") == CounterCategory::kEcn);
  CHECK(cat(kEth, "rx_prio0_bytes") == CounterCategory::kTraffic);
  // bnxt_en
  CHECK(cat(kEth, "pfc_pri3_rx_duration_us") == CounterCategory::kPause);
  CHECK(counter_unit(kEth, "pfc_pri3_rx_duration_us") == "us");
  CHECK(cat(kEth, "rx_pfc_xon2xoff_frames_pri5") == CounterCategory::kPause);
  CHECK(classify_counter(kEth, "rx_pfc_xon2xoff_frames_pri5").known);
  CHECK(cat(kEth, "rx_fcs_err_frames") == CounterCategory::kPhyError);
  CHECK(cat(kEth, "rx_fec_uncorrectable_blocks") == CounterCategory::kPhyError);
  CHECK(cat(kEth, "rx_discard_packets_cos2") == CounterCategory::kDiscard);
  CHECK(cat(kEth, "link_down_events") == CounterCategory::kLink);
  // ice
  CHECK(cat(kEth, "rx_priority_4_xoff.nic") == CounterCategory::kPause);
  CHECK(cat(kEth, "rx_crc_errors.nic") == CounterCategory::kPhyError);
  CHECK(classify_counter(kEth, "mac_remote_faults.nic").family == "ice");
  // i40e
  CHECK(cat(kEth, "port.rx_priority_3_xoff_rx") == CounterCategory::kPause);
  CHECK(cat(kEth, "port.rx_discards") == CounterCategory::kDiscard);
  CHECK(classify_counter(kEth, "port.rx_crc_errors").family == "i40e");
}

TEST_CASE("netdev statistics") {
  CHECK(cat(kNet, "rx_bytes") == CounterCategory::kTraffic);
  CHECK(counter_unit(kNet, "rx_bytes") == "bytes");
  CHECK(counter_unit(kNet, "rx_packets") == "count");
  CHECK(cat(kNet, "rx_dropped") == CounterCategory::kDiscard);
  CHECK(cat(kNet, "rx_crc_errors") == CounterCategory::kPhyError);
  CHECK(cat(kNet, "rx_missed_errors") == CounterCategory::kDiscard);
  CHECK(cat(kNet, "tx_carrier_errors") == CounterCategory::kLink);
  CHECK(counter_width(kNet, "virtio_net", "rx_bytes").bits == 64);
}

TEST_CASE("unknown names: category unknown, a keyword guess only as a hint") {
  auto c = classify_counter(kEth, "vendor_tx_pause_thing");
  CHECK_FALSE(c.known);
  CHECK(c.category == CounterCategory::kUnknown);
  CHECK(c.guess == CounterCategory::kPause);
  CHECK(c.rule == CounterRule::kUnknown);
  CHECK(c.meaning.empty());
  CHECK(c.family.empty());
  CHECK(c.canonical == "vendor_tx_pause_thing");
  CHECK(classify_counter(kEth, "rx3_xdp_drop").guess == CounterCategory::kDiscard);
  CHECK(classify_counter(kEth, "rx_queue_7_bytes").guess == CounterCategory::kTraffic);
  CHECK(classify_counter(kEth, "tx_kicks").guess == CounterCategory::kOther);
  CHECK(classify_counter(kHw, "someNewCnpCounter").guess == CounterCategory::kCnp);
  for (const char* n : {"rx3_xdp_drop", "tx_kicks", "someNewCnpCounter"})
    CHECK(classify_counter(kEth, n).category == CounterCategory::kUnknown);
  // A known name's guess is its category.
  CHECK(classify_counter(kPort, "symbol_error").guess == CounterCategory::kPhyError);
  // The unit of an unknown name is still guessed from its spelling.
  CHECK(counter_unit(kEth, "rx_queue_7_bytes") == "bytes");
  CHECK(counter_unit(kEth, "vendor_pause_duration") == "us");
}

TEST_CASE("names are known only in the groups their family applies to") {
  // mlx5/bnxt_re/irdma names are RDMA hw counters; an ethtool stat of the same spelling is not them.
  CHECK(classify_counter(kHw, "out_of_buffer").known);
  CHECK_FALSE(classify_counter(kEth, "out_of_buffer").known);
  CHECK(classify_counter(kPort, "SymbolErrorCounter").canonical == "symbol_error");
  CHECK_FALSE(classify_counter(kHw, "SymbolErrorCounter").known);
  // The IBTA spellings (perfquery, ibqueryerrors) carry the widths and the x4 of the sysfs names.
  CHECK(counter_width(kPort, "", "SymbolErrorCounter").bits == 16);
  CHECK(counter_width(kPort, "", "LinkDownedCounter").bits == 8);
  CHECK(counter_width(kPort, "", "PortXmitWait").bits == 32);
  CHECK(counter_scale(kPort, "PortXmitData") == 4);
  CHECK(counter_unit(kPort, "PortRcvData") == "bytes");
  CHECK(counter_width(kPort, "", "QP1Dropped").bits == 16);
  // Unknown mlx5 hw counters take the family width (32-bit Q counters that wrap).
  auto w = counter_width(kHw, "mlx5_core", "some_new_q_counter");
  CHECK(w.bits == 32);
  CHECK(w.wraps);
  CHECK(counter_width(kHw, "bnxt_en", "some_new_q_counter").bits == 64);
  CHECK(counter_width(kHw, "mlx5_core", "rdma_rx_bytes").bits == 64);
}

TEST_CASE("rules come from the knowledge base") {
  CHECK(classify_counter(kPort, "link_downed").rule == CounterRule::kAnyGrowth);
  CHECK(classify_counter(kPort, "symbol_error").rule == CounterRule::kPerHour);
  CHECK(classify_counter(kPort, "port_xmit_wait").rule == CounterRule::kInfo);
  CHECK(classify_counter(kPort, "port_xmit_data").rule == CounterRule::kVolume);
  CHECK(classify_counter(kEth, "rx_corrected_bits_phy").rule == CounterRule::kBer);
  CHECK(classify_counter(kEth, "rx_prio3_pause_duration").rule == CounterRule::kPerSecond);
  CHECK(classify_counter(kHw, "np_ecn_marked_roce_packets").rule == CounterRule::kRatio);
  CHECK(classify_counter(kEth, "outbound_pci_stalled_rd").rule == CounterRule::kGauge);
  // Aliases inherit the rule of the name they spell differently.
  CHECK(classify_counter(kHw, "to_retransmits").rule == CounterRule::kPerSecond);
  CHECK(classify_counter(kPort, "LinkDownedCounter").rule == CounterRule::kAnyGrowth);
  CHECK_FALSE(classify_counter(kPort, "symbol_error").source.empty());
}

TEST_CASE("digit runs normalize to '#'") {
  CHECK(normalize_counter_name("rx_prio3_pause") == "rx_prio#_pause");
  CHECK(normalize_counter_name("rx_pfc_xon2xoff_frames_pri15") == "rx_pfc_xon#xoff_frames_pri#");
  CHECK(normalize_counter_name("VL15_dropped") == "VL#_dropped");
  CHECK(normalize_counter_name("tx_bytes") == "tx_bytes");
  CHECK(normalize_counter_name("") == "");
}

TEST_CASE("knowledge table: every row has a meaning, names are unique per family") {
  auto rows = counter_knowledge_table();
  CHECK(rows.size() > 150);
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& r : rows) {
    INFO(r.name);
    CHECK_FALSE(r.meaning.empty());
    CHECK_FALSE(r.family.empty());
    CHECK(seen.insert({r.family, r.name}).second);
    // Aliases point at a name the table also knows (their meaning-level spelling).
    if (!r.canonical.empty()) {
      bool found = false;
      for (const auto& o : rows) found = found || o.name == r.canonical;
      CHECK(found);
    }
  }
  // Every category but "unknown" is used by at least one row; "unknown" by none.
  std::map<CounterCategory, int> used;
  for (const auto& r : rows) used[r.category]++;
  for (auto c : all_counter_categories()) {
    INFO(to_string(c));
    if (c == CounterCategory::kUnknown) CHECK(used[c] == 0);
    else CHECK(used[c] > 0);
  }
}

TEST_CASE("category names round-trip") {
  for (auto c : all_counter_categories()) CHECK(parse_counter_category(to_string(c)) == c);
  CHECK_FALSE(parse_counter_category("bogus").has_value());
  CHECK(std::string(to_string(CounterCategory::kPhyError)) == "phy_error");
}
