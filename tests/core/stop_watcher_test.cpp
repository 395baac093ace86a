#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/stop_watcher.h"

using namespace fabdiag;

namespace {

// Waits up to `limit_s` for `done`; true when it came.
bool wait_for(const std::atomic<bool>& done, double limit_s) {
  auto t0 = std::chrono::steady_clock::now();
  while (!done.load()) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > limit_s) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

std::atomic<int> g_previous_calls{0};
void previous_handler(int) { g_previous_calls.fetch_add(1); }

}  // namespace

TEST_CASE("the deadline calls on_stop on the watcher's own thread while the caller is busy") {
  std::atomic<bool> called{false};
  StopCause seen;
  std::thread::id on;
  auto t0 = std::chrono::steady_clock::now();
  StopWatcher w(0.1, [&](const StopCause& c) {
    seen = c;
    on = std::this_thread::get_id();
    called = true;
  });
  CHECK_FALSE(w.pending().has_value());
  REQUIRE(wait_for(called, 5));
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(s >= 0.1);
  CHECK(seen.signal == 0);
  CHECK(seen.deadline_s == doctest::Approx(0.1));
  CHECK(on != std::this_thread::get_id());
  REQUIRE(w.pending().has_value());
  CHECK(w.pending()->deadline_s == doctest::Approx(0.1));
}

TEST_CASE("SIGINT and SIGTERM are caught and handed to on_stop, and the previous handler comes back after") {
  struct sigaction sa {}, before {};
  sa.sa_handler = previous_handler;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, &before);
  {
    std::atomic<bool> called{false};
    std::atomic<int> sig{0};
    StopWatcher w(0, [&](const StopCause& c) {
      sig = c.signal;
      called = true;
    });
    kill(getpid(), SIGTERM);
    REQUIRE(wait_for(called, 5));
    CHECK(sig == SIGTERM);
    CHECK(g_previous_calls == 0);  // ours, not the previous handler
    REQUIRE(w.pending().has_value());
    CHECK(w.pending()->signal == SIGTERM);
  }
  kill(getpid(), SIGTERM);
  CHECK(g_previous_calls == 1);
  sigaction(SIGTERM, &before, nullptr);
}

TEST_CASE("a watcher that ends before any stop never calls on_stop and clears the signal record") {
  std::atomic<int> calls{0};
  {
    StopWatcher w(0, [&](const StopCause&) { calls.fetch_add(1); });
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
  }
  CHECK(calls == 0);
  {
    StopWatcher w(30, [&](const StopCause&) { calls.fetch_add(1); });
    CHECK_FALSE(w.pending().has_value());  // the SIGTERM of the test above is not seen here
  }
  CHECK(calls == 0);
}
