// `fabdiag bench --backend nccl`: the collective benchmark (collective_bench.h) on GPUs through
// NCCL, in the single-process mode of nccl-tests (`-g N`): one process drives N local GPUs,
// communicator from ncclCommInitAll, no MPI. The backend is compiled only when CMake found the
// NCCL and CUDA runtime headers (FABDIAG_HAVE_NCCL_HEADERS); libnccl.so.2 and libcudart.so are
// loaded at run time (perf/nccl/nccl_api.h), so the binary still runs where they are absent.
#pragma once

#include "core/environment.h"
#include "core/progress.h"
#include "core/result.h"
#include "perf/collective_bench.h"

namespace fabdiag::perf {

/// What `bench --backend nccl` runs.
struct NcclBenchOptions {
  BenchOptions bench;  ///< Collective, dtype, sweep, warm-up and iteration counts, root.
  int gpus = 1;        ///< -g: local GPUs (CUDA devices 0..gpus-1), one rank each.
};

/// Largest -g: NCCL's single-process mode is for the GPUs of one host.
inline constexpr int kMaxNcclLocalGpus = 64;

/// True when this build contains the NCCL backend (the headers were found at configure time).
bool nccl_backend_compiled();

/// Runs the sweep on GPUs 0..gpus-1: loads the libraries (libraries chosen by $FABDIAG_NCCL_LIB
/// and $FABDIAG_CUDART_LIB in `env`, see load_nccl_api), checks that enough GPUs are visible,
/// ncclCommInitAll, then one thread per GPU runs run_collective_bench on its NcclComm:
/// device buffers, warm-up, a timed loop between two CUDA events on the rank's stream, the
/// data check after a copy back. Per rank time = event time / iters; the row's time is the max
/// over the GPUs; busbw uses the factors of bandwidth.h at n = gpus. Progress and `on_step`
/// come from rank 0's thread. The result's backend is "nccl", hosts = this host once per GPU.
/// Errors: kUnsupported when the backend cannot start here (not compiled, a library or symbol
/// missing, no CUDA device or fewer than `gpus`, ncclCommInitAll failing), naming the library
/// and call; kInvalidArgument for bad options; kUnavailable for a CUDA or NCCL call failing
/// during the sweep (naming the rank and GPU). Cost: allocates send + receive buffers of the
/// largest size on every GPU and a host copy of each; moves real data between the GPUs.
Result<BenchResult> run_nccl_bench(const NcclBenchOptions& options, const Progress& progress,
                                   const BenchStepSink& on_step = {},
                                   const Environment& env = process_environment());

}  // namespace fabdiag::perf
