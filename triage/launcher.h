// `fabdiag triage --hostfile F`: compose the mpirun command (an argv vector, never a shell
// string), run it under a deadline, and turn mpirun's failure text into an error naming the host.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"

namespace fabdiag::triage {

/// Host names of an Open MPI / MPICH hostfile ("node01 slots=8", "node02:8", comments with #).
/// Errors: kNotFound/kPermission naming the file; kParse when it names no host.
Result<std::vector<std::string>> read_hostfile(const std::string& path);

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
};

/// mpirun argv: [mpirun, --hostfile, F, -np, N, --map-by, node, <mpirun_args...>, self_exe,
/// <worker_args...>]. --hostfile/-np/--map-by are left out when mpirun_args already set them.
std::vector<std::string> compose_mpirun_argv(const LaunchSpec& spec);

/// Reads mpirun's stderr after a failure and names the host (and rank) that failed when the
/// text says so ("... rank 3 with PID 0 on node node04 exited on signal 9", "ORTE was unable to
/// reliably start one or more daemons ... node node05", "ssh: connect to host X"). Returns an
/// kUnavailable Error whose source is the host when found, else one quoting the last lines.
Error diagnose_launch_failure(const std::string& stderr_text, int exit_code, bool timed_out,
                              double timeout_s, const std::string& last_progress);

/// After a launch that timed out or failed without naming a host: starts `fabdiag --version`
/// on each host alone (mpirun -np 1 --host H, the same flags, 16 at a time) and returns the
/// hosts where that did not succeed within `timeout_s`, each with a reason. Cost: one short
/// mpirun per host.
std::vector<std::pair<std::string, std::string>> find_silent_hosts(const LaunchSpec& spec,
                                                                   const std::vector<std::string>& hosts,
                                                                   double timeout_s);

}  // namespace fabdiag::triage
