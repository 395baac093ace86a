#include <doctest/doctest.h>

#include <algorithm>
#include <optional>

#include "collect/counter_window.h"
#include "tests/support/temp_tree.h"

using namespace fabdiag;
using fabdiag::testing::TempTree;

namespace {

// One RDMA port mlx5_0/1 paired with netdev ens1f0np0, whose symbol_error reads `symbol_errors`.
void write_port(const TempTree& t, int symbol_errors) {
  const std::string port = "class/infiniband/mlx5_0/ports/1/";
  t.file(port + "state", "4: ACTIVE");
  t.file(port + "phys_state", "5: LinkUp");
  t.file(port + "rate", "400 Gb/sec (4X NDR)");
  t.file(port + "link_layer", "InfiniBand");
  t.file(port + "counters/symbol_error", std::to_string(symbol_errors));
  t.file("class/infiniband/mlx5_0/device/net/ens1f0np0/dev_port", "0");
}

CounterSources sysfs_only(std::vector<std::string> devices = {}) {
  CounterSources s;
  s.ethtool = false;  // no driver statistics or netlink: only the tree
  s.devices = std::move(devices);
  return s;
}

const CounterChange* change(const CounterObservation& obs, const std::string& device, const std::string& name) {
  auto it = std::find_if(obs.changes.begin(), obs.changes.end(), [&](const CounterChange& c) {
    return c.counter.device == device && c.counter.name == name;
  });
  return it == obs.changes.end() ? nullptr : &*it;
}

// The delta of mlx5_0/1's symbol_error over the window; nullopt when it has none.
std::optional<uint64_t> symbol_error_delta(const CounterObservation& obs) {
  const CounterChange* c = change(obs, "mlx5_0/1", "symbol_error");
  REQUIRE(c != nullptr);
  return c->delta;
}

}  // namespace

TEST_CASE("read_counter_window: one snapshot without a window") {
  TempTree t;
  write_port(t, 7);
  FsRoot fs(t.root(), "");
  CounterPipeline pipeline(sysfs_only());
  auto r = read_counter_window(pipeline, fs, {});
  REQUIRE(r.ok());
  CHECK_FALSE(r->observation.window_s.has_value());
  const CounterChange* c = change(r->observation, "mlx5_0/1", "symbol_error");
  REQUIRE(c != nullptr);
  CHECK(c->status == DeltaStatus::kSnapshot);
  CHECK(c->counter.value == 7);
  CHECK(r->stats_source == "not read (--no-ethtool)");
  CHECK(r->link_source == "not read (--no-ethtool)");
}

TEST_CASE("read_counter_window: the second snapshot from another tree covers interval_s") {
  TempTree before, after;
  write_port(before, 7);
  write_port(after, 12);
  FsRoot fs(before.root(), ""), fs_after(after.root(), "");
  CounterPipeline pipeline(sysfs_only());
  CounterWindowSpec spec;
  spec.interval_s = 10;
  spec.after = &fs_after;
  bool waited = false;
  spec.wait = [&](double, const Snapshot&) { waited = true; };
  auto r = read_counter_window(pipeline, fs, spec);
  REQUIRE(r.ok());
  CHECK_FALSE(waited);  // a second tree is read at once
  REQUIRE(r->observation.window_s.has_value());
  CHECK(*r->observation.window_s == doctest::Approx(10.0));
  CHECK(symbol_error_delta(r->observation) == std::optional<uint64_t>(5));
}

TEST_CASE("read_counter_window: a live window waits once, then reads the same tree again") {
  TempTree t;
  write_port(t, 7);
  FsRoot fs(t.root(), "");
  CounterPipeline pipeline(sysfs_only());
  CounterWindowSpec spec;
  spec.interval_s = 30;
  int waits = 0;
  spec.wait = [&](double interval_s, const Snapshot& first) {
    ++waits;
    CHECK(interval_s == 30);
    CHECK(first.ports.size() == 1);
    write_port(t, 9);  // the counter moves while we "wait"
  };
  auto r = read_counter_window(pipeline, fs, spec);
  REQUIRE(r.ok());
  CHECK(waits == 1);
  REQUIRE(r->observation.window_s.has_value());
  CHECK(*r->observation.window_s >= 0);
  CHECK(*r->observation.window_s < 30);  // the measured time between the reads, not the request
  CHECK(symbol_error_delta(r->observation) == std::optional<uint64_t>(2));
}

TEST_CASE("read_counter_window: a --device that names nothing is an error naming it") {
  TempTree t;
  write_port(t, 7);
  FsRoot fs(t.root(), "");
  CounterPipeline pipeline(sysfs_only({"mlx5_0", "mlx5_9"}));
  auto r = read_counter_window(pipeline, fs, {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kNotFound);
  CHECK(r.error().to_string() == "no RDMA port or netdev named \"mlx5_9\" under " + t.root() +
                                     "/class (give an ibdev such as mlx5_0, a port such as mlx5_0/1, or a netdev)");
}

TEST_CASE("read_selected_snapshot: an ibdev or a port name selects the port") {
  TempTree t;
  write_port(t, 7);
  FsRoot fs(t.root(), "");
  for (const char* name : {"mlx5_0", "mlx5_0/1"}) {
    CounterReadOptions o;
    o.devices = {name};
    auto s = read_selected_snapshot(fs, o);
    REQUIRE(s.ok());
    REQUIRE(s->ports.size() == 1);
    CHECK(s->ports[0].device == "mlx5_0/1");
  }
}
