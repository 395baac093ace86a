#include <doctest/doctest.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "perf/sim_comm.h"

using namespace fabdiag;
using namespace fabdiag::perf;

TEST_CASE("simulated ranks: identity, hosts and string collectives") {
  SimSpec spec;
  spec.ranks = 3;
  std::mutex mu;
  std::vector<std::string> seen(3);
  auto st = run_simulated(spec, [&](Comm& c) -> Status {
    CHECK(c.size() == 3);
    CHECK(c.hosts() == std::vector<std::string>{"node01", "node02", "node03"});
    auto all = c.allgather_strings("r" + std::to_string(c.rank()));
    CHECK(all);
    CHECK(*all == std::vector<std::string>{"r0", "r1", "r2"});
    auto g = c.gather_strings("{\"rank\":" + std::to_string(c.rank()) + "}", 0);
    CHECK(g);
    if (c.rank() == 0) CHECK(g->size() == 3);
    else CHECK(g->empty());
    auto b = c.broadcast_string(c.rank() == 1 ? "from one" : "ignored", 1);
    CHECK(b);
    std::lock_guard lk(mu);
    seen[static_cast<size_t>(c.rank())] = *b;
    return Ok{};
  });
  REQUIRE(st);
  CHECK(seen == std::vector<std::string>(3, "from one"));
}

TEST_CASE("simulated collectives move real data") {
  SimSpec spec;
  spec.ranks = 4;
  auto st = run_simulated(spec, [&](Comm& c) -> Status {
    const int r = c.rank(), n = c.size();
    std::vector<int32_t> one{r + 1, 10 * (r + 1)}, sum(2);
    CHECK(c.all_reduce(one.data(), sum.data(), 2, DataType::kInt32));
    CHECK(sum == std::vector<int32_t>{10, 100});
    std::vector<int32_t> gathered(static_cast<size_t>(2 * n));
    CHECK(c.all_gather(one.data(), gathered.data(), 2, DataType::kInt32));
    CHECK(gathered[6] == 4);
    CHECK(gathered[7] == 40);
    std::vector<double> x(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) x[static_cast<size_t>(i)] = 100.0 * r + i;  // to rank i
    std::vector<double> got(static_cast<size_t>(n));
    CHECK(c.alltoall(x.data(), got.data(), 1, DataType::kDouble));
    for (int i = 0; i < n; ++i) CHECK(got[static_cast<size_t>(i)] == 100.0 * i + r);
    std::vector<double> part(1);
    CHECK(c.reduce_scatter(x.data(), part.data(), 1, DataType::kDouble));
    CHECK(part[0] == doctest::Approx(100.0 * (0 + 1 + 2 + 3) + 4 * r));
    float root_val = 7.5f, out = -1;
    CHECK(c.broadcast(&root_val, &out, 1, DataType::kFloat, 2));
    CHECK(out == (r == 2 ? -1.0f : 7.5f));  // the root's receive buffer is not written
    int64_t mine = r, red = -1;
    CHECK(c.reduce(&mine, &red, 1, DataType::kInt64, 0));
    CHECK(red == (r == 0 ? 6 : -1));
    int64_t from = -1;
    CHECK(c.sendrecv(&mine, 1, (r + 1) % n, &from, 1, (r + n - 1) % n, DataType::kInt64));
    CHECK(from == (r + n - 1) % n);
    return Ok{};
  });
  REQUIRE(st);
}

TEST_CASE("the virtual clock follows the bandwidth model") {
  SimSpec spec;
  spec.ranks = 2;
  spec.latency_s = 0;
  spec.link_bytes_per_s = 1e9;
  spec.link_override[{1, 0}] = 2.5e8;  // 1 -> 0 is 4x slower than 0 -> 1
  CHECK(sim_link_bytes_per_s(spec, 0, 1) == 1e9);
  CHECK(sim_link_bytes_per_s(spec, 1, 0) == 2.5e8);
  auto st = run_simulated(spec, [&](Comm& c) -> Status {
    std::vector<unsigned char> a(1000000), b(1000000);
    const double t0 = c.wall_time_s();
    const int peer = 1 - c.rank();
    CHECK(c.sendrecv(a.data(), a.size(), peer, b.data(), b.size(), peer, DataType::kUint8));
    // Both ranks wait for the slower direction: 1e6 bytes at 2.5e8 bytes/s.
    CHECK(c.wall_time_s() - t0 == doctest::Approx(0.004));
    return Ok{};
  });
  REQUIRE(st);
  spec.node_factor = {1.0, 0.01};
  CHECK(sim_link_bytes_per_s(spec, 0, 1) == doctest::Approx(1e7));
}

TEST_CASE("a rank that leaves early makes the others fail instead of hang") {
  SimSpec spec;
  spec.ranks = 3;
  std::atomic<int> failures{0};
  auto st = run_simulated(spec, [&](Comm& c) -> Status {
    if (c.rank() == 1) return make_error(ErrorCode::kIo, "rank 1 gave up");
    auto b = c.barrier();
    if (!b) ++failures;
    return b;
  });
  REQUIRE_FALSE(st);
  // The lowest failing rank's error: rank 0, which waited in the barrier for rank 1.
  CHECK(st.error().code == ErrorCode::kUnavailable);
  CHECK(st.error().message.find("exited") != std::string::npos);
  CHECK(failures == 2);
}

TEST_CASE("bad specs are rejected") {
  SimSpec spec;
  spec.ranks = 0;
  CHECK_FALSE(run_simulated(spec, [](Comm&) -> Status { return Ok{}; }));
  spec.ranks = 2;
  spec.node_factor = {1.0};
  CHECK_FALSE(run_simulated(spec, [](Comm&) -> Status { return Ok{}; }));
}
