#include "cmd/mpi_job.h"

#include <pthread.h>

#include <climits>
#include <csignal>
#include <cstdlib>

#include <algorithm>

#include "core/environment.h"
#include "core/exit_codes.h"
#include "core/text.h"
#include "perf/capabilities.h"
#include "perf/nccl_bench.h"

namespace fabdiag::cmd {

std::optional<int> refuse_unavailable_backend(const std::string& backend) {
  if (backend != "nccl" || perf::nccl_backend_compiled()) return std::nullopt;
  print_error(perf::nccl_backend_unavailable_reason());
  return kExitMissingCapability;
}

Result<std::unique_ptr<perf::MpiSession>> open_mpi_shielded() {
  // Ctrl-C reaches the whole process group, and without this the orted daemon that MPI_Init
  // forks for a singleton dies of it, so MPI_Init fails and Open MPI exits(1) before the run's
  // watcher can deliver the cut. With SIGINT/SIGTERM blocked in this thread while MPI starts,
  // the daemon inherits the block (it ends when we do), and the signal goes to the watcher
  // thread, started before, which delivers the partial result.
  //
  // The daemon is not needed at all: a singleton (fabdiag run without mpirun/srun) never spawns,
  // so Open MPI's ess_singleton_isolated keeps it from starting one (also ~0.3 s faster). Under
  // a launcher the singleton component is not used and the variable has no effect; a value the
  // user set wins.
  setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
  sigset_t stop, old;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, &old);
  auto s = perf::MpiSession::open();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return s;
}

std::unique_ptr<perf::MpiSession> open_mpi_or_report() {
  auto s = open_mpi_shielded();
  if (!s) {
    print_error("cannot start MPI: " + s.error().to_string());
    return nullptr;
  }
  return std::move(*s);
}

std::optional<int> launcher_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    if (auto v = process_environment().get_nonempty(var)) {
      auto rank = parse_i64(*v);
      if (!rank || *rank < 0 || *rank > INT_MAX) return -1;  // set but not a rank: a launched rank, not rank 0
      return static_cast<int>(*rank);
    }
  }
  return std::nullopt;
}

int usage_error_once(const std::string& text) {
  if (launcher_rank().value_or(0) == 0) print_error(text);
  return kExitUsage;
}

Progress rank0_progress(const GlobalOptions& g, const perf::Comm& comm) {
  return comm.rank() == 0 ? stderr_progress(g) : no_progress();
}

int fail_mpi_run(perf::MpiSession& session, const Error& e, PartialRun* run) {
  perf::Comm& comm = session.world();
  if (e.code == ErrorCode::kInvalidArgument) {
    if (comm.rank() == 0) print_error(e.to_string());
    return kExitUsage;
  }
  // Errors of perf/ already name the rank as their source ("rank 0 (node01): ..."): once.
  const std::string who = comm.describe_rank(comm.rank());
  // ("rank 1 (node02) GPU 1: ..." from the NCCL backend starts with it too).
  print_error(e.source.rfind(who, 0) == 0 ? e.to_string() : who + ": " + e.to_string());
  // Another rank's failed step (an MPI or NCCL call: kUnavailable) is a failed step of the job,
  // exit 4 like rank 0's; anything else there is unexpected.
  const int rc = run ? run->fail(e) : e.code == ErrorCode::kUnavailable ? kExitPartial : kExitInternal;
  if (comm.size() > 1) session.abort(rc);
  return rc;
}

std::vector<std::string> distinct_hosts(const std::vector<std::string>& per_rank) {
  std::vector<std::string> out;
  for (const auto& h : per_rank)
    if (std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
  return out;
}

}  // namespace fabdiag::cmd
