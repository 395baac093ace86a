#include "core/interrupt.h"

#include <signal.h>

#include <atomic>
#include <mutex>

namespace fabdiag {

namespace {

// The last SIGINT/SIGTERM caught while a scope lived; 0 = none. Lock-free, so the handler may
// store it (async-signal-safe).
std::atomic<int> g_interrupt{0};
static_assert(std::atomic<int>::is_always_lock_free);
void on_interrupt(int sig) { g_interrupt.store(sig, std::memory_order_relaxed); }

// Reference-counted ownership of SIGINT/SIGTERM. Concurrent users (triage probes 16 hosts at
// once, a run's stop watcher) share one installation; the record is cleared only when no other
// scope lives, so a Ctrl-C seen by one is seen by all of them.
std::mutex g_handlers_mutex;
int g_scopes = 0;
struct sigaction g_previous_int {}, g_previous_term {};

}  // namespace

InterruptScope::InterruptScope() {
  std::lock_guard<std::mutex> lock(g_handlers_mutex);
  if (g_scopes++ > 0) return;
  g_interrupt.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_previous_int);
  sigaction(SIGTERM, &sa, &g_previous_term);
}

InterruptScope::~InterruptScope() {
  std::lock_guard<std::mutex> lock(g_handlers_mutex);
  if (--g_scopes > 0) return;
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
}

int InterruptScope::pending() const { return g_interrupt.load(); }

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGKILL: return "SIGKILL";
  }
  return "a signal";
}

}  // namespace fabdiag
