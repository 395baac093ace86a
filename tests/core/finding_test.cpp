#include <doctest/doctest.h>

#include "core/finding.h"

using namespace fabdiag;

TEST_CASE("Evidence builder: number and text readings, with and without an expectation") {
  Evidence w = Evidence::number("current_link_width", 8, "lanes", "/sys/bus/pci/devices/0000:17:00.0/current_link_width")
                   .expect(16, "lower max_link_width of the two ends");
  CHECK(w.metric == "current_link_width");
  REQUIRE(w.value.has_value());
  CHECK(*w.value == 8);
  CHECK(w.value_text.empty());
  CHECK(w.unit == "lanes");
  REQUIRE(w.threshold.has_value());
  CHECK(*w.threshold == 16);
  CHECK(w.threshold_text == "lower max_link_width of the two ends");
  CHECK(w.source == "/sys/bus/pci/devices/0000:17:00.0/current_link_width");
  CHECK_FALSE(w.at_least);

  Evidence unmeasured = Evidence::number("rate", std::nullopt, "Gb/s", "ibstat");
  CHECK_FALSE(unmeasured.value.has_value());
  CHECK_FALSE(unmeasured.threshold.has_value());
  CHECK(unmeasured.threshold_text.empty());

  Evidence s = Evidence::text("state", "1: DOWN", "/sys/class/infiniband/mlx5_0/ports/1/state").expect("4: ACTIVE");
  CHECK(s.metric == "state");
  CHECK_FALSE(s.value.has_value());
  CHECK(s.value_text == "1: DOWN");
  CHECK(s.unit.empty());
  CHECK_FALSE(s.threshold.has_value());
  CHECK(s.threshold_text == "4: ACTIVE");
  CHECK(s.source == "/sys/class/infiniband/mlx5_0/ports/1/state");
}
