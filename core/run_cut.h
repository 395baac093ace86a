// A run cut before its end: why it stopped (a signal, a deadline, a failed step), the text that
// says so, the exit code, and the marking of the result envelope (`partial`, `cut` and one
// errors[] entry), so every command reports a cut the same way (docs/SCHEMA.md#partial-results).
#pragma once

#include <string>

#include "core/envelope.h"
#include "core/result.h"

namespace fabdiag {

/// Why a run stopped early: a caught signal or a passed deadline (exactly one is set).
struct StopCause {
  int signal = 0;         ///< SIGINT/SIGTERM, else 0.
  double deadline_s = 0;  ///< > 0: the deadline (seconds from the start) that passed.
};

/// "interrupted by SIGINT", "deadline of 600 s (--timeout) passed".
std::string describe_stop(const StopCause& cause);

/// The exit code of a stopped run: 128 + signal (130 for SIGINT, 143 for SIGTERM: the shell's
/// convention, docs in README "Exit codes"), 4 (kExitPartial) for a deadline.
int stop_exit_code(const StopCause& cause);

/// The error code of a stopped run's errors[] entry: kInterrupted for a signal, kTimeout for a
/// deadline.
ErrorCode stop_error_code(const StopCause& cause);

/// One line: "<reason> during <during>; not run: <not_run>" (the empty parts left out).
std::string cut_text(const Cut& cut);

/// Marks `env` as cut: partial = true, cut = `cut`, and one errors[] entry {code, cut_text(cut),
/// source "fabdiag"} that replaces the entry of an earlier cut (a launcher re-marks a rank's
/// result with what it knows), so there is never more than one.
void mark_cut(Envelope& env, ErrorCode code, Cut cut);

}  // namespace fabdiag
