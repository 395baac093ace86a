// Test helper: a ProcessRunner that starts nothing. It answers each argv with scripted results
// (a queue per argv; the last answer repeats), feeds the scripted stderr and stdout to the line sinks as a
// real child's would arrive, and records every call, so tests of code that launches programs
// (triage's mpirun launches, the silent-host probe) run without sh, mpirun or a network.
#pragma once

#include <deque>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "core/subprocess.h"

namespace fabdiag::testing {

/// One call the fake saw.
struct ProcessCall {
  std::vector<std::string> argv;
  double timeout_s = 0;
};

class FakeProcessRunner final : public ProcessRunner {
 public:
  /// Answers `argv` with `result`; several answers for the same argv are given in order, the
  /// last one repeating.
  void script(const std::vector<std::string>& argv, Result<ProcessResult> result) {
    std::lock_guard<std::mutex> lock(mutex_);
    scripts_[argv].push_back(std::move(result));
  }
  /// Answers every argv without a script of its own (none: such a call gets kNotFound).
  void script_default(Result<ProcessResult> result) {
    std::lock_guard<std::mutex> lock(mutex_);
    default_.clear();
    default_.push_back(std::move(result));
  }

  Result<ProcessResult> run(const std::vector<std::string>& argv, double timeout_s,
                            const StderrLineSink& on_stderr_line,
                            const StderrLineSink& on_stdout_line) const override {
    Result<ProcessResult> answer = make_error(ErrorCode::kNotFound, "no script for this argv", argv.empty() ? "" : argv[0]);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      calls_.push_back({argv, timeout_s});
      auto it = scripts_.find(argv);
      auto& queue = it != scripts_.end() ? it->second : default_;
      if (!queue.empty()) {
        answer = queue.front();
        if (queue.size() > 1) queue.pop_front();
      }
    }
    if (answer.ok() && on_stderr_line) {
      std::istringstream in(answer->stderr_tail);
      std::string line;
      while (std::getline(in, line)) on_stderr_line(line);
    }
    if (answer.ok() && on_stdout_line) {
      std::istringstream in(answer->stdout_text);
      std::string line;
      while (std::getline(in, line)) on_stdout_line(line);
    }
    return answer;
  }

  /// Every call so far, in the order they were made (concurrent calls in the order they took
  /// the lock).
  std::vector<ProcessCall> calls() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return calls_;
  }
  /// How many calls had exactly `argv`.
  size_t count(const std::vector<std::string>& argv) const {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t n = 0;
    for (const auto& c : calls_) n += c.argv == argv;
    return n;
  }

 private:
  mutable std::mutex mutex_;
  mutable std::map<std::vector<std::string>, std::deque<Result<ProcessResult>>> scripts_;
  mutable std::deque<Result<ProcessResult>> default_;
  mutable std::vector<ProcessCall> calls_;
};

/// A finished child: exit code, stdout and stderr as given.
inline ProcessResult exited(int exit_code, std::string stdout_text = {}, std::string stderr_text = {}) {
  ProcessResult r;
  r.exit_code = exit_code;
  r.stdout_text = std::move(stdout_text);
  r.stderr_tail = std::move(stderr_text);
  return r;
}

/// A child killed at its deadline (SIGTERM to its group: exit 143), after writing the given text.
inline ProcessResult timed_out(std::string stderr_text = {}, std::string stdout_text = {}) {
  ProcessResult r = exited(143, std::move(stdout_text), std::move(stderr_text));
  r.timed_out = true;
  return r;
}

/// A child stopped because `sig` (SIGINT/SIGTERM) reached us, after writing `stdout_text`.
inline ProcessResult interrupted(int sig, std::string stdout_text = {}) {
  ProcessResult r = exited(143, std::move(stdout_text));
  r.interrupted_by = sig;
  return r;
}

}  // namespace fabdiag::testing
