// Test helper: a Clock that moves only when told to or when slept on, so counter windows,
// snapshot stamps and --interval waits are exact and instant.
#pragma once

#include <cmath>
#include <ctime>
#include <string>
#include <vector>

#include "core/clock.h"

namespace fabdiag::testing {

class FakeClock final : public Clock {
 public:
  /// Starts at `monotonic_s` on the monotonic clock and at `epoch_s` (seconds since 1970) on
  /// the wall clock (default 2026-11-30T08:00:00Z).
  explicit FakeClock(double monotonic_s = 1000.0, std::time_t epoch_s = 1796025600)
      : now_s_(monotonic_s), start_s_(monotonic_s), epoch_s_(epoch_s) {}

  double monotonic_s() const override { return now_s_; }
  std::string utc_now_iso8601() const override {
    return format_utc_iso8601(epoch_s_ + static_cast<std::time_t>(std::floor(now_s_ - start_s_)));
  }
  /// Advances both clocks by `seconds` at once and records the sleep.
  void sleep_s(double seconds) const override {
    sleeps_.push_back(seconds);
    if (seconds > 0) now_s_ += seconds;
  }
  /// Advances both clocks without a sleep (time spent reading, for example).
  void advance(double seconds) { now_s_ += seconds; }
  /// Every sleep asked for, in order.
  const std::vector<double>& sleeps() const { return sleeps_; }

 private:
  mutable double now_s_;
  double start_s_;
  std::time_t epoch_s_;
  mutable std::vector<double> sleeps_;
};

}  // namespace fabdiag::testing
