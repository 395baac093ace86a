#include <doctest/doctest.h>

#include "perf/sync_skew.h"

using namespace fabdiag::perf;

TEST_CASE("sync skew: per rank the median lateness behind the first entry and the median time in the call") {
  // Three ranks, three calls; rank 1 enters 20 ms late in calls 0 and 2, everyone leaves together.
  std::vector<std::vector<double>> entry = {{0.000, 0.100, 0.200}, {0.020, 0.101, 0.221}, {0.001, 0.100, 0.200}};
  std::vector<std::vector<double>> exit = {{0.050, 0.130, 0.251}, {0.050, 0.130, 0.251}, {0.050, 0.130, 0.251}};
  SyncSkew s = sync_skew(entry, exit);
  REQUIRE(s.entry_lateness_s.size() == 3);
  CHECK(s.entry_lateness_s[0] == doctest::Approx(0.0));
  CHECK(s.entry_lateness_s[1] == doctest::Approx(0.020));  // median of 0.020, 0.001, 0.021
  CHECK(s.entry_lateness_s[2] == doctest::Approx(0.0));    // median of 0.001, 0, 0
  CHECK(s.wait_s[0] == doctest::Approx(0.050));            // median of 0.050, 0.030, 0.051
  CHECK(s.wait_s[1] == doctest::Approx(0.030));            // median of 0.030, 0.029, 0.030
  CHECK(s.iteration_s == doctest::Approx(0.050));          // median of 0.050, 0.030, 0.051
}

TEST_CASE("sync skew: calls counted over the shortest list, and empty input gives nothing") {
  SyncSkew s = sync_skew({{0, 1}, {0.5}}, {{0.6, 1.2}, {0.6}});
  REQUIRE(s.entry_lateness_s.size() == 2);
  CHECK(s.entry_lateness_s[1] == doctest::Approx(0.5));
  CHECK(s.wait_s[0] == doctest::Approx(0.6));
  CHECK(sync_skew({}, {}).entry_lateness_s.empty());
  CHECK(sync_skew({{}, {}}, {{}, {}}).iteration_s == 0);
}
