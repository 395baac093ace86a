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
  std::string stdout_text;   ///< Everything the child wrote to stdout.
  std::string stderr_tail;   ///< The last 64 KiB the child wrote to stderr.
};

/// Runs argv[0] (looked up in PATH) with `argv` in its own process group. stdout is captured;
/// each stderr line is passed to `on_stderr_line` as it arrives (for live progress) and kept in
/// stderr_tail. After `timeout_s` seconds the group gets SIGTERM, then SIGKILL 5 s later.
/// Errors: kNotFound when the program does not exist, kIo when pipes or fork fail.
Result<ProcessResult> run_process(const std::vector<std::string>& argv, double timeout_s,
                                  const std::function<void(const std::string&)>& on_stderr_line);

}  // namespace fabdiag
