// SIGINT and SIGTERM, caught instead of ending the process, shared by everything that must react
// to Ctrl-C: a child process passes it on (core/subprocess.h), a long run delivers what finished
// (core/stop_watcher.h). One reference-counted installation serves any number of users at once.
#pragma once

namespace fabdiag {

/// While at least one InterruptScope lives (in any thread), SIGINT and SIGTERM are caught: the
/// handler only records the signal (async-signal-safe). The first scope saves the previous
/// handlers and clears the record, the last one restores them; a signal seen by one scope is
/// seen by every scope alive at that moment. Thread-safe.
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
  /// The last SIGINT/SIGTERM caught since the first of the living scopes began, else 0.
  int pending() const;
};

/// "SIGINT", "SIGTERM", "SIGHUP", "SIGKILL", else "a signal".
const char* signal_name(int sig);

}  // namespace fabdiag
