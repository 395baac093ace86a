// What went wrong when mpirun could not start (or keep) the ranks of a launch: the first line of
// mpirun's, ssh's, rsh's or the remote shell's stderr that names the cause, and the host it
// concerns. Open MPI wraps the cause in long help texts between "-----" lines ("ORTE was unable
// to reliably start one or more daemons. This usually is caused by: ..."); those are never
// quoted when a line says what happened. The texts matched are those of Open MPI 4.1 (ORTE) and
// 5 (PRRTE) help files, OpenSSH and bash (recorded in tests/triage/launch_failure_test.cpp).
#pragma once

#include <string>
#include <vector>

#include "core/result.h"

namespace fabdiag::triage {

/// The kind of trouble a launch line names.
enum class LaunchCauseKind {
  kRankDied,       ///< "mpirun noticed that process rank 3 with PID 0 on node node04 exited on signal 9 (Killed)."
  kResolve,        ///< "ssh: Could not resolve hostname node07: Name or service not known"
  kConnect,        ///< "ssh: connect to host node05 port 22: No route to host" (refused, timed out, ...)
  kAuth,           ///< "root@node05: Permission denied (publickey)."
  kHostKey,        ///< "Host key for node05 has changed and ...", "Host key verification failed."
  kRemoteShell,    ///< an rsh agent's own error ("emucluster-rsh: node05 is not up (...)")
  kDaemonMissing,  ///< "bash: line 1: orted: command not found" (or prted, or its libraries)
  kDaemonLost,     ///< "ORTE has lost communication with its daemon located on node: hostname: node05"
  kSlots,          ///< "There are not enough slots available in the system to satisfy the 8 slots ..."
  kHostfile,       ///< "Open RTE detected a parse error in the hostfile: ... line number 2 on token 3."
};

/// One cause found in a launch's stderr.
struct LaunchCause {
  LaunchCauseKind kind = LaunchCauseKind::kConnect;
  /// The host the line concerns: the one the line names (ssh's own words, "node node04"), else
  /// a host of the hostfile that appears in the line as a whole word; empty when the line names
  /// none ("Host key verification failed.").
  std::string host;
  /// The line quoted, trimmed; for Open MPI's facts spread over a help text (hostfile, slots,
  /// lost daemon) the lines that carry them, joined by a space.
  std::string line;
  /// kHostfile: "FILE:LINE" when Open MPI names the line, else FILE; empty otherwise.
  std::string hostfile_at;
  /// kRankDied: the rank and signal, for the message ("rank 3 on node04 died (signal 9, Killed)").
  std::string rank_text;
};

/// Every cause in `stderr_text`, in the order the lines came, at most one per host (its first
/// line) and one per kind among lines that name no host. `hosts` are the hostfile's (may be
/// empty). Lines that name nothing (help texts, progress, warnings) are skipped.
std::vector<LaunchCause> find_launch_causes(const std::string& stderr_text, const std::vector<std::string>& hosts);

/// The line to quote when no cause is found: the first line outside Open MPI's "-----" help
/// blocks that is not fabdiag's own progress, else the first line of the first block; empty
/// for an empty text.
std::string first_informative_line(const std::string& stderr_text);

/// Reads mpirun's stderr after a failure (exit_code, or the deadline `timeout_s` when
/// timed_out) and returns the Error to report:
/// - a cause naming a host: kUnavailable (kTimeout when timed out) with source = that host and
///   the message quoting the cause line ("the launch failed on node07: 'ssh: Could not resolve
///   hostname node07: Name or service not known'"), other failing hosts after "; also";
/// - the hostfile or the slot count (kHostfile, kSlots): kInvalidArgument with source =
///   hostfile_at (or `hostfile`), never a host;
/// - a cause without a host, or none: source "mpirun" (the caller then probes each host), the
///   message quoting the cause line or first_informative_line().
/// `last_progress` (rank 0's last step) is added when known.
Error diagnose_launch_failure(const std::string& stderr_text, int exit_code, bool timed_out, double timeout_s,
                              const std::string& last_progress, const std::vector<std::string>& hosts = {},
                              const std::string& hostfile = {});

}  // namespace fabdiag::triage
