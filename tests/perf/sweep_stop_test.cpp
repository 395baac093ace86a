#include <doctest/doctest.h>

#include <cmath>

#include "perf/collective_bench.h"
#include "perf/sweep_stop.h"

using namespace fabdiag;
using namespace fabdiag::perf;

TEST_CASE("stops_sweep: below the limit, from min_bytes on, after the size's skew probe") {
  const SweepStop s{1e8, 1u << 20, "why"};
  CHECK(stops_sweep(s, 1u << 20, 7.6e6, true, true));         // the 100 Mbit node's all_reduce
  CHECK_FALSE(stops_sweep(s, 1u << 20, 1.1e8, true, true));   // above the limit
  CHECK_FALSE(stops_sweep(s, 1u << 20, 1e8, true, true));     // at it: not below
  CHECK_FALSE(stops_sweep(s, 512u << 10, 7.6e6, true, true)); // below min_bytes
  CHECK_FALSE(stops_sweep(s, 1u << 20, 7.6e6, true, false));  // the probe did not run
  CHECK(stops_sweep(s, 1u << 20, 7.6e6, false, false));       // no probe in this sweep (NCCL)
  CHECK_FALSE(stops_sweep(s, 1u << 20, NAN, true, true));
  CHECK_FALSE(stops_sweep(SweepStop{}, 1u << 20, 1.0, true, true));  // off
}

TEST_CASE("validate_sweep_stop refuses a negative or non-finite limit") {
  CHECK(validate_sweep_stop(SweepStop{}));
  CHECK_FALSE(validate_sweep_stop(SweepStop{-1, 0, ""}));
  CHECK_FALSE(validate_sweep_stop(SweepStop{NAN, 0, ""}));
  CHECK_FALSE(validate_sweep_stop(SweepStop{INFINITY, 0, ""}));
  BenchOptions o;
  o.stop.below_busbw_bytes_per_s = -5;
  CHECK_FALSE(validate_bench_options(o));
}
