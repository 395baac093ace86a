// What a long command (bench, pairwise, triage) keeps ready so that Ctrl-C, SIGTERM (mpirun
// stopping its ranks), a deadline or a failed step still delivers the steps that finished,
// marked partial (core/run_cut.h), and --checkpoint keeps them on disk while the run goes on.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <mutex>
#include <string>

#include "cmd/common.h"
#include "core/stop_watcher.h"

namespace fabdiag::cmd {

/// Where a run stands: what a cut delivers now.
struct RunState {
  Envelope env;         ///< The finished steps as a result: params, data so far, findings, errors.
  Document doc;         ///< The same for table and Markdown.
  std::string during;   ///< The step now running ("size 4M of all_reduce (7 of 14)"); empty: none.
  std::string not_run;  ///< What has not started ("sizes 8M..64M of all_reduce"); empty: nothing.
};

/// How a run delivers.
struct PartialRunOptions {
  std::string checkpoint;  ///< --checkpoint FILE: every state written there atomically as JSON.
  double deadline_s = 0;   ///< --timeout: seconds before the run is cut; <= 0: none.
  /// triage --worker: every state, and the cut, as one JSON line on stdout for the launcher
  /// (render_json_line) instead of --format/-o and --checkpoint.
  bool stream = false;
};

/// Owns the stop watcher of one run, on the rank that reports (rank 0). On SIGINT/SIGTERM or at
/// the deadline it writes the last published state, cut (partial: true, cut, one errors[]
/// entry), to stdout or -o in the chosen format and to --checkpoint, then ends the process with
/// 128 + signal (130 for SIGINT) or 4 for the deadline. Under an MPI launcher it waits 0.25 s
/// after writing stdout before it exits, so mpirun forwards the text before it tears the job
/// down (it kills a rank 1 s after SIGTERM: odls_base_sigkill_timeout).
class PartialRun {
 public:
  PartialRun(const GlobalOptions& g, PartialRunOptions o);
  ~PartialRun();
  PartialRun(const PartialRun&) = delete;
  PartialRun& operator=(const PartialRun&) = delete;

  /// Before the first step and after each: `s` is what a cut delivers from now on; written to
  /// --checkpoint (cut reason "running: checkpoint", so a kill -9 leaves it), or streamed. A
  /// checkpoint that cannot be written is reported on stderr once and added to the final result.
  void publish(RunState s);

  /// The run ended with `final_env`: stops watching (blocks for good when a cut is being
  /// delivered: the process ends there), writes it to --checkpoint, and adds a failed
  /// checkpoint write to its errors[]. The caller then emits it.
  void finish(Envelope& final_env);

  /// A step failed (an MPI error on rank 0): waits up to 0.3 s for a signal that explains it (a
  /// peer killed by the same Ctrl-C shows first), then delivers the last state cut by that
  /// signal (never returns) or by `e` (returns kExitPartial; the caller aborts the job).
  int fail(const Error& e);

 private:
  static void deliver_at_exit();  // std::atexit hook: a signal pending when something calls exit()
  void deliver(ErrorCode code, const std::string& reason);  // mutex_ held
  void write_checkpoint(const Envelope& env);               // mutex_ held

  const GlobalOptions& g_;
  PartialRunOptions o_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  RunState state_;
  bool finished_ = false;
  std::string checkpoint_error_;
  std::unique_ptr<StopWatcher> watcher_;  // last: watches once everything above is ready
};

/// The state a run delivers before its first step (MPI start-up): `base` (params, no data),
/// a document titled `title` that says nothing finished, during = "start-up (MPI), before the
/// first step", not_run = `not_run`.
RunState startup_state(const Envelope& base, const std::string& title, const std::string& not_run);

/// Checks -o and --checkpoint before a long run starts (core check_output_path), on the rank
/// the MPI launcher numbers 0 only (the one that writes them). Returns kExitUsage after
/// printing the reason, or nullopt when both can be written.
std::optional<int> refuse_unwritable_outputs(const GlobalOptions& g, const std::string& checkpoint);

}  // namespace fabdiag::cmd
