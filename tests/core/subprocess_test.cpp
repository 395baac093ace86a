#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "core/subprocess.h"

using namespace fabdiag;

TEST_CASE("run_process captures stdout, streams stderr lines and returns the exit code") {
  std::vector<std::string> lines;
  auto r = run_process({"sh", "-c", "echo out; echo e1 >&2; echo e2 >&2; exit 3"}, 10,
                       [&](const std::string& l) { lines.push_back(l); });
  REQUIRE(r.ok());
  CHECK(r->stdout_text == "out\n");
  CHECK(lines == std::vector<std::string>{"e1", "e2"});
  CHECK(r->exit_code == 3);
  CHECK_FALSE(r->timed_out);
}

TEST_CASE("run_process hands out stdout lines as they come and still captures all of stdout") {
  std::vector<std::string> out_lines, err_lines;
  auto r = run_process({"sh", "-c", "echo one; echo e >&2; printf 'two\\nthree'"}, 10,
                       [&](const std::string& l) { err_lines.push_back(l); },
                       [&](const std::string& l) { out_lines.push_back(l); });
  REQUIRE(r.ok());
  CHECK(out_lines == std::vector<std::string>{"one", "two", "three"});  // the last, unended line too
  CHECK(err_lines == std::vector<std::string>{"e"});
  CHECK(r->stdout_text == "one\ntwo\nthree");
}

TEST_CASE("run_process kills the whole process group at the deadline") {
  auto t0 = std::chrono::steady_clock::now();
  auto r = run_process({"sh", "-c", "sleep 30 & sleep 30; echo never"}, 0.5, nullptr);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(r.ok());
  CHECK(r->timed_out);
  CHECK(r->stdout_text.empty());
  CHECK(s < 10);
}

TEST_CASE("run_process names a program that does not exist") {
  auto r = run_process({"/nonexistent/mpirun"}, 1, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kNotFound);
  CHECK(r.error().source == "/nonexistent/mpirun");
}

TEST_CASE("run_process passes our SIGTERM on to the child's group and reports it") {
  // The signal is sent once the child is running (its first stderr line), as Ctrl-C would be.
  auto r = run_process({"sh", "-c", "echo started >&2; sleep 30 & sleep 30"}, 60,
                       [](const std::string&) { kill(getpid(), SIGTERM); });
  REQUIRE(r.ok());
  CHECK(r->interrupted_by == SIGTERM);
  CHECK_FALSE(r->timed_out);
}

namespace {

std::atomic<int> g_test_handler_calls{0};
void test_handler(int) { g_test_handler_calls.fetch_add(1); }

// Installs test_handler for SIGINT and SIGTERM (with SA_RESTART, so a restore to the wrong
// handler shows in the flags too) and puts the previous ones back at scope exit.
struct TestHandlers {
  struct sigaction before_int {}, before_term {};
  TestHandlers() {
    struct sigaction sa {};
    sa.sa_handler = test_handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, &before_int);
    sigaction(SIGTERM, &sa, &before_term);
  }
  ~TestHandlers() {
    sigaction(SIGINT, &before_int, nullptr);
    sigaction(SIGTERM, &before_term, nullptr);
  }
};

// True when `sig`'s handler is test_handler with SA_RESTART, as TestHandlers installed it.
bool test_handler_installed(int sig) {
  struct sigaction now {};
  sigaction(sig, nullptr, &now);
  return now.sa_handler == test_handler && (now.sa_flags & SA_RESTART) != 0;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

TEST_CASE("one SIGINT stops every concurrent child, each reports it, and the handlers are restored") {
  TestHandlers handlers;
  g_test_handler_calls = 0;
  constexpr int kChildren = 6;
  std::atomic<int> started{0};
  std::vector<Result<ProcessResult>> results(kChildren, make_error(ErrorCode::kInternal, "not run"));
  std::vector<std::thread> threads;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kChildren; ++i)
    threads.emplace_back([&, i] {
      // The stderr line says the child runs (and its wait has begun); exec: sleep is the child.
      results[i] = system_process_runner().run({"sh", "-c", "echo started >&2; exec sleep 30"}, 60,
                                               [&](const std::string&) { started.fetch_add(1); }, nullptr);
    });
  while (started.load() < kChildren && seconds_since(t0) < 20)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const int running = started.load();
  auto interrupted_at = std::chrono::steady_clock::now();
  kill(getpid(), SIGINT);
  for (auto& t : threads) t.join();
  REQUIRE(running == kChildren);
  for (int i = 0; i < kChildren; ++i) {
    REQUIRE(results[i].ok());
    CHECK(results[i]->interrupted_by == SIGINT);
    CHECK_FALSE(results[i]->timed_out);
    CHECK(results[i]->exit_code == 128 + SIGTERM);  // the group got SIGTERM from us
  }
  CHECK(seconds_since(interrupted_at) < 5);  // all of them, well under their 30 s sleep
  CHECK(g_test_handler_calls.load() == 0);   // the SIGINT was ours to pass on, not the old handler's
  CHECK(test_handler_installed(SIGINT));
  CHECK(test_handler_installed(SIGTERM));
  kill(getpid(), SIGINT);  // and the restored handler is the one in force
  CHECK(g_test_handler_calls.load() == 1);
}

TEST_CASE("overlapping children that end in start order leave the original handlers installed") {
  // The first child to start ends first: the last one to end restores, not the first.
  TestHandlers handlers;
  std::thread first([] { CHECK(run_process({"sleep", "0.3"}, 10, nullptr).ok()); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::thread second([] { CHECK(run_process({"sleep", "0.8"}, 10, nullptr).ok()); });
  first.join();
  CHECK_FALSE(test_handler_installed(SIGINT));  // the second child is still waited on
  second.join();
  CHECK(test_handler_installed(SIGINT));
  CHECK(test_handler_installed(SIGTERM));
}

TEST_CASE("children started at the same moment do not hold each other's output open") {
  // Sixteen threads start at once, as the silent-host probe does: half run `true`, half `sleep 1`.
  // A pipe inherited by a sleeping sibling (forked while the pipe's write end was still open in
  // us) would keep the `true` call waiting for the sibling: every `true` must return at once.
  constexpr int kThreads = 16;
  double slowest_true_s = 0;
  for (int round = 0; round < 3; ++round) {
    std::atomic<int> ready{0};
    std::vector<double> took_s(kThreads, 0);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i)
      threads.emplace_back([&, i] {
        ready.fetch_add(1);
        while (ready.load() < kThreads) std::this_thread::yield();
        auto t0 = std::chrono::steady_clock::now();
        auto r = i % 2 ? run_process({"sleep", "1"}, 10, nullptr) : run_process({"true"}, 10, nullptr);
        took_s[i] = seconds_since(t0);
        CHECK(r.ok());
      });
    for (auto& t : threads) t.join();
    for (int i = 0; i < kThreads; i += 2) slowest_true_s = std::max(slowest_true_s, took_s[i]);
  }
  CHECK(slowest_true_s < 0.9);
}
