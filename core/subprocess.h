// Running a child process from an argv vector (never a shell string), with a deadline.
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

/// Runs argv[0] (looked up in PATH) with `argv` in its own process group. stdout is captured;
/// each stderr line is passed to `on_stderr_line` as it arrives (for live progress) and kept in
/// stderr_tail. After `timeout_s` seconds the group gets SIGTERM, then SIGKILL 10 s later (time
/// for mpirun to stop its remote daemons). A SIGINT or SIGTERM sent to us while we wait (Ctrl-C)
/// is passed on the same way instead of leaving the child running; see interrupted_by.
/// Errors: kNotFound when the program does not exist, kIo when pipes or fork fail.
Result<ProcessResult> run_process(const std::vector<std::string>& argv, double timeout_s,
                                  const std::function<void(const std::string&)>& on_stderr_line);

}  // namespace fabdiag
