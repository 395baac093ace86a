// `fabdiag triage --hostfile F`: compose the mpirun command (an argv vector, never a shell
// string), run it under a deadline through a ProcessRunner, and turn mpirun's failure text (or
// silence) into an error naming the host.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/envelope.h"
#include "core/progress.h"
#include "core/result.h"
#include "core/subprocess.h"
#include "triage/hostfile.h"
#include "triage/launch_failure.h"

namespace fabdiag::triage {

/// Extra mpirun arguments from a file, one argument per line (as scripts/emucluster.sh writes
/// STATE/mpirun-args); blank lines and '#' comments skipped. Errors name the file.
Result<std::vector<std::string>> read_args_file(const std::string& path);

/// What to launch.
struct LaunchSpec {
  std::string mpirun = "mpirun";           ///< Launcher program (PATH lookup).
  std::string hostfile;                    ///< Passed as --hostfile.
  int nodes = 0;                           ///< -np (one rank per node).
  std::vector<std::string> mpirun_args;    ///< Site or emulated-cluster flags, verbatim.
  std::string self_exe;                    ///< This fabdiag binary (absolute path).
  std::vector<std::string> worker_args;    ///< Arguments after `fabdiag` for each rank.
  /// Rank 0's progress lines that LaunchOutcome::last_progress keeps (the prefix stripped).
  std::string progress_prefix = "fabdiag: triage: ";
};

/// The LaunchSpec of a `--hostfile` launch before its worker arguments: `mpirun`, `hostfile`,
/// one rank per node (`nodes`), the site's flags (one per line of `args_file` when given, then
/// `args`), `--allow-run-as-root` added when running as root (Open MPI refuses root without it,
/// and its refusal reads like a host failure), and this binary (/proc/self/exe) as the worker.
/// Errors: an unreadable `args_file` (read_args_file()).
Result<LaunchSpec> base_launch_spec(const std::string& mpirun, const std::string& hostfile, size_t nodes,
                                    const std::string& args_file, const std::vector<std::string>& args);

/// mpirun argv: [mpirun, --hostfile, F, -np, N, --map-by, node, <mpirun_args...>, self_exe,
/// <worker_args...>]. --hostfile/-np/--map-by are left out when mpirun_args already set them.
std::vector<std::string> compose_mpirun_argv(const LaunchSpec& spec);

/// The hosts a probe found silent, each with the reason ("no process could be started there
/// within 30 s"), in hostfile order.
struct SilentHosts {
  std::vector<std::pair<std::string, std::string>> hosts;
  int interrupted_by = 0;  ///< SIGINT/SIGTERM stopped the probe; `hosts` is then incomplete.
};

/// After a launch that timed out or failed without naming a host: starts `fabdiag --version`
/// on each host alone (mpirun -np 1 --host H, the same flags, 16 at a time) through `runner`
/// and returns the hosts where that did not succeed within `timeout_s`; a host that failed in
/// a batch is asked once more alone before it is named. Cost: one or two short mpirun per host.
SilentHosts find_silent_hosts(const ProcessRunner& runner, const LaunchSpec& spec,
                              const std::vector<std::string>& hosts, double timeout_s);

/// Where a launch reports while it runs. Both may be empty.
struct LaunchWatch {
  /// Each stderr line of mpirun and the ranks, except Open MPI 4.1's harmless "plm:rsh ...
  /// setpgid" race warning.
  StderrLineSink on_line;
  /// The launcher's own steps ("checking which of the 8 hosts answer").
  Progress progress;
  /// Each result envelope rank 0 streams on stdout as it arrives, one JSON line each: its
  /// checkpoints (partial) after every step, then the whole result (what --checkpoint keeps).
  std::function<void(const Envelope&)> on_result;
};

/// What one launch of the triage job gave.
struct LaunchOutcome {
  /// The last envelope rank 0 streamed on mpirun's stdout: the whole result, or, when the job
  /// was cut (a signal, the deadline, a dead rank), its last checkpoint or its own cut result
  /// (`partial` set). Absent when rank 0 streamed nothing.
  std::optional<Envelope> result;
  int interrupted_by = 0;  ///< SIGINT/SIGTERM stopped mpirun (or the silent-host probe).
  bool timed_out = false;  ///< The deadline stopped mpirun.
  std::string last_progress;  ///< The last "fabdiag: triage: " line of rank 0 (the step it was in).
  /// Why there is no whole result (unless interrupted): diagnose_launch_failure(), and when
  /// that names no host, the silent hosts (the first one as source). Empty message otherwise.
  Error failure;
};

/// Runs compose_mpirun_argv(spec) through `runner` under `timeout_s` seconds (<= 0: none);
/// `hosts` are the hostfile's. Without a whole result (and not interrupted), finds the cause:
/// the host mpirun's text names, else the silent hosts (find_silent_hosts with a deadline of
/// min(30 s, timeout_s)). Errors: the runner's (kNotFound: no such launcher program; kIo).
Result<LaunchOutcome> run_launch(const ProcessRunner& runner, const LaunchSpec& spec,
                                 const std::vector<std::string>& hosts, double timeout_s,
                                 const LaunchWatch& watch);

}  // namespace fabdiag::triage
