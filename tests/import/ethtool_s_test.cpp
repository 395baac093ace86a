// ethtool -S import: case 022 (shared/cases/022-ethtool-prio-roce-no-pfc) and the text forms.
#include <doctest/doctest.h>

#include <set>

#include "tests/support/import_test_util.h"
#include "import/ethtool_s.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kCase022 = "tests/fixtures/cases/022-ethtool-prio-roce-no-pfc.input.txt";
constexpr const char* kNd = "enp178s0f0";
}  // namespace

TEST_CASE("case 022: snapshots, deltas on priority 0, the cut snapshot, hw_counters") {
  auto imp = import_repo_file(CounterImportFormat::kEthtoolS, kCase022);
  // Two series: the netdev's three ethtool sections, and the hw_counters lines.
  REQUIRE(imp.series.size() == 2);
  REQUIRE(imp.series[0].size() == 3);
  REQUIRE(imp.series[1].size() == 1);
  const Snapshot& before = imp.series[0][0];
  const Snapshot& after = imp.series[0][1];
  const Snapshot& later = imp.series[0][2];
  CHECK(before.samples.size() == 32);  // rx/tx_prioN_bytes/packets, N = 0..7
  CHECK(after.samples.size() == 19);   // cut after tx_prio4_bytes
  CHECK(after.truncated);
  CHECK_FALSE(later.truncated);
  for (const auto* s : {&before, &after, &later})
    for (const auto& c : s->samples) {
      CHECK(c.name.find("pause") == std::string::npos);  // no PFC counters at all
      CHECK(c.device == kNd);
    }
  auto value_of = [](const Snapshot& s, const std::string& n) {
    for (const auto& c : s.samples)
      if (c.name == n) return c.value;
    FAIL("no " << n);
    return uint64_t{0};
  };
  CHECK(value_of(later, "rx_prio0_bytes") == 88178050405854ull);
  CHECK(value_of(later, "tx_prio0_bytes") == 14056302074308ull);
  // The cut is reported as a gap naming where the capture ends.
  bool cut_gap = false;
  for (const auto& g : imp.gaps)
    cut_gap = cut_gap || (g.code == ErrorCode::kParse && g.message.find("after tx_prio4_bytes") != std::string::npos &&
                          g.message.find("13 counter(s)") != std::string::npos);
  CHECK(cut_gap);

  auto c = combine_imports({imp}, std::nullopt);
  const InterpretInput& in = c.input;
  CHECK_FALSE(in.window_s.has_value());
  CHECK(*change(in, kNd, "rx_prio0_bytes")->delta == 136571931490ull);
  CHECK(*change(in, kNd, "rx_prio0_packets")->delta == 126736411ull);
  CHECK(*change(in, kNd, "tx_prio0_bytes")->delta == 136566416532ull);
  CHECK(*change(in, kNd, "tx_prio0_packets")->delta == 126724196ull);
  for (int p = 1; p <= 4; ++p)
    for (const char* k : {"rx_prio%d_bytes", "rx_prio%d_packets", "tx_prio%d_bytes"}) {
      char name[32];
      std::snprintf(name, sizeof name, k, p);
      INFO(name);
      CHECK(change(in, kNd, name)->counter.value == 0);
      CHECK(*change(in, kNd, name)->delta == 0);
    }
  // The counters missing from the cut snapshot are unknown: no delta, not zero, not a reset.
  std::set<std::string> missing;
  for (const auto& ch : in.changes)
    if (ch.status == DeltaStatus::kMissing) {
      CHECK_FALSE(ch.delta.has_value());
      missing.insert(ch.counter.name);
    }
  CHECK(missing.size() == 13);
  CHECK(missing.count("tx_prio4_packets"));
  CHECK(missing.count("rx_prio7_bytes"));
  for (const auto& ch : in.changes) {
    CHECK(ch.status != DeltaStatus::kReset);
    CHECK(ch.status != DeltaStatus::kVanished);
  }
  // hw_counters: cumulative readings (lifespan is not a counter).
  const CounterChange* ack = change(in, "mlx5_0/1", "local_ack_timeout_err");
  REQUIRE(ack);
  CHECK(ack->counter.value == 2705);
  CHECK(ack->status == DeltaStatus::kSnapshot);
  CHECK(change(in, "mlx5_0/1", "np_cnp_sent")->counter.value == 1333);
  CHECK(change(in, "mlx5_0/1", "np_ecn_marked_roce_packets")->counter.value == 0);
  CHECK(change(in, "mlx5_0/1", "duplicate_request")->counter.value == 0);
  CHECK(change(in, "mlx5_0/1", "implied_nak_seq_err")->counter.value == 0);
  CHECK_FALSE(change(in, "mlx5_0/1", "lifespan"));
  // The lone RDMA port is paired with the lone netdev.
  bool paired = false;
  for (const auto& p : in.ports) paired = paired || (p.device == "mlx5_0/1" && p.netdev == kNd);
  CHECK(paired);
}

TEST_CASE("case 022 verdict: lossy RoCE on priority 0, ~1078-byte frames, no storm, no rates") {
  for (std::optional<double> window : {std::optional<double>(), std::optional<double>(60.0)}) {
    auto r = interpret_repo_file(CounterImportFormat::kEthtoolS, kCase022, window);
    auto ps = problems(r.result);
    REQUIRE(ps.size() == 1);
    const Finding& f = *ps[0];
    CHECK(f.code == "lossy_roce");
    CHECK(f.severity == Severity::kWarn);
    CHECK(f.layer == Layer::kTransport);
    CHECK(f.subject == "mlx5_0/1");
    CHECK(f.message.find("no PFC") != std::string::npos);
    CHECK(f.message.find("priority 0") != std::string::npos);
    bool acks = false, frame = false, pfc = false;
    for (const auto& e : f.evidence) {
      if (e.metric.rfind("local_ack_timeout_err", 0) == 0) acks = *e.value == 2705.0;
      if (e.metric.rfind("average frame on priority 0", 0) == 0) frame = std::abs(*e.value - 1078) < 1;
      if (e.metric.rfind("per-priority pause (PFC) counters", 0) == 0) pfc = e.value_text == "none";
    }
    CHECK(acks);
    CHECK(frame);
    CHECK(pfc);
    CHECK(f.action.find("PFC") != std::string::npos);
    CHECK(f.action.find("MTU") != std::string::npos);
    // No pause storm (there are no pause counters at all), no other finding of any kind.
    CHECK_FALSE(finding(r.result, "pfc_storm"));
    CHECK_FALSE(finding(r.result, "pause_frames"));
    CHECK(r.result.findings.size() == 1);
    // The cumulative hw_counters are never presented as rates.
    for (const auto& ch : r.combined.input.changes)
      if (ch.counter.device == "mlx5_0/1") CHECK_FALSE(ch.rate_per_s.has_value());
    REQUIRE(r.result.summaries.size() == 1);
    CHECK(r.result.summaries[0].line.find("2705 ack timeouts") != std::string::npos);
  }
}

TEST_CASE("ethtool -S text: header, comments, the netdev name, bad lines") {
  auto one = import_ethtool_s("NIC statistics:\n     rx_packets: 10\n     tx_bytes: 20\n", "f", "eth3");
  REQUIRE(one.ok());
  REQUIRE(one->series.size() == 1);
  REQUIRE(one->series[0].size() == 1);
  CHECK(one->series[0][0].samples.size() == 2);
  CHECK(one->series[0][0].samples[0].device == "eth3");
  CHECK(one->series[0][0].samples[0].group == CounterGroup::kEthtoolStats);
  CHECK(one->notes.empty());
  auto unnamed = import_ethtool_s("rx_packets: 10\n", "f", "");
  REQUIRE(unnamed.ok());
  CHECK(unnamed->series[0][0].samples[0].device == "netdev");
  CHECK(unnamed->notes.size() == 1);
  auto titled = import_ethtool_s("# a comment\n### ethtool -S ens5 (before)\nrx_packets: 1\n"
                                 "### ethtool -S ens5 (after)\nrx_packets: 9\nnot a counter line\n",
                                 "f", "ignored");
  REQUIRE(titled.ok());
  REQUIRE(titled->series[0].size() == 2);
  CHECK(titled->series[0][1].samples[0].device == "ens5");
  REQUIRE(titled->gaps.size() == 1);
  CHECK(titled->gaps[0].message.find("lines 6)") != std::string::npos);
  auto empty = import_ethtool_s("nothing here\n", "f", "");
  CHECK_FALSE(empty.ok());
}

TEST_CASE("ethtool -S: a whole last line without its newline is read, a cut one is a gap naming file:line") {
  auto whole = import_ethtool_s(std::string_view("NIC statistics:\n     rx_packets: 100\n     rx_crc_errors: 5"), "w.txt", "eth0");
  REQUIRE(whole.ok());
  CHECK(whole->gaps.empty());
  REQUIRE(whole->series.size() == 1);
  CHECK(whole->series[0][0].samples.size() == 2);
  auto cut = import_ethtool_s(std::string_view("NIC statistics:\n     rx_packets: 100\n     rx_crc_err"), "c.txt", "eth0");
  REQUIRE(cut.ok());
  REQUIRE(cut->gaps.size() == 1);
  CHECK(cut->gaps[0].source == "c.txt:3");
  CHECK(cut->gaps[0].message.find("ends without a newline") != std::string::npos);
  CHECK(cut->gaps[0].message.find("\"rx_crc_err\"") != std::string::npos);
  CHECK(cut->series[0][0].samples.size() == 1);
}
