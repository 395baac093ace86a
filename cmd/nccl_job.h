// What the MPI-launched subcommands share for `--backend nccl` with one rank per GPU (bench
// without -g under mpirun/srun, pairwise, triage): opening the NCCL communicator over the MPI
// job (perf/nccl_world.h), reporting a start-up failure once with exit 3, and the NCCL facts
// recorded in `params`.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "core/environment.h"
#include "perf/comm.h"
#include "perf/nccl_world.h"

namespace fabdiag::cmd {

/// Opens the NcclWorld over `session`'s world. On failure prints "NCCL backend cannot run here:
/// <reason naming the rank and host>" (once, on rank 0, when every rank failed the same
/// checks; on the failing rank when only its ncclCommInitRank failed, and then aborts the job
/// with exit 3 so the other ranks do not wait in theirs) and returns nullptr; the caller exits
/// with kExitMissingCapability. `device` >= 0: that CUDA device on every rank (NcclWorld::open).
std::unique_ptr<perf::NcclWorld> open_nccl_world_or_report(perf::MpiSession& session, int device = -1);

/// params of a run on `world`: "launch": "mpi, one rank per GPU", "nccl_version" ("2.28.9"),
/// "nccl_library", "nccl_split" (perf::NcclWorld::split_method), "gpu" (rank 0's device) and
/// "nccl_env" (nccl_environment_params of rank 0's environment).
void add_nccl_world_params(nlohmann::json& params, const perf::NcclWorld& world);

/// The NCCL settings that decide transport, GPUDirect and algorithm which are set in `env`
/// (NCCL_IB_HCA, NCCL_SOCKET_IFNAME, NCCL_NET_GDR_LEVEL, NCCL_ALGO, NCCL_PROTO,
/// NCCL_IB_GID_INDEX, NCCL_NET, NCCL_P2P_LEVEL, ... and CUDA_VISIBLE_DEVICES), as an object
/// name -> value; unset ones are left out.
nlohmann::json nccl_environment_params(const Environment& env);

/// "2.28.9" for 22809 (NCCL 2.9+ codes) and "2.8.4" for 2804 (older codes).
std::string nccl_version_text(int code);

}  // namespace fabdiag::cmd
