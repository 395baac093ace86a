#include <doctest/doctest.h>

#include <ctime>
#include <string>

#include "core/clock.h"
#include "tests/support/fake_clock.h"

using namespace fabdiag;

TEST_CASE("UTC ISO 8601 formatting") {
  CHECK(format_utc_iso8601(0) == "1970-01-01T00:00:00Z");
  CHECK(format_utc_iso8601(1796025600) == "2026-11-30T08:00:00Z");
  CHECK(format_utc_iso8601(1796025600 + 86399) == "2026-12-01T07:59:59Z");
}

TEST_CASE("the real clock moves forward by at least what it slept, and tells today's UTC date") {
  const Clock& c = real_clock();
  double t0 = c.monotonic_s();
  c.sleep_s(0.05);
  double t1 = c.monotonic_s();
  CHECK(t1 - t0 >= 0.05);
  CHECK(t1 - t0 < 5);
  c.sleep_s(-1);  // nothing
  CHECK(c.utc_now_iso8601() == format_utc_iso8601(std::time(nullptr)));
}

TEST_CASE("wait_with_heartbeat sleeps in steps of 10 s and reports what is left") {
  fabdiag::testing::FakeClock clock(0.0);
  std::vector<double> left;
  wait_with_heartbeat(clock, 25.25, [&](double s) { left.push_back(s); });
  CHECK(clock.monotonic_s() == 25.25);
  CHECK(clock.sleeps() == std::vector<double>{10.0, 10.0, 5.25});
  CHECK(left == std::vector<double>{15.25, 5.25});
  left.clear();
  wait_with_heartbeat(clock, 0.375, [&](double s) { left.push_back(s); });
  CHECK(clock.monotonic_s() == 25.625);
  CHECK(left.empty());
}
