#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "probes/counters/counter_delta.h"
#include "probes/counters/counter_snapshot_json.h"
#include "probes/counters/sysfs_counters.h"

using namespace fabdiag;

TEST_CASE("a snapshot survives the JSON round trip with the same deltas") {
  FsRoot before(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/roce-rising/before", "/proc");
  FsRoot after(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/roce-rising/after", "/proc");
  CounterReadOptions opts;
  Snapshot a = read_counter_snapshot(before, opts);
  Snapshot b = read_counter_snapshot(after, opts);
  REQUIRE(!a.samples.empty());
  auto a2 = snapshot_from_json(nlohmann::json::parse(snapshot_to_json(a).dump()));
  auto b2 = snapshot_from_json(nlohmann::json::parse(snapshot_to_json(b).dump()));
  REQUIRE(a2.ok());
  REQUIRE(b2.ok());
  REQUIRE(a2->samples.size() == a.samples.size());
  for (size_t i = 0; i < a.samples.size(); ++i) {  // the knowledge-base facts travel along
    CHECK(a2->samples[i].category == a.samples[i].category);
    CHECK(a2->samples[i].rule == a.samples[i].rule);
    CHECK(a2->samples[i].canonical == a.samples[i].canonical);
  }
  CHECK(a2->ports.size() == a.ports.size());
  auto d1 = compute_delta(a, b, 10);
  auto d2 = compute_delta(*a2, *b2, 10);
  REQUIRE(d1.changes.size() == d2.changes.size());
  for (size_t i = 0; i < d1.changes.size(); ++i) {
    CHECK(d1.changes[i].counter.name == d2.changes[i].counter.name);
    CHECK(d1.changes[i].delta == d2.changes[i].delta);
    CHECK(d1.changes[i].at_least == d2.changes[i].at_least);
  }
}

TEST_CASE("a malformed snapshot is a parse error, not a crash") {
  auto r = snapshot_from_json(nlohmann::json{{"taken_at", "x"}});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kParse);
  auto g = snapshot_from_json(nlohmann::json::parse(
      R"({"taken_at":"t","monotonic_s":1,"ports":[],"samples":[{"device":"d","group":"bogus","name":"x","raw":1,"value":1}]})"));
  REQUIRE_FALSE(g.ok());
  CHECK(g.error().message.find("bogus") != std::string::npos);
}
