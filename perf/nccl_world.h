// One rank per GPU under mpirun/srun, as nccl-tests runs across nodes: every process of the MPI
// job is one rank of an NCCL communicator. Rank 0 makes the unique id (ncclGetUniqueId), MPI
// broadcasts it, every rank picks the GPU of its local rank and calls ncclCommInitRank. The
// result is a perf::Comm whose collectives are NCCL's on device memory and whose host-side
// exchanges (per-rank times, strings, triage steps) go over MPI, so `bench`, `pairwise` and
// `triage` run unchanged on it (pair rounds are ncclSend/ncclRecv between the paired ranks of this
// one communicator: no second launch, no communicator per pair). Implemented in perf/nccl/nccl_world.cpp; a build
// without the NCCL headers answers kUnsupported (perf/nccl_bench_unavailable.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/environment.h"
#include "core/result.h"
#include "perf/comm.h"

namespace fabdiag::perf {

/// The local rank (index among the ranks of this host) a launcher gave this process:
/// OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID or PMI_LOCAL_RANK, the first set
/// and numeric; else the number of lower ranks whose host name (hosts[i]) is this rank's (what
/// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) gives on one host).
int local_rank_of(const Environment& env, const std::vector<std::string>& hosts, int rank);

/// This rank of the NCCL communicator over every rank of an MPI job.
class NcclWorld {
 public:
  /// Collective over `host` (MPI_COMM_WORLD; must outlive the NcclWorld). Loads the libraries,
  /// checks that GPU local_rank_of() exists, then, once every rank passed these checks (the
  /// outcome is gathered, so all ranks fail together, with the first failing rank named),
  /// makes the unique id on rank 0, broadcasts it and calls ncclCommInitRank on that GPU.
  /// Errors: kUnsupported naming the rank, host and library or call. `every_rank_failed`
  /// (may be null) tells whether all ranks return the error (checks before the init) or only
  /// this one (ncclCommInitRank failed here: the others may be stuck in it, so the caller
  /// aborts the job).
  /// `device` >= 0: this CUDA device instead of the local rank's (`pairwise --rail N`: GPU N).
  static Result<std::unique_ptr<NcclWorld>> open(Comm& host, const Environment& env, bool* every_rank_failed,
                                                 int device = -1);
  ~NcclWorld();
  NcclWorld(const NcclWorld&) = delete;
  NcclWorld& operator=(const NcclWorld&) = delete;

  /// The communicator over all ranks (rank and hosts as the host Comm's).
  Comm& comm();
  /// CUDA device this rank drives.
  int device() const;
  /// "ncclCommSplit" when the library has it (NCCL 2.18+), else "ncclCommInitRank": how a
  /// sub-group communicator would be made with this library (recorded in params).
  std::string split_method() const;
  /// NCCL version code of the library (22809 for 2.28.9) and its file.
  int nccl_version_code() const;
  std::string nccl_library_path() const;

 private:
  NcclWorld();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fabdiag::perf
