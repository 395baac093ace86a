#include <doctest/doctest.h>

#include "probes/counters/counter_movers.h"

using namespace fabdiag;

namespace {
CounterChange change(const std::string& dev, const std::string& name, CounterCategory cat,
                     std::optional<uint64_t> delta, std::optional<double> rate) {
  CounterChange c;
  c.counter.device = dev;
  c.counter.name = name;
  c.counter.category = cat;
  c.delta = delta;
  c.rate_per_s = rate;
  c.status = DeltaStatus::kOk;
  return c;
}
}  // namespace

TEST_CASE("top movers: health categories before traffic, then by rate, unmoved and unknown left out") {
  std::vector<CounterChange> cs = {
      change("eth0", "rx_bytes", CounterCategory::kTraffic, 1000000, 2e6),
      change("eth0", "rx_pause", CounterCategory::kPause, 10, 20),
      change("mlx5_0/1", "symbol_error", CounterCategory::kPhyError, 1, 2),
      change("mlx5_0/1", "out_of_sequence", CounterCategory::kRetransmit, 50, 100),
      change("mlx5_0/1", "local_ack_timeout_err", CounterCategory::kRetransmit, 500, 1000),
      change("eth0", "tx_bytes", CounterCategory::kTraffic, 0, 0),
      change("eth0", "new_one", CounterCategory::kPhyError, std::nullopt, std::nullopt),
  };
  auto m = rank_movers(cs, std::nullopt, 0);
  REQUIRE(m.size() == 5);
  CHECK(m[0]->counter.name == "symbol_error");
  CHECK(m[1]->counter.name == "local_ack_timeout_err");
  CHECK(m[2]->counter.name == "out_of_sequence");
  CHECK(m[3]->counter.name == "rx_pause");
  CHECK(m[4]->counter.name == "rx_bytes");

  auto top2 = rank_movers(cs, std::nullopt, 2);
  REQUIRE(top2.size() == 2);
  CHECK(top2[1]->counter.name == "local_ack_timeout_err");

  auto only = rank_movers(cs, CounterCategory::kRetransmit, 0);
  REQUIRE(only.size() == 2);
  CHECK(only[0]->counter.name == "local_ack_timeout_err");
  CHECK(mover_category_rank(CounterCategory::kTraffic) > mover_category_rank(CounterCategory::kOther));
}
