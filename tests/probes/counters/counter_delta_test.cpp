#include <doctest/doctest.h>

#include <limits>

#include <nlohmann/json.hpp>

#include "probes/counters/counter_delta.h"
#include "probes/counters/sysfs_counters.h"

using namespace fabdiag;

namespace {

Counter port_counter(const std::string& name, uint64_t raw, bool ext = true) {
  return make_counter("mlx5_0/1", CounterGroup::kIbPortCounters, name, raw, "mlx5_core", "src", ext);
}
Counter hw_counter(const std::string& name, uint64_t raw) {
  return make_counter("mlx5_0/1", CounterGroup::kIbHwCounters, name, raw, "mlx5_core", "src");
}
Counter net_counter(const std::string& name, uint64_t raw) {
  return make_counter("eth0", CounterGroup::kNetdevStats, name, raw, "virtio_net", "src");
}

const CounterChange& one(const Counter& before, const Counter& after, double window = 10) {
  static SnapshotDelta d;
  Snapshot a, b;
  a.samples = {before};
  b.samples = {after};
  d = compute_delta(a, b, window);
  REQUIRE(d.changes.size() == 1);
  return d.changes[0];
}

}  // namespace

TEST_CASE("plain delta and per-second rate") {
  const auto& c = one(net_counter("rx_bytes", 1000), net_counter("rx_bytes", 6000), 10);
  CHECK(c.status == DeltaStatus::kOk);
  REQUIRE(c.delta);
  CHECK(*c.delta == 5000);
  REQUIRE(c.rate_per_s);
  CHECK(*c.rate_per_s == doctest::Approx(500.0));
  CHECK_FALSE(c.at_least);
  CHECK(is_interesting(c));
  const auto& z = one(net_counter("rx_bytes", 7), net_counter("rx_bytes", 7));
  CHECK(*z.delta == 0);
  CHECK(*z.rate_per_s == 0.0);
  CHECK_FALSE(is_interesting(z));
}

TEST_CASE("4-octet IB data counters: delta in bytes") {
  const auto& c = one(port_counter("port_xmit_data", 1000), port_counter("port_xmit_data", 1010), 2);
  CHECK(*c.delta == 40);
  CHECK(*c.rate_per_s == doctest::Approx(20.0));
  CHECK(c.counter.unit == "bytes");
}

TEST_CASE("32-bit wrap of an mlx5 Q counter") {
  const auto& c = one(hw_counter("out_of_sequence", 4294967000ull), hw_counter("out_of_sequence", 200), 10);
  CHECK(c.status == DeltaStatus::kWrapped);
  REQUIRE(c.delta);
  CHECK(*c.delta == 496);  // (200 - 4294967000) mod 2^32
  CHECK(*c.rate_per_s == doctest::Approx(49.6));
  CHECK_FALSE(c.at_least);
  // Exactly at the boundary: 0xFFFFFFFF -> 0 is one event.
  CHECK(*one(hw_counter("packet_seq_err", 4294967295ull), hw_counter("packet_seq_err", 0)).delta == 1);
}

TEST_CASE("a 32-bit wrapping counter that fell far is a reset, not a wrap") {
  // 500 -> 0 would be 4,294,966,796 events in the window: reset (issue 13's hw_counter case).
  const auto& r = one(hw_counter("out_of_sequence", 500), hw_counter("out_of_sequence", 0), 10);
  CHECK(r.status == DeltaStatus::kReset);
  CHECK_FALSE(r.delta);
  CHECK_FALSE(r.rate_per_s);
  // Just over half the range is not a wrap either; just under is.
  CHECK(one(hw_counter("out_of_sequence", (1ull << 31) - 1), hw_counter("out_of_sequence", 0)).status ==
        DeltaStatus::kReset);
  const auto& w = one(hw_counter("out_of_sequence", 1ull << 31), hw_counter("out_of_sequence", 0));
  CHECK(w.status == DeltaStatus::kWrapped);
  CHECK(*w.delta == (1ull << 31));
}

TEST_CASE("a 64-bit or saturating counter that went down is a reset, not a wrap") {
  const auto& r = one(net_counter("rx_bytes", 5000), net_counter("rx_bytes", 10));
  CHECK(r.status == DeltaStatus::kReset);
  CHECK_FALSE(r.delta);
  CHECK_FALSE(r.rate_per_s);
  CHECK(is_interesting(r));
  CHECK(one(port_counter("symbol_error", 50), port_counter("symbol_error", 0)).status == DeltaStatus::kReset);
  // An mlx5 64-bit congestion counter does not wrap either.
  CHECK(one(hw_counter("np_cnp_sent", 9000), hw_counter("np_cnp_sent", 5)).status == DeltaStatus::kReset);
}

TEST_CASE("saturation: at least, or unknown") {
  // Reached the maximum during the window: delta is a lower bound.
  const auto& up = one(port_counter("symbol_error", 65530), port_counter("symbol_error", 65535));
  CHECK(up.status == DeltaStatus::kSaturated);
  REQUIRE(up.delta);
  CHECK(*up.delta == 5);
  CHECK(up.at_least);
  // Already saturated before: the delta is unknown.
  const auto& stuck = one(port_counter("link_downed", 255), port_counter("link_downed", 255));
  CHECK(stuck.status == DeltaStatus::kSaturated);
  CHECK_FALSE(stuck.delta);
  CHECK_FALSE(stuck.rate_per_s);
  CHECK(stuck.at_least);
  CHECK(is_interesting(stuck));
}

TEST_CASE("counters that appear or vanish are reported as such, never as zero") {
  Snapshot a, b;
  a.samples = {hw_counter("rx_dct_connect", 3), hw_counter("out_of_buffer", 1)};
  b.samples = {hw_counter("out_of_buffer", 1), hw_counter("roce_slow_restart", 0)};
  auto d = compute_delta(a, b, 5);
  REQUIRE(d.changes.size() == 3);
  CHECK(d.changes[0].counter.name == "out_of_buffer");
  CHECK(d.changes[0].status == DeltaStatus::kOk);
  CHECK(d.changes[1].counter.name == "roce_slow_restart");
  CHECK(d.changes[1].status == DeltaStatus::kAppeared);
  CHECK_FALSE(d.changes[1].delta);
  CHECK(d.changes[2].counter.name == "rx_dct_connect");
  CHECK(d.changes[2].status == DeltaStatus::kVanished);
  CHECK(d.changes[2].counter.value == 3);  // last value seen
  CHECK_FALSE(d.changes[2].delta);
  CHECK(is_interesting(d.changes[1]));
  CHECK(is_interesting(d.changes[2]));
  // Same name on another device or group is another counter.
  Snapshot c;
  c.samples = {make_counter("mlx5_1/1", CounterGroup::kIbHwCounters, "out_of_buffer", 1, "mlx5_core", "s")};
  auto d2 = compute_delta(a, c, 5);
  CHECK(d2.changes[0].status == DeltaStatus::kAppeared);
}

TEST_CASE("no window, no rate") {
  const auto& c = one(net_counter("rx_bytes", 1), net_counter("rx_bytes", 2), 0);
  CHECK(*c.delta == 1);
  CHECK_FALSE(c.rate_per_s);
}

TEST_CASE("single snapshot readings carry no delta and no rate") {
  Snapshot s;
  s.samples = {port_counter("symbol_error", 65535), net_counter("rx_bytes", 0), net_counter("tx_bytes", 9)};
  auto r = snapshot_readings(s);
  REQUIRE(r.size() == 3);
  for (const auto& c : r) {
    CHECK(c.status == DeltaStatus::kSnapshot);
    CHECK_FALSE(c.delta);
    CHECK_FALSE(c.rate_per_s);
  }
  CHECK(r[0].at_least);
  CHECK(is_interesting(r[0]));
  CHECK_FALSE(is_interesting(r[1]));
  CHECK(is_interesting(r[2]));
}

TEST_CASE("JSON form: null delta and rate when unknown") {
  const auto& c = one(hw_counter("out_of_sequence", 4294967000ull), hw_counter("out_of_sequence", 200), 10);
  nlohmann::json j = c;
  CHECK(j["device"] == "mlx5_0/1");
  CHECK(j["group"] == "ib_hw_counters");
  CHECK(j["category"] == "retransmit");
  CHECK(j["delta"] == 496);
  CHECK(j["status"] == "wrapped");
  CHECK(j["width_bits"] == 32);
  CHECK(j["at_least"] == false);
  CHECK(j["value"] == 200);
  CHECK_FALSE(j.contains("canonical"));
  Snapshot s;
  s.samples = {make_counter("b", CounterGroup::kIbHwCounters, "to_retransmits", 3, "bnxt_en", "s")};
  nlohmann::json k = snapshot_readings(s)[0];
  CHECK(k["delta"].is_null());
  CHECK(k["rate_per_s"].is_null());
  CHECK(k["canonical"] == "local_ack_timeout_err");
  CHECK(k["status"] == "snapshot");
}

TEST_CASE("write_json(CounterChange) writes to_json's object byte for byte") {
  std::vector<CounterChange> changes;
  CounterChange a;
  a.counter = port_counter("port_rcv_data", 1000);  // scaled: value 4000 bytes
  a.delta = 4000;
  a.rate_per_s = 133.33333333333334;
  a.status = DeltaStatus::kOk;
  changes.push_back(a);
  CounterChange b;
  b.counter = hw_counter("rx_prio3_pause", 7);
  b.counter.canonical = "rx_pause_prio";  // aliased: "canonical" is written
  b.counter.device = "mlx5_\"0\"/1 \xe9";  // quote and a Latin-1 byte: escaped, replaced
  b.counter.source = "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/rx\tprio3";
  b.status = DeltaStatus::kMissing;  // value null, last_seen_value
  changes.push_back(b);
  CounterChange c;
  c.counter = net_counter("rx_bytes", std::numeric_limits<uint64_t>::max());
  c.rate_per_s = std::numeric_limits<double>::infinity();  // not finite: null
  c.at_least = true;
  c.status = DeltaStatus::kSaturated;
  changes.push_back(c);
  CounterChange d;  // a single reading: no delta, no rate
  d.counter = net_counter("tx_packets", 0);
  changes.push_back(d);
  for (int indent : {-1, 2}) {
    CAPTURE(indent);
    nlohmann::json tree = nlohmann::json::array();
    for (const auto& ch : changes) tree.push_back(ch);
    std::string out;
    JsonWriter w(out, indent);
    w.begin_array();
    for (const auto& ch : changes) write_json(w, ch);
    w.end_array();
    CHECK(out == tree.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace));
  }
  nlohmann::json one = changes[1];
  CHECK(one["value"].is_null());
  CHECK(one["last_seen_value"] == 7);
  CHECK(one["canonical"] == "rx_pause_prio");
}
