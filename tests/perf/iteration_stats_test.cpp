#include <doctest/doctest.h>

#include <cmath>

#include "perf/iteration_stats.h"

using namespace fabdiag::perf;

TEST_CASE("iteration statistics are nccl-tests' computeIterStats") {
  // 10 samples: sorted 1..10 us. p50 = sorted[5] = 6, p99 = sorted[min(9, ceil(9.9)-1)] = 10.
  std::vector<double> s = {5e-6, 1e-6, 9e-6, 2e-6, 10e-6, 3e-6, 8e-6, 4e-6, 7e-6, 6e-6};
  IterationStats st = iteration_stats(s);
  CHECK(st.samples == 10);
  CHECK(st.min_s == doctest::Approx(1e-6));
  CHECK(st.max_s == doctest::Approx(10e-6));
  CHECK(st.p50_s == doctest::Approx(6e-6));
  CHECK(st.p99_s == doctest::Approx(10e-6));
  CHECK(st.mean_s == doctest::Approx(5.5e-6));
  CHECK(st.cv == doctest::Approx(std::sqrt(8.25) / 5.5));  // population stdev of 1..10 over the mean
  // 200 samples: p99 = sorted[197] (ceil(198) - 1), not the maximum.
  std::vector<double> many;
  for (int i = 200; i >= 1; --i) many.push_back(i * 1e-6);
  st = iteration_stats(many);
  CHECK(st.p99_s == doctest::Approx(198e-6));
  CHECK(st.p50_s == doctest::Approx(101e-6));
}

TEST_CASE("iteration statistics of nothing and of equal samples") {
  IterationStats none = iteration_stats({});
  CHECK(none.samples == 0);
  CHECK(none.max_s == 0);
  IterationStats same = iteration_stats({2e-3, 2e-3, 2e-3});
  CHECK(same.cv == doctest::Approx(0.0));
  CHECK(same.p99_s == doctest::Approx(2e-3));
  CHECK(iteration_stats({0, 0}).cv == 0);  // mean 0: no division
}

TEST_CASE("per iteration the slowest rank counts, over the iterations every rank has") {
  auto m = max_over_ranks({{1, 5, 2}, {3, 1, 2, 9}});
  CHECK(m == std::vector<double>{3, 5, 2});
  CHECK(max_over_ranks({}).empty());
}

TEST_CASE("numbers survive the byte packing used to exchange them") {
  std::vector<double> v = {1.5e-6, -2.0, 0.0, 1e300};
  CHECK(unpack_doubles(pack_doubles(v)) == v);
  CHECK(unpack_doubles(pack_doubles({})).empty());
  CHECK(unpack_doubles(std::string(12, '\0')).size() == 1);  // a trailing partial number is ignored
}
