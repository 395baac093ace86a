// The interpretation: the fault fixtures of tests/fixtures/counters-faults (each gives its
// finding and no other), one test per symptom rule, and case 019 through the interpretation.
#include <doctest/doctest.h>

#include "tests/support/import_test_util.h"
#include "rules/counter_interpret.h"
#include "probes/counters/sysfs_counters.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {

constexpr auto kPort = CounterGroup::kIbPortCounters;
constexpr auto kHw = CounterGroup::kIbHwCounters;
constexpr auto kEth = CounterGroup::kEthtoolStats;

Counter ctr(const std::string& dev, CounterGroup g, const std::string& name, uint64_t v,
            const std::string& driver = "mlx5_core") {
  return make_counter(dev, g, name, v, driver, "/x/" + name);
}

PortInfo roce_port(const std::string& link_layer = "Ethernet") {
  PortInfo p;
  p.device = "mlx5_0/1";
  p.ibdev = "mlx5_0";
  p.port = 1;
  p.netdev = "ens1f0np0";
  p.is_rdma = true;
  p.link_layer = link_layer;
  p.state = "4: ACTIVE";
  p.phys_state = "5: LinkUp";
  return p;
}

// Builds the input from (device, group, name, before, after) rows over `window_s`.
struct Row {
  const char* device;
  CounterGroup group;
  const char* name;
  uint64_t before, after;
};
InterpretInput window(const std::vector<Row>& rows, double window_s,
                      std::vector<PortInfo> ports = {roce_port()}) {
  Snapshot a, b;
  for (const auto& r : rows) {
    a.samples.push_back(ctr(r.device, r.group, r.name, r.before));
    b.samples.push_back(ctr(r.device, r.group, r.name, r.after));
  }
  InterpretInput in;
  in.ports = std::move(ports);
  in.changes = compute_delta(a, b, window_s).changes;
  in.window_s = window_s;
  return in;
}

// The only finding of `r`, REQUIREd to be alone.
const Finding& only(const CounterInterpretation& r) {
  for (const auto& f : r.findings) INFO(f.code << " " << f.subject << ": " << f.message);
  REQUIRE(r.findings.size() == 1);
  return r.findings[0];
}

constexpr const char* kFaults = "tests/fixtures/counters-faults/";

}  // namespace

TEST_CASE("fixture pause-storm: one pfc_storm (error), nothing else") {
  auto r = interpret_repo_file(CounterImportFormat::kEthtoolS,
                               std::string(kFaults) + "pause-storm.ethtool-s.txt", 10.0);
  const Finding& f = only(r.result);
  CHECK(f.code == "pfc_storm");
  CHECK(f.severity == Severity::kError);
  CHECK(f.layer == Layer::kPhysical);
  CHECK(f.subject == "enp1s0f0");
  bool share = false;
  for (const auto& e : f.evidence)
    if (e.metric.rfind("rx_prio3_pause_duration", 0) == 0) share = std::abs(*e.value - 12.0) < 1e-9;
  CHECK(share);
  REQUIRE(r.result.summaries.size() == 1);
  CHECK(r.result.summaries[0].line == "PFC storm on enp1s0f0 prio 3: paused 12 % of the window");
  CHECK(r.result.unknown_counters > 0);  // ring and channel counters the base does not know
}

TEST_CASE("fixture crc-rising: one phy_degradation (error), nothing else") {
  auto r = interpret_repo_file(CounterImportFormat::kEthtoolS,
                               std::string(kFaults) + "crc-rising.ethtool-s.txt", 60.0);
  const Finding& f = only(r.result);
  CHECK(f.code == "phy_degradation");
  CHECK(f.severity == Severity::kError);
  CHECK(f.evidence.front().metric.rfind("rx_crc_errors_phy", 0) == 0);
  CHECK(*f.evidence.front().value == 40.0);
  // The healthy BER is context, not a reason.
  bool ber = false;
  for (const auto& e : f.evidence)
    if (e.metric.rfind("pre-FEC BER", 0) == 0) ber = *e.value < 1e-8;
  CHECK(ber);
}

TEST_CASE("fixture fec-uncorrectable: one phy_degradation (error), uncorrectable blocks first") {
  auto r = interpret_repo_file(CounterImportFormat::kEthtoolS,
                               std::string(kFaults) + "fec-uncorrectable.ethtool-s.txt", 60.0);
  const Finding& f = only(r.result);
  CHECK(f.code == "phy_degradation");
  CHECK(f.severity == Severity::kError);
  CHECK(f.subject == "enp65s0f0np0");
  CHECK(f.message.find("FEC codewords not correctable") <
        f.message.find("CRC/FCS"));
  bool uncorr = false;
  for (const auto& e : f.evidence)
    if (e.metric.rfind("rx_fec_uncorrectable_blocks", 0) == 0) uncorr = *e.value == 3.0;
  CHECK(uncorr);
}

TEST_CASE("fixture low-rx-power: one optics (warn), nothing else") {
  auto r = interpret_repo_file(CounterImportFormat::kEthtoolM,
                               std::string(kFaults) + "low-rx-power.ethtool-m.txt");
  const Finding& f = only(r.result);
  CHECK(f.code == "optics");
  CHECK(f.severity == Severity::kWarn);
  CHECK(f.subject == "enp1s0f1");
  REQUIRE(f.evidence.size() == 1);  // lane 3; the lane spread it causes is not repeated
  CHECK(f.evidence[0].metric == "RX power lane 3");
  CHECK(*f.evidence[0].value == doctest::Approx(-11.62).epsilon(1e-3));  // from 0.0689 mW
  CHECK(*f.evidence[0].threshold == doctest::Approx(-10.0));
  CHECK(f.message.find("TX") == std::string::npos);  // TX, temperature, voltage are fine
}

TEST_CASE("pfc_storm: storm error events are critical, small shares only pause_frames") {
  auto crit = interpret_counters(window({{"ens1f0np0", kEth, "tx_pause_storm_error_events", 0, 1}}, 10));
  const Finding& f = only(crit);
  CHECK(f.code == "pfc_storm");
  CHECK(f.severity == Severity::kCritical);
  CHECK(f.message.find("stopped honouring pause") != std::string::npos);
  auto small = interpret_counters(window({{"ens1f0np0", kEth, "rx_prio3_pause", 0, 100},
                                          {"ens1f0np0", kEth, "rx_prio3_pause_duration", 0, 5000}},
                                         10));
  const Finding& p = only(small);
  CHECK(p.code == "pause_frames");
  CHECK(p.severity == Severity::kInfo);
  auto warn = interpret_counters(window({{"ens1f0np0", kEth, "tx_prio5_pause_duration", 0, 300000}}, 10));
  CHECK(only(warn).severity == Severity::kWarn);
  CHECK(warn.summaries.at(0).line == "heavy PFC pause on ens1f0np0 prio 5: pausing its peer 3 % of the window");
}

TEST_CASE("congestion: ECN marks against received RoCE packets") {
  auto hot = interpret_counters(window({{"mlx5_0/1", kHw, "np_ecn_marked_roce_packets", 0, 2000},
                                        {"mlx5_0/1", kPort, "port_rcv_packets", 0, 100000}},
                                       10));
  const Finding& f = only(hot);
  CHECK(f.code == "congestion");
  CHECK(f.severity == Severity::kWarn);
  CHECK(f.message.find("2 % of received RoCE packets ECN-marked") != std::string::npos);
  auto mild = interpret_counters(window({{"mlx5_0/1", kHw, "np_ecn_marked_roce_packets", 0, 20},
                                         {"mlx5_0/1", kPort, "port_rcv_packets", 0, 100000}},
                                        10));
  CHECK(only(mild).severity == Severity::kInfo);
}

TEST_CASE("ecn_not_enabled: CNPs ignored") {
  auto r = interpret_counters(window({{"mlx5_0/1", kHw, "rp_cnp_ignored", 0, 5}}, 10));
  const Finding& f = only(r);
  CHECK(f.code == "ecn_not_enabled");
  CHECK(f.severity == Severity::kWarn);
}

TEST_CASE("lossy RoCE needs a RoCE port without PFC on its traffic priority") {
  std::vector<Row> loss = {{"mlx5_0/1", kHw, "local_ack_timeout_err", 0, 9},
                           {"ens1f0np0", kEth, "rx_prio3_packets", 0, 500000},
                           {"ens1f0np0", kEth, "rx_prio3_bytes", 0, 2000000000}};
  CHECK(only(interpret_counters(window(loss, 10))).code == "lossy_roce");
  // PFC counters on priority 3 (even at zero): a lossless class exists; loss is elsewhere.
  auto with_pfc = loss;
  with_pfc.push_back({"ens1f0np0", kEth, "rx_prio3_pause", 0, 0});
  CHECK(only(interpret_counters(window(with_pfc, 10))).code == "rdma_packet_loss");
  // PFC only on another priority than the traffic: still lossy.
  auto wrong_prio = loss;
  wrong_prio.push_back({"ens1f0np0", kEth, "rx_prio4_pause", 0, 0});
  CHECK(only(interpret_counters(window(wrong_prio, 10))).code == "lossy_roce");
  // InfiniBand: no PFC to speak of.
  CHECK(only(interpret_counters(window({{"mlx5_0/1", kHw, "local_ack_timeout_err", 0, 9}}, 10,
                                       {roce_port("InfiniBand")})))
            .code == "rdma_packet_loss");
  // RoCE, but no driver statistics read: PFC unknown, so no "lossy" claim.
  CHECK(only(interpret_counters(window({{"mlx5_0/1", kHw, "local_ack_timeout_err", 0, 9}}, 10)))
            .code == "rdma_packet_loss");
}

TEST_CASE("phy_degradation: pre-FEC BER and one bad lane, one finding") {
  auto ber = [](uint64_t corrected) {
    return interpret_counters(window({{"ens1f0np0", kEth, "rx_corrected_bits_phy", 0, corrected},
                                      {"ens1f0np0", kEth, "rx_bits_phy", 0, 1000000000000ull}},
                                     10));
  };
  CHECK(ber(1000).findings.empty());  // 1e-9: FEC doing its job
  CHECK(only(ber(2000000)).severity == Severity::kWarn);   // 2e-6
  CHECK(only(ber(20000000)).severity == Severity::kError); // 2e-5
  CHECK(only(ber(20000000)).code == "phy_degradation");
  auto lanes = interpret_counters(window({{"ens1f0np0", kEth, "rx_err_lane_0_phy", 0, 100},
                                          {"ens1f0np0", kEth, "rx_err_lane_1_phy", 0, 120},
                                          {"ens1f0np0", kEth, "rx_err_lane_2_phy", 0, 5000},
                                          {"ens1f0np0", kEth, "rx_err_lane_3_phy", 0, 90}},
                                         10));
  const Finding& f = only(lanes);
  CHECK(f.severity == Severity::kWarn);
  CHECK(f.message.find("lane 2") != std::string::npos);
  // Even lanes: nothing.
  CHECK(interpret_counters(window({{"ens1f0np0", kEth, "rx_err_lane_0_phy", 0, 5000},
                                   {"ens1f0np0", kEth, "rx_err_lane_1_phy", 0, 4000}},
                                  10))
            .findings.empty());
}

TEST_CASE("link_flap: the IB and ethtool flap counters of one link are one finding") {
  auto r = interpret_counters(window({{"mlx5_0/1", kPort, "link_downed", 0, 1},
                                      {"ens1f0np0", kEth, "link_down_events_phy", 3, 4},
                                      {"ens1f0np0", CounterGroup::kNetdevStats, "carrier_changes", 10, 12}},
                                     60));
  const Finding& f = only(r);
  CHECK(f.code == "link_flap");
  CHECK(f.severity == Severity::kCritical);
  CHECK(f.subject == "mlx5_0/1");
  CHECK(f.evidence.size() == 3);
}

TEST_CASE("rx_starvation: RQ and NIC buffer drops are one finding") {
  auto r = interpret_counters(window({{"mlx5_0/1", kHw, "out_of_buffer", 0, 100},
                                      {"ens1f0np0", kEth, "rx_discards_phy", 0, 40},
                                      {"ens1f0np0", kEth, "rx_out_of_buffer", 0, 7}},
                                     10));
  const Finding& f = only(r);
  CHECK(f.code == "rx_starvation");
  CHECK(f.severity == Severity::kWarn);
  CHECK(f.layer == Layer::kTransport);
  CHECK(f.evidence.size() == 3);
}

TEST_CASE("optics from the snapshot's modules, judged once, unknown counters are counted, never judged") {
  InterpretInput in = window({{"ens1f0np0", kEth, "vendor_magic_errors", 0, 50}}, 10);
  ModuleDiagnostics m;
  m.netdev = "ens1f0np0";
  m.lane(1).rx_power_mw = dbm_to_mw(-14.0);
  m.rx_power_limits_mw.low_warning = dbm_to_mw(-12.0);
  in.optics.push_back(m);
  auto r = interpret_counters(in);
  const Finding& f = only(r);
  CHECK(f.code == "optics");
  CHECK(f.subject == "ens1f0np0");
  REQUIRE(r.summaries.size() == 2);
  CHECK(r.summaries[1].subject == "optics ens1f0np0");
  CHECK_FALSE(r.summaries[1].healthy);
  CHECK(r.unknown_counters == 1);
  CHECK(r.unknown_names == std::vector<std::string>{"vendor_magic_errors"});
  CHECK(in.changes[0].counter.category == CounterCategory::kUnknown);
}

TEST_CASE("case 019 through the interpretation: the same two transport findings") {
  FsRoot fs(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/case019", "/proc");
  Snapshot s = read_counter_snapshot(fs, {});
  InterpretInput in{s.ports, snapshot_readings(s), std::nullopt, {}};
  auto r = interpret_counters(in);
  REQUIRE(r.findings.size() == 2);
  CHECK(finding(r, "rdma_packet_loss", "mlx5_0/1"));  // InfiniBand: never "lossy RoCE"
  CHECK(finding(r, "rdma_cqe_errors", "mlx5_0/1"));
  for (const auto& f : r.findings) {
    CHECK(f.layer == Layer::kTransport);
    CHECK(f.severity == Severity::kWarn);
  }
  for (const auto& sm : r.summaries)
    CHECK(sm.healthy == (sm.subject.rfind("mlx5_0/1", 0) != 0));
}
