// What the MPI-launched subcommands (bench, pairwise) share: opening MPI, progress from rank 0
// only, and failing without leaving the other ranks waiting.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/partial_run.h"
#include "perf/comm.h"

namespace fabdiag::cmd {

/// --backend of pairwise and triage: nullopt for "mpi" and for "nccl" in a build with the NCCL
/// backend; for "nccl" in a build without it, prints perf::nccl_backend_unavailable_reason()
/// and returns kExitMissingCapability.
std::optional<int> refuse_unavailable_backend(const std::string& backend);

/// Opens MPI (perf::MpiSession::open). On failure prints the reason and returns nullptr; the
/// caller exits with kExitMissingCapability.
/// perf::MpiSession::open() with SIGINT and SIGTERM blocked in the calling thread while MPI
/// starts: the orted daemon a singleton forks inherits the block, so a Ctrl-C during start-up
/// reaches the run's stop watcher (a thread started before) instead of killing the daemon and
/// failing MPI_Init. A signal that arrives with no watcher is delivered once MPI is up.
Result<std::unique_ptr<perf::MpiSession>> open_mpi_shielded();

std::unique_ptr<perf::MpiSession> open_mpi_or_report();

/// The rank an MPI launcher gave this process before MPI starts (OMPI_COMM_WORLD_RANK,
/// PMIX_RANK, PMI_RANK or SLURM_PROCID, the first set); nullopt when none is set (not launched
/// by mpirun or srun).
std::optional<int> launcher_rank();

/// Usage errors found before MPI starts: every rank of an mpirun job finds the same one, so only
/// the rank the launcher numbers 0 (launcher_rank(); not launched = rank 0) prints
/// "fabdiag: error: <text>". Returns kExitUsage.
int usage_error_once(const std::string& text);

/// stderr_progress(g) on rank 0, a sink that drops everything on other ranks.
Progress rank0_progress(const GlobalOptions& g, const perf::Comm& comm);

/// Reports `e` from this rank on stderr and returns the exit code: kExitUsage for
/// kInvalidArgument (every rank sees the same options, so all return it together). Otherwise,
/// on the reporting rank (`run` given), the last finished steps are delivered cut by `e`
/// (PartialRun::fail) and the exit code is kExitPartial; on another rank it is kExitPartial for
/// a failed call (kUnavailable: MPI, NCCL, CUDA) and kExitInternal otherwise.
/// The job is then aborted with that code when it has more than one rank, since the other
/// ranks may be blocked in a collective.
int fail_mpi_run(perf::MpiSession& session, const Error& e, PartialRun* run = nullptr);

/// Host names without repeats, in first-seen (rank) order: the envelope's `hosts`.
std::vector<std::string> distinct_hosts(const std::vector<std::string>& per_rank);

}  // namespace fabdiag::cmd
