#include <doctest/doctest.h>

#include "rules/counter_rules.h"
#include "probes/counters/sysfs_counters.h"

using namespace fabdiag;

namespace {

Counter ctr(const std::string& device, CounterGroup g, const std::string& name, uint64_t raw,
            const std::string& driver = "mlx5_core") {
  return make_counter(device, g, name, raw, driver, "/sys/x/" + name);
}

// Findings for one counter moving from `before` to `after` over `window_s`.
std::vector<Finding> moved(CounterGroup g, const std::string& name, uint64_t before, uint64_t after,
                           double window_s = 10, const std::string& driver = "mlx5_core") {
  Snapshot a, b;
  a.samples = {ctr("mlx5_0/1", g, name, before, driver)};
  b.samples = {ctr("mlx5_0/1", g, name, after, driver)};
  return counter_findings(compute_delta(a, b, window_s).changes, window_s);
}

// Findings for one cumulative value of a single snapshot.
std::vector<Finding> cumulative(CounterGroup g, const std::string& name, uint64_t value,
                                const std::string& driver = "mlx5_core") {
  Snapshot s;
  s.samples = {ctr("mlx5_0/1", g, name, value, driver)};
  return counter_findings(snapshot_readings(s), std::nullopt);
}

constexpr auto kPort = CounterGroup::kIbPortCounters;
constexpr auto kHw = CounterGroup::kIbHwCounters;
constexpr auto kEth = CounterGroup::kEthtoolStats;

const Finding* with_code(const std::vector<Finding>& fs, const std::string& code) {
  for (const auto& f : fs)
    if (f.code == code) return &f;
  return nullptr;
}

PortInfo rdma_port(const std::string& state, const std::string& phys, const std::string& rate,
                   const std::string& ll = "InfiniBand") {
  PortInfo p;
  p.device = "mlx5_11/1";
  p.ibdev = "mlx5_11";
  p.port = 1;
  p.is_rdma = true;
  p.state = state;
  p.phys_state = phys;
  p.rate = rate;
  p.link_layer = ll;
  p.sysfs_dir = "/sys/class/infiniband/mlx5_11/ports/1";
  return p;
}

}  // namespace

TEST_CASE("link_downed: any growth is critical L4, none without growth") {
  auto fs = moved(kPort, "link_downed", 0, 1);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "link_down");
  CHECK(fs[0].severity == Severity::kCritical);
  CHECK(fs[0].layer == Layer::kPhysical);
  CHECK(fs[0].subject == "mlx5_0/1");
  REQUIRE(fs[0].evidence.size() == 1);
  CHECK(*fs[0].evidence[0].value == 1.0);
  CHECK(fs[0].evidence[0].source == "/sys/x/link_downed");
  CHECK(fs[0].evidence[0].threshold_text.find("docs/thresholds.md#link-flaps") != std::string::npos);
  CHECK(fs[0].message.find("10 s") != std::string::npos);
  CHECK(moved(kPort, "link_downed", 3, 3).empty());
  // The ethtool flap counter follows the same rule.
  auto e = moved(kEth, "link_down_events_phy", 2, 3);
  REQUIRE(e.size() == 1);
  CHECK(e[0].severity == Severity::kCritical);
  // Cumulative: any link-down since the counters were cleared is a warn (a flap or a peer
  // reboot; case 018 has 2..9 per switch port), never critical without a window.
  CHECK(cumulative(kPort, "link_downed", 0).empty());
  auto c = cumulative(kPort, "link_downed", 2);
  REQUIRE(c.size() == 1);
  CHECK(c[0].severity == Severity::kWarn);
  CHECK(c[0].message.find("no rate") != std::string::npos);
}

TEST_CASE("symbol_error: growth warns, >= 10/h with >= 2 events is an error") {
  auto one_in_hour = moved(kPort, "symbol_error", 0, 1, 3600);
  REQUIRE(one_in_hour.size() == 1);
  CHECK(one_in_hour[0].severity == Severity::kWarn);
  CHECK(one_in_hour[0].code == "symbol_errors");
  // One event in 10 s is not extrapolated into 360/h.
  CHECK(moved(kPort, "symbol_error", 0, 1, 10)[0].severity == Severity::kWarn);
  CHECK(moved(kPort, "symbol_error", 2, 7, 10)[0].severity == Severity::kError);
  CHECK(moved(kPort, "symbol_error", 0, 9, 3600)[0].severity == Severity::kWarn);
  CHECK(moved(kPort, "symbol_error", 0, 10, 3600)[0].severity == Severity::kError);
  CHECK(moved(kPort, "symbol_error", 5, 5).empty());
  CHECK(cumulative(kPort, "symbol_error", 9).empty());
  CHECK(cumulative(kPort, "symbol_error", 10)[0].severity == Severity::kWarn);
}

TEST_CASE("link_error_recovery: warn, error at 3 in the window") {
  CHECK(moved(kPort, "link_error_recovery", 0, 1)[0].severity == Severity::kWarn);
  CHECK(moved(kPort, "link_error_recovery", 0, 3)[0].severity == Severity::kError);
}

TEST_CASE("port_rcv_errors and port_xmit_discards") {
  auto r = moved(kPort, "port_rcv_errors", 0, 1, 3600);
  REQUIRE(r.size() == 1);
  CHECK(r[0].severity == Severity::kWarn);
  CHECK(r[0].layer == Layer::kPhysical);
  CHECK(moved(kPort, "port_rcv_errors", 0, 20, 3600)[0].severity == Severity::kError);
  auto d = moved(kPort, "port_xmit_discards", 0, 50, 3600);
  REQUIRE(d.size() == 1);
  CHECK(d[0].severity == Severity::kInfo);
  CHECK(d[0].layer == Layer::kTransport);
  CHECK(moved(kPort, "port_xmit_discards", 0, 200, 3600)[0].severity == Severity::kWarn);
  CHECK(cumulative(kPort, "port_xmit_discards", 99).empty());
  CHECK(cumulative(kPort, "port_xmit_discards", 100)[0].severity == Severity::kWarn);
}

TEST_CASE("port_xmit_wait alone is never more than info, and nothing on a snapshot") {
  auto w = moved(kPort, "port_xmit_wait", 0, 4000000000ull, 1);
  REQUIRE(w.size() == 1);
  CHECK(w[0].severity == Severity::kInfo);
  CHECK(cumulative(kPort, "port_xmit_wait", 3599).empty());
  CHECK(cumulative(kPort, "port_xmit_wait", 22730501).empty());
  // Even saturated it is info.
  auto s = cumulative(kPort, "port_xmit_wait", 4294967295ull);
  REQUIRE(s.size() == 1);
  CHECK(s[0].code == "counter_saturated");
  CHECK(s[0].severity == Severity::kInfo);
}

TEST_CASE("loss set: one L3 warn per port with evidence per counter") {
  Snapshot a, b;
  for (auto* n : {"local_ack_timeout_err", "out_of_sequence", "packet_seq_err", "rnr_nak_retry_err"})
    a.samples.push_back(ctr("mlx5_0/1", kHw, n, 0));
  b.samples = {ctr("mlx5_0/1", kHw, "local_ack_timeout_err", 4), ctr("mlx5_0/1", kHw, "out_of_sequence", 2),
               ctr("mlx5_0/1", kHw, "packet_seq_err", 0), ctr("mlx5_0/1", kHw, "rnr_nak_retry_err", 0)};
  auto fs = counter_findings(compute_delta(a, b, 60).changes, 60.0);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "rdma_packet_loss");
  CHECK(fs[0].severity == Severity::kWarn);
  CHECK(fs[0].layer == Layer::kTransport);
  CHECK(fs[0].evidence.size() == 2);
  CHECK(fs[0].message.find("local_ack_timeout_err +4") != std::string::npos);
  CHECK(fs[0].message.find("out_of_sequence +2") != std::string::npos);
  // bnxt_re's old name is the same counter.
  auto bn = moved(kHw, "to_retransmits", 0, 3, 10, "bnxt_en");
  REQUIRE(bn.size() == 1);
  CHECK(bn[0].code == "rdma_packet_loss");
  // Cumulative: >= 10 warns.
  CHECK(cumulative(kHw, "local_ack_timeout_err", 9).empty());
  CHECK(cumulative(kHw, "local_ack_timeout_err", 2705)[0].severity == Severity::kWarn);
}

TEST_CASE("fatal QP errors and CQE errors") {
  auto f = moved(kHw, "req_transport_retries_exceeded", 0, 1);
  REQUIRE(f.size() == 1);
  CHECK(f[0].code == "rdma_qp_fatal");
  CHECK(f[0].severity == Severity::kCritical);
  CHECK(cumulative(kHw, "req_transport_retries_exceeded", 1)[0].severity == Severity::kWarn);
  auto c = moved(kHw, "req_cqe_error", 10, 12);
  REQUIRE(c.size() == 1);
  CHECK(c[0].code == "rdma_cqe_errors");
  CHECK(c[0].severity == Severity::kError);
  CHECK(cumulative(kHw, "resp_cqe_error", 9).empty());
  CHECK(cumulative(kHw, "resp_cqe_error", 8109)[0].severity == Severity::kWarn);
}

TEST_CASE("rp_cnp_ignored: ECN not enabled (warn), mlx5 and irdma spelling") {
  auto m = moved(kHw, "rp_cnp_ignored", 0, 5);
  REQUIRE(m.size() == 1);
  CHECK(m[0].code == "ecn_not_enabled");
  CHECK(m[0].severity == Severity::kWarn);
  CHECK(cumulative(kHw, "rp_cnp_ignored", 0).empty());
  CHECK(cumulative(kHw, "rp_cnp_ignored", 1)[0].code == "ecn_not_enabled");
  CHECK(cumulative(kHw, "cnpIgnored", 3, "irdma")[0].code == "ecn_not_enabled");
}

TEST_CASE("congestion and pause frames are info, a pause storm is critical") {
  auto c = moved(kHw, "np_ecn_marked_roce_packets", 0, 1000);
  REQUIRE(c.size() == 1);
  CHECK(c[0].code == "congestion");
  CHECK(c[0].severity == Severity::kInfo);
  CHECK(cumulative(kHw, "np_cnp_sent", 1333).empty());
  auto p = moved(kEth, "rx_prio3_pause", 0, 60000);
  REQUIRE(p.size() == 1);
  CHECK(p[0].code == "pause_frames");
  CHECK(p[0].severity == Severity::kInfo);
  auto s = moved(kEth, "tx_pause_storm_error_events", 0, 1);
  REQUIRE(s.size() == 1);
  CHECK(s[0].severity == Severity::kCritical);
  CHECK(moved(kEth, "tx_pause_storm_warning_events", 0, 1)[0].severity == Severity::kWarn);
}

TEST_CASE("paused fraction from pause durations (microseconds)") {
  // 300 ms paused in 10 s = 3 %: warn.
  auto w = moved(kEth, "rx_prio3_pause_duration", 50000, 350000, 10);
  const Finding* f = with_code(w, "paused_fraction");
  REQUIRE(f);
  CHECK(f->severity == Severity::kWarn);
  CHECK(*f->evidence[0].value == doctest::Approx(3.0));
  CHECK(f->evidence[0].unit == "%");
  // 600 ms in 10 s = 6 %: error. 50 ms = 0.5 %: nothing.
  CHECK(with_code(moved(kEth, "rx_prio3_pause_duration", 0, 600000, 10), "paused_fraction")->severity ==
        Severity::kError);
  CHECK_FALSE(with_code(moved(kEth, "rx_prio3_pause_duration", 0, 50000, 10), "paused_fraction"));
  CHECK(with_code(moved(kEth, "pfc_pri3_rx_duration_us", 0, 200000, 10, "bnxt_en"), "paused_fraction"));
  // No fraction without a window.
  CHECK(cumulative(kEth, "rx_prio3_pause_duration", 9999999).empty());
}

TEST_CASE("physical errors in ethtool and netdev counters") {
  auto e = moved(kEth, "rx_crc_errors_phy", 0, 1, 3600);
  REQUIRE(e.size() == 1);
  CHECK(e[0].code == "phy_errors");
  CHECK(e[0].severity == Severity::kWarn);
  CHECK(moved(kEth, "rx_crc_errors_phy", 0, 4, 10)[0].severity == Severity::kError);
  CHECK(moved(CounterGroup::kNetdevStats, "rx_crc_errors", 0, 1, 60)[0].code == "phy_errors");
  CHECK(moved(kHw, "rx_icrc_encapsulated", 0, 1, 60)[0].code == "phy_errors");
  // No cumulative rule: a lifetime CRC count has no time base.
  CHECK(cumulative(kEth, "rx_crc_errors_phy", 500).empty());
}

TEST_CASE("receive starvation: NIC buffer, RDMA RQ and netdev RQ drops warn when they grow") {
  CHECK(moved(kEth, "rx_discards_phy", 0, 5)[0].code == "nic_rx_discards");
  auto rq = moved(kHw, "out_of_buffer", 0, 7);
  REQUIRE(rq.size() == 1);
  CHECK(rq[0].code == "rdma_rq_empty");
  CHECK(rq[0].severity == Severity::kWarn);
  CHECK(moved(kEth, "rx_out_of_buffer", 0, 9)[0].code == "netdev_rq_empty");
  CHECK(cumulative(kEth, "rx_out_of_buffer", 1000).empty());  // lifetime drops: no time base
}

TEST_CASE("uncorrectable FEC blocks: any growth is an error") {
  auto f = moved(kEth, "rx_fec_uncorrectable_blocks", 10, 11, 60, "bnxt_en");
  REQUIRE(f.size() == 1);
  CHECK(f[0].code == "fec_uncorrectable");
  CHECK(f[0].severity == Severity::kError);
  CHECK(moved(kEth, "rx_fec_corrected_blocks", 0, 100000, 60, "bnxt_en").empty());
}

TEST_CASE("deltas without a known window: growth rules fire, rates and per-hour escalations do not") {
  Snapshot a, b;
  a.samples = {ctr("mlx5_0/1", kPort, "symbol_error", 0), ctr("mlx5_0/1", kHw, "local_ack_timeout_err", 0)};
  b.samples = {ctr("mlx5_0/1", kPort, "symbol_error", 50), ctr("mlx5_0/1", kHw, "local_ack_timeout_err", 3)};
  auto changes = compute_delta(a, b, 0).changes;
  for (const auto& ch : changes) CHECK_FALSE(ch.rate_per_s.has_value());
  auto fs = counter_findings(changes, std::nullopt);
  const Finding* se = with_code(fs, "symbol_errors");
  REQUIRE(se);
  CHECK(se->severity == Severity::kWarn);  // 50 in an unknown time: no per-hour escalation
  CHECK(se->message.find("time between them unknown") != std::string::npos);
  CHECK(se->evidence[0].value_text.empty());
  CHECK(with_code(fs, "rdma_packet_loss"));
}

TEST_CASE("a mix of deltas and single readings is judged per counter") {
  Snapshot a, b;
  a.samples = {ctr("enp1", kEth, "rx_crc_errors_phy", 0)};
  b.samples = {ctr("enp1", kEth, "rx_crc_errors_phy", 1)};
  auto changes = compute_delta(a, b, 60).changes;
  Snapshot hw;
  hw.samples = {ctr("mlx5_0/1", kHw, "local_ack_timeout_err", 2705)};
  for (auto& r : snapshot_readings(hw)) changes.push_back(r);
  auto fs = counter_findings(changes, 60.0);
  REQUIRE(fs.size() == 2);
  const Finding* loss = with_code(fs, "rdma_packet_loss");
  REQUIRE(loss);
  CHECK(loss->message.find("since the counters were last reset") != std::string::npos);
  CHECK(*loss->evidence[0].value == 2705.0);
  const Finding* phy = with_code(fs, "phy_errors");
  REQUIRE(phy);
  CHECK(phy->message.find("in 60 s") != std::string::npos);
}

TEST_CASE("knowledge-base fallback: an error counter no rule names warns when it grows") {
  auto f = moved(kEth, "rx_oversize_pkts_phy", 0, 3);
  REQUIRE(f.size() == 1);
  CHECK(f[0].code == "packet_drops");
  CHECK(f[0].severity == Severity::kWarn);
  CHECK(f[0].evidence[0].threshold_text.find("knowledge base rule any_growth") != std::string::npos);
  CHECK(moved(kEth, "rx_fragments_phy", 0, 3)[0].code == "phy_errors");
  CHECK(moved(kEth, "module_unplug", 0, 1)[0].code == "link_events");
  // Info rules and unknown counters never fall back.
  CHECK(moved(kPort, "VL15_dropped", 0, 500).empty());
  CHECK(moved(kEth, "vendor_crc_thing", 0, 5).empty());
  CHECK(cumulative(kEth, "rx_oversize_pkts_phy", 5).empty());
}

TEST_CASE("traffic and unknown counters never give findings") {
  CHECK(moved(kPort, "port_xmit_data", 0, 1000000).empty());
  CHECK(moved(kEth, "tx_kicks", 0, 1000).empty());
  CHECK(cumulative(kPort, "port_rcv_data", 1ull << 40).empty());
}

TEST_CASE("saturated error counter: warn, at least N") {
  auto fs = cumulative(kPort, "symbol_error", 65535);
  const Finding* sat = with_code(fs, "counter_saturated");
  REQUIRE(sat);
  CHECK(sat->severity == Severity::kWarn);
  REQUIRE(sat->evidence.size() == 1);
  CHECK(sat->evidence[0].at_least);
  CHECK(*sat->evidence[0].value == 65535.0);
  CHECK(sat->message.find(">= 65535") != std::string::npos);
  // The cumulative rule fires too, and its evidence says "at least".
  const Finding* se = with_code(fs, "symbol_errors");
  REQUIRE(se);
  CHECK(se->evidence[0].at_least);
  // Growth into saturation: delta is a lower bound.
  auto g = moved(kPort, "local_link_integrity_errors", 14, 15);
  const Finding* li = with_code(g, "link_integrity_errors");
  REQUIRE(li);
  CHECK(li->evidence[0].at_least);
  CHECK(with_code(g, "counter_saturated"));
}

TEST_CASE("appeared, vanished and reset counters are info findings") {
  Snapshot a, b;
  a.samples = {ctr("mlx5_0/1", kHw, "rx_dct_connect", 1), ctr("mlx5_0/1", kHw, "np_cnp_sent", 500)};
  b.samples = {ctr("mlx5_0/1", kHw, "roce_slow_restart", 0), ctr("mlx5_0/1", kHw, "np_cnp_sent", 2)};
  auto fs = counter_findings(compute_delta(a, b, 10).changes, 10.0);
  const Finding* set = with_code(fs, "counter_set_changed");
  REQUIRE(set);
  CHECK(set->severity == Severity::kInfo);
  CHECK(set->message.find("appeared: roce_slow_restart") != std::string::npos);
  CHECK(set->message.find("vanished: rx_dct_connect") != std::string::npos);
  const Finding* reset = with_code(fs, "counter_reset");
  REQUIRE(reset);
  CHECK(reset->message.find("np_cnp_sent") != std::string::npos);
  CHECK(fs.size() == 2);
}

TEST_CASE("port state: DOWN/Polling is an L4 error and the rate is not a speed") {
  auto fs = port_state_findings(rdma_port("1: DOWN", "2: Polling", "40 Gb/sec (4X QDR)", "Ethernet"));
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "port_down");
  CHECK(fs[0].severity == Severity::kError);
  CHECK(fs[0].layer == Layer::kPhysical);
  CHECK(fs[0].message.find("Polling") != std::string::npos);
  CHECK(fs[0].action.find("cable") != std::string::npos);
  bool rate_seen = false;
  for (const auto& e : fs[0].evidence)
    if (e.metric == "rate") {
      rate_seen = true;
      CHECK(e.value_text == "40 Gb/sec (4X QDR)");
      CHECK(e.threshold_text.find("not a link speed") != std::string::npos);
      CHECK(e.source == "/sys/class/infiniband/mlx5_11/ports/1/rate");
    }
  CHECK(rate_seen);
  auto dis = port_state_findings(rdma_port("1: DOWN", "3: Disabled", "40 Gb/sec (4X QDR)"));
  REQUIRE(dis.size() == 1);
  CHECK(dis[0].message.find("Disabled") != std::string::npos);
}

TEST_CASE("port state: INIT on InfiniBand = no subnet manager, healthy and odd values") {
  auto init = port_state_findings(rdma_port("2: INIT", "5: LinkUp", "200 Gb/sec (4X HDR)"));
  REQUIRE(init.size() == 1);
  CHECK(init[0].code == "port_not_active");
  CHECK(init[0].severity == Severity::kWarn);
  CHECK(init[0].message.find("subnet manager") != std::string::npos);
  CHECK(port_state_findings(rdma_port("4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)")).empty());
  // Non-standard phys_state (case 019): no finding, no crash.
  CHECK(port_state_findings(rdma_port("4: ACTIVE", "4: ACTIVE", "25 Gb/sec (1X EDR)")).empty());
  // A narrow rate is never judged without an expected inventory.
  CHECK(port_state_findings(rdma_port("4: ACTIVE", "5: LinkUp", "100 Gb/sec (2X HDR)")).empty());
  auto rec = port_state_findings(rdma_port("4: ACTIVE", "6: LinkErrorRecovery", "400 Gb/sec (4X NDR)"));
  REQUIRE(rec.size() == 1);
  CHECK(rec[0].code == "phys_state_not_linkup");
  CHECK(port_state_findings(rdma_port("", "", "")).empty());
  CHECK(port_state_findings(rdma_port("garbage", "more garbage", "x")).empty());
  PortInfo nd;
  nd.device = "eth0";
  nd.state = "down";
  CHECK(port_state_findings(nd).empty());
}

TEST_CASE("phys_state helpers") {
  CHECK(phys_state_is_ibta("5: LinkUp"));
  CHECK(phys_state_is_ibta("7: Phy Test"));
  CHECK(phys_state_is_ibta("4: PortConfigurationTraining"));
  CHECK_FALSE(phys_state_is_ibta("4: ACTIVE"));
  CHECK_FALSE(phys_state_is_ibta("9: LinkUp"));
  CHECK_FALSE(phys_state_is_ibta(""));
  CHECK(phys_state_is_down("2: Polling"));
  CHECK_FALSE(phys_state_is_down("5: LinkUp"));
  CHECK_FALSE(phys_state_is_down("4: ACTIVE"));
}

TEST_CASE("evaluate_counter_rules: port findings first, then counters") {
  std::vector<PortInfo> ports = {rdma_port("1: DOWN", "2: Polling", "40 Gb/sec (4X QDR)")};
  Snapshot s;
  s.samples = {ctr("mlx5_11/1", kHw, "req_cqe_error", 20)};
  auto fs = evaluate_counter_rules(ports, snapshot_readings(s), std::nullopt);
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].code == "port_down");
  CHECK(fs[1].code == "rdma_cqe_errors");
}
