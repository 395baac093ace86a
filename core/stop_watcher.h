// A watcher thread for long runs: Ctrl-C (SIGINT), SIGTERM (what mpirun sends the ranks when it
// is stopped) and a deadline, noticed even while the main thread is blocked in a call that a
// signal does not end (an MPI collective waiting for a peer that will never come).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "core/interrupt.h"
#include "core/run_cut.h"

namespace fabdiag {

/// Runs `on_stop(cause)` on a thread of its own, once, when SIGINT/SIGTERM arrives (caught
/// through an InterruptScope for the watcher's lifetime) or the deadline passes. `on_stop` is
/// meant to deliver what finished and end the process (_exit); when it returns, watching ends.
/// The signal is noticed within kPollS.
class StopWatcher {
 public:
  static constexpr double kPollS = 0.02;  ///< How often the thread looks.
  /// Starts watching. `deadline_s`: seconds from now (<= 0: no deadline).
  StopWatcher(double deadline_s, std::function<void(const StopCause&)> on_stop);
  /// Stops watching without calling `on_stop` (waits for an `on_stop` already running).
  ~StopWatcher();
  StopWatcher(const StopWatcher&) = delete;
  StopWatcher& operator=(const StopWatcher&) = delete;
  /// The cause when a signal was caught or the deadline passed, else nullopt. Any thread.
  std::optional<StopCause> pending() const;

 private:
  void watch();
  InterruptScope interrupts_;
  double deadline_s_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::function<void(const StopCause&)> on_stop_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool quit_ = false;
  std::thread thread_;  // last: starts after every other member is ready
};

}  // namespace fabdiag
