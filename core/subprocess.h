// Running a child process from an argv vector (never a shell string), with a deadline, and
// passing a Ctrl-C on to it. ProcessRunner is the seam: code that launches programs (triage's
// mpirun launches) takes one, tests give a fake that answers scripted results.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/result.h"

namespace fabdiag {

/// What a finished (or killed) child left.
struct ProcessResult {
  int exit_code = -1;        ///< Exit status, or 128 + signal when killed by a signal.
  bool timed_out = false;    ///< The deadline passed and the child's process group was killed.
  int interrupted_by = 0;    ///< SIGINT/SIGTERM that reached us while waiting (child group stopped), else 0.
  std::string stdout_text;   ///< Everything the child wrote to stdout.
  std::string stderr_tail;   ///< The last 64 KiB the child wrote to stderr.
};

/// Receives each stderr (or stdout) line of a child (without the newline) as it arrives; may be
/// empty.
using StderrLineSink = std::function<void(const std::string& line)>;

/// Runs argv[0] (looked up in PATH) with `argv` in its own process group. stdout is captured
/// (and each of its lines passed to `on_stdout_line` as it arrives, when given: a child's
/// checkpoints); each stderr line is passed to `on_stderr_line` as it arrives (for live
/// progress) and kept in stderr_tail. After `timeout_s` seconds (<= 0: no deadline) the group gets SIGTERM, then
/// SIGKILL 10 s later (time for mpirun to stop its remote daemons).
///
/// Interrupts: while at least one child runs, SIGINT and SIGTERM are caught (installed when the
/// first of several concurrent calls starts, the previous handlers restored when the last one
/// ends); a signal that arrives is passed on to every child running at that moment and to any
/// started before the last one ends, each reporting it in interrupted_by. Thread-safe: any
/// number of calls may run at once (their pipes are close-on-exec, so one child never holds
/// another's output open). Errors: kInvalidArgument for an empty argv, kNotFound when the
/// program does not exist, kIo when pipes or fork fail.
Result<ProcessResult> run_process(const std::vector<std::string>& argv, double timeout_s,
                                  const StderrLineSink& on_stderr_line,
                                  const StderrLineSink& on_stdout_line = nullptr);

/// Starts programs and waits for them: the seam for code that runs other tools.
class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  /// Runs `argv` under the deadline `timeout_s` (seconds, <= 0: none), passing stderr lines to
  /// `on_stderr_line` and stdout lines to `on_stdout_line` (either may be empty); the contract
  /// and errors of run_process(). Must be thread-safe.
  virtual Result<ProcessResult> run(const std::vector<std::string>& argv, double timeout_s,
                                    const StderrLineSink& on_stderr_line,
                                    const StderrLineSink& on_stdout_line) const = 0;
};

/// The ProcessRunner that forks and execs (run_process). Lives for the whole program.
const ProcessRunner& system_process_runner();

}  // namespace fabdiag
