// The --interval window on a fake clock: the pipeline stamps both snapshots on the clock it was
// given and the wait between them is slept on the same clock, so the window is exact.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "collect/counter_pipeline.h"
#include "tests/support/fake_clock.h"

using namespace fabdiag;

namespace {

FsRoot roce_rising(const char* which) {
  return FsRoot(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/roce-rising/" + which, "/proc");
}

const CounterChange& change(const CounterObservation& obs, const std::string& device, const std::string& name) {
  for (const auto& c : obs.changes)
    if (c.counter.device == device && c.counter.name == name) return c;
  FAIL("no change of " << device << " " << name);
  static CounterChange none;
  return none;
}

}  // namespace

TEST_CASE("an --interval window on a fake clock is exact: stamps, heartbeat and rates") {
  fabdiag::testing::FakeClock clock(5000.0);
  CounterSources sources;
  sources.ethtool = false;  // sysfs only: no transport needed
  CounterPipeline pipeline(sources, {}, &clock);
  CHECK(&pipeline.clock() == &clock);

  Snapshot first = pipeline.snapshot(roce_rising("before"));
  std::vector<double> left;
  wait_with_heartbeat(pipeline.clock(), 27.5, [&](double s) { left.push_back(s); });
  Snapshot second = pipeline.snapshot(roce_rising("after"));

  CHECK(first.monotonic_s == 5000.0);
  CHECK(second.monotonic_s == 5027.5);
  CHECK(first.taken_at == "2026-11-30T08:00:00Z");
  CHECK(second.taken_at == "2026-11-30T08:00:27Z");
  CHECK(clock.sleeps() == std::vector<double>{10.0, 10.0, 7.5});
  CHECK(left == std::vector<double>{17.5, 7.5});  // no heartbeat once the wait is over

  const double window_s = second.monotonic_s - first.monotonic_s;
  CHECK(window_s == 27.5);
  CounterObservation obs = observe_counters(first, &second, window_s);
  REQUIRE(obs.window_s.has_value());
  CHECK(*obs.window_s == 27.5);
  const CounterChange& sym = change(obs, "mlx5_0/1", "symbol_error");
  REQUIRE(sym.delta.has_value());
  CHECK(*sym.delta == 5);
  REQUIRE(sym.rate_per_s.has_value());
  CHECK(*sym.rate_per_s == 5 / 27.5);
}

TEST_CASE("read_counter_snapshot stamps with the clock it is given, the real one by default") {
  fabdiag::testing::FakeClock clock(42.0);
  clock.advance(61.5);
  CounterReadOptions opts;
  opts.clock = &clock;
  Snapshot s = read_counter_snapshot(roce_rising("before"), opts);
  CHECK(s.monotonic_s == 103.5);
  CHECK(s.taken_at == "2026-11-30T08:01:01Z");
  Snapshot real = read_counter_snapshot(roce_rising("before"), {});
  CHECK(real.monotonic_s > 0);
  CHECK(real.monotonic_s != 103.5);
  REQUIRE(real.taken_at.size() == std::string("2026-11-30T08:00:00Z").size());
  CHECK(real.taken_at[10] == 'T');
  CHECK(real.taken_at.back() == 'Z');
  CHECK(real.taken_at.rfind("20", 0) == 0);
}
