#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

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
