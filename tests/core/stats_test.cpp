#include <doctest/doctest.h>

#include <cmath>

#include "core/stats.h"

using namespace fabdiag;

TEST_CASE("median and quantiles ignore NaN") {
  CHECK(median({3, 1, 2}) == doctest::Approx(2));
  CHECK(median({4, 1, 2, 3}) == doctest::Approx(2.5));
  CHECK(median({NAN, 5}) == doctest::Approx(5));
  CHECK_FALSE(median({}).has_value());
  CHECK_FALSE(median({NAN}).has_value());
  CHECK(quantile({1, 2, 3, 4, 5}, 0.9) == doctest::Approx(4.6));
}

TEST_CASE("modified z-score flags the slow outlier only") {
  std::vector<double> v = {100, 110, 95, 105, 102, 98, 6};
  CHECK(*median_abs_deviation(v) == doctest::Approx(5));
  CHECK(*modified_z(6, v) < -3.5);
  CHECK(std::fabs(*modified_z(110, v)) < 3.5);
  CHECK(std::isinf(*modified_z(1, {5, 5, 5})));
  CHECK(*modified_z(5, {5, 5, 5}) == 0);
}
