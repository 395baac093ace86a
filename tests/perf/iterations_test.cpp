#include <doctest/doctest.h>

#include "perf/collective_bench.h"
#include "perf/iterations.h"
#include "perf/pairwise.h"

using namespace fabdiag;
using namespace fabdiag::perf;

TEST_CASE("validate_iterations: at least one timed iteration, no negative warm-up") {
  CHECK(validate_iterations(1, 0).ok());
  CHECK(validate_iterations(20, 5).ok());
  auto no_iters = validate_iterations(0, 5);
  REQUIRE_FALSE(no_iters.ok());
  CHECK(no_iters.error().code == ErrorCode::kInvalidArgument);
  CHECK(no_iters.error().message == "iterations (-n) must be at least 1, got 0");
  auto negative_warmup = validate_iterations(3, -1);
  REQUIRE_FALSE(negative_warmup.ok());
  CHECK(negative_warmup.error().message == "warm-up iterations (-w) must be >= 0, got -1");
}

TEST_CASE("bench and pairwise options refuse the same iteration counts with the same words") {
  BenchOptions bench;
  bench.iters = 0;
  PairwiseOptions pairwise;
  pairwise.iters = 0;
  auto b = validate_bench_options(bench);
  auto p = validate_pairwise_options(pairwise);
  REQUIRE_FALSE(b.ok());
  REQUIRE_FALSE(p.ok());
  CHECK(b.error().message == p.error().message);
  bench.iters = 1;
  bench.warmup_iters = -2;
  pairwise.iters = 1;
  pairwise.warmup_iters = -2;
  b = validate_bench_options(bench);
  p = validate_pairwise_options(pairwise);
  REQUIRE_FALSE(b.ok());
  REQUIRE_FALSE(p.ok());
  CHECK(b.error().message == "warm-up iterations (-w) must be >= 0, got -2");
  CHECK(p.error().message == b.error().message);
}
