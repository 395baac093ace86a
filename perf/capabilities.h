// Run-time probes of the GPU-side libraries the `nccl` backend would load (dlopen, so one
// binary serves CPU-only and GPU nodes). The MPI probe lives with the MPI adapter (comm.h,
// probe_mpi_capability). Each probe loads the library, asks its version and unloads it.
#pragma once

#include <string>
#include <vector>

#include "core/capability.h"
#include "core/environment.h"

namespace fabdiag::perf {

/// Where libnccl is looked for, in order: the loader's search path ("libnccl.so.2",
/// "libnccl.so"), $NCCL_HOME/lib, $CUDA_HOME/lib64 and /usr/local/cuda/lib64; the variables
/// come from `env` (unset or empty ones add nothing).
std::vector<std::string> nccl_library_candidates(const Environment& env = process_environment());
/// Same for libcudart (libcudart.so, .so.13, .so.12, .so.11): $CUDA_HOME/lib64, then
/// /usr/local/cuda/lib64.
std::vector<std::string> cudart_library_candidates(const Environment& env = process_environment());

/// NCCL: dlopen + ncclGetVersion (2.9+: major*10000 + minor*100 + patch; older:
/// major*1000 + minor*100 + patch). compiled = the NCCL backend of `bench` is in this build
/// (the headers were found at configure time); when it is not, why_not says so even when the
/// library loads (version and path are still reported in version/detail). Side effects: none
/// beyond loading the library.
Capability probe_nccl_capability(const std::vector<std::string>& candidates =
                                     nccl_library_candidates());

/// CUDA runtime: dlopen + cudaRuntimeGetVersion (13000 -> "13.0") + cudaGetDeviceCount (count
/// initialised to 0 first: without a driver it may stay unwritten). Return codes 35
/// (insufficient driver), 100 (no device) and 34 (stub library) mean "no GPU or driver here":
/// loaded = true (the runtime answered), detail "0 GPUs", why_not explains. Cost: initialises
/// the CUDA runtime when a driver is present (may take a second).
Capability probe_cuda_runtime_capability(const std::vector<std::string>& candidates =
                                             cudart_library_candidates());

/// `nccl` with why_not saying why the compiled backend cannot run on this host when the CUDA
/// runtime probe `cuda` found no usable GPU ("bench --backend nccl is compiled but cannot run
/// here: libcudart: no GPU or driver here: ..."); unchanged otherwise. For `fabdiag doctor`.
Capability with_nccl_backend_verdict(Capability nccl, const Capability& cuda);

/// One sentence for a `--backend nccl` this build cannot run: without the headers, why not on
/// this host either, from the two probes ("NCCL backend not available in this build/here:
/// ..."); with them (only `bench -g N` is built), which commands the backend does not cover.
std::string nccl_backend_unavailable_reason();

}  // namespace fabdiag::perf
