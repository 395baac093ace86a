// Time behind one interface: the monotonic seconds that counter windows are measured in, the
// UTC time stamped on snapshots, and the sleeps of `--interval` and `--watch`. Code that reads
// counters takes a Clock (the real one by default); tests pass a fake that advances on sleep, so
// a window is exact.
#pragma once

#include <ctime>
#include <functional>
#include <string>

namespace fabdiag {

/// A source of time.
class Clock {
 public:
  virtual ~Clock() = default;
  /// Seconds on a monotonic clock (std::chrono::steady_clock, arbitrary epoch): only
  /// differences mean something (a counter window is later.monotonic_s - earlier.monotonic_s).
  virtual double monotonic_s() const = 0;
  /// Wall time now, UTC, whole seconds, as "2026-11-30T08:00:00Z".
  virtual std::string utc_now_iso8601() const = 0;
  /// Blocks the calling thread for `seconds` (nothing when <= 0). The real clock resumes after
  /// signals (nanosleep restarted), so a caller that must react to Ctrl-C sleeps in short steps.
  virtual void sleep_s(double seconds) const = 0;
};

/// The machine's clocks: steady_clock, time(2) and std::this_thread::sleep_for. Lives for the
/// whole program; thread-safe.
const Clock& real_clock();

/// `epoch_s` (seconds since 1970-01-01T00:00:00Z) as "2026-11-30T08:00:00Z".
std::string format_utc_iso8601(std::time_t epoch_s);

/// Sleeps `seconds` on `clock` in steps of at most 10 s; after each step with more than half a
/// second still to wait, calls `left` with those seconds (the caller words the heartbeat).
void wait_with_heartbeat(const Clock& clock, double seconds, const std::function<void(double left_s)>& left);

}  // namespace fabdiag
