// The NCCL backend's view of libnccl.so.2 and libcudart.so, loaded at run time (dlopen), so one
// binary serves CPU-only and GPU nodes. Compiled only when CMake found nccl.h and
// cuda_runtime_api.h (FABDIAG_HAVE_NCCL_HEADERS): the function pointer types come from those
// headers, so a signature the build disagrees with fails to compile rather than at run time.
// This header is private to perf/nccl/ (the adapter); the rest of the tree sees nccl_bench.h.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <memory>
#include <string>

#include "core/environment.h"
#include "core/result.h"

namespace fabdiag::perf {

#if defined(NCCL_VERSION_CODE) && defined(NCCL_VERSION) && NCCL_VERSION_CODE >= NCCL_VERSION(2, 14, 0)
using NcclSplitConfig = ncclConfig_t;  ///< ncclCommSplit's config type (NCCL 2.14+ headers).
#else
using NcclSplitConfig = void;  ///< Headers before ncclConfig_t.
#endif

/// Entry points of the CUDA runtime, resolved with dlvsym(name, "libcudart.so.<major>") where
/// <major> is the CUDA major version of the headers this binary was built with (CUDART_VERSION).
struct CudartApi {
  std::string path;  ///< The file that loaded (dladdr of a resolved symbol).
  int version = 0;   ///< cudaRuntimeGetVersion: 13000 for 13.0.
  decltype(&::cudaRuntimeGetVersion) runtime_get_version = nullptr;
  decltype(&::cudaGetDeviceCount) get_device_count = nullptr;
  decltype(&::cudaSetDevice) set_device = nullptr;
  // cudaMalloc and cudaEventCreate have C++ template overloads in cuda_runtime.h (which nccl.h
  // includes): their C signatures are spelled out.
  cudaError_t (*malloc)(void** ptr, size_t bytes) = nullptr;
  decltype(&::cudaFree) free = nullptr;
  decltype(&::cudaMemcpyAsync) memcpy_async = nullptr;
  decltype(&::cudaStreamCreateWithFlags) stream_create = nullptr;
  decltype(&::cudaStreamDestroy) stream_destroy = nullptr;
  decltype(&::cudaStreamSynchronize) stream_synchronize = nullptr;
  cudaError_t (*event_create)(cudaEvent_t* event) = nullptr;
  decltype(&::cudaEventRecord) event_record = nullptr;
  decltype(&::cudaEventSynchronize) event_synchronize = nullptr;
  decltype(&::cudaEventElapsedTime) event_elapsed_time = nullptr;
  decltype(&::cudaEventDestroy) event_destroy = nullptr;
  decltype(&::cudaGetErrorName) get_error_name = nullptr;
  decltype(&::cudaGetErrorString) get_error_string = nullptr;
  /// Optional (nullptr when the runtime lacks them): the device's name and PCI address for the
  /// nccl-tests table, and CUDA graphs for -G (the rest of the runtime works without them).
  decltype(&::cudaGetDeviceProperties) get_device_properties = nullptr;
  decltype(&::cudaStreamBeginCapture) stream_begin_capture = nullptr;
  decltype(&::cudaStreamEndCapture) stream_end_capture = nullptr;
  /// CUDA 12+ signature (flags); spelled out: cuda_runtime.h overloads it with a template.
  cudaError_t (*graph_instantiate)(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags) = nullptr;
  decltype(&::cudaGraphLaunch) graph_launch = nullptr;
  decltype(&::cudaGraphExecDestroy) graph_exec_destroy = nullptr;
  decltype(&::cudaGraphDestroy) graph_destroy = nullptr;

  /// True when every graph entry point above resolved.
  bool has_graphs() const {
    return stream_begin_capture && stream_end_capture && graph_instantiate && graph_launch &&
           graph_exec_destroy && graph_destroy;
  }

  /// "cudaErrorNoDevice (no CUDA-capable device is detected)" for 100.
  std::string error_text(cudaError_t rc) const;
};

/// Entry points of NCCL (unversioned symbols; ncclGetVersion is checked instead).
struct NcclLibApi {
  std::string path;     ///< The file that loaded.
  int version_code = 0; ///< ncclGetVersion: 22809 for 2.28.9.
  decltype(&::ncclGetVersion) get_version = nullptr;
  decltype(&::ncclGetErrorString) get_error_string = nullptr;
  /// Optional (NCCL 2.13+); typed by hand so that older headers build.
  const char* (*get_last_error)(ncclComm_t comm) = nullptr;
  decltype(&::ncclCommInitAll) comm_init_all = nullptr;
  decltype(&::ncclCommDestroy) comm_destroy = nullptr;
  decltype(&::ncclAllReduce) all_reduce = nullptr;
  decltype(&::ncclAllGather) all_gather = nullptr;
  decltype(&::ncclReduceScatter) reduce_scatter = nullptr;
  /// Optional: nullptr before NCCL 2.28 (then grouped ncclSend/ncclRecv); typed by hand so that
  /// older headers build.
  ncclResult_t (*alltoall)(const void* send, void* recv, size_t count, ncclDataType_t type,
                           ncclComm_t comm, cudaStream_t stream) = nullptr;
  /// Optional: nullptr before NCCL 2.28 (then grouped ncclSend/ncclRecv, as nccl-tests does).
  ncclResult_t (*gather)(const void* send, void* recv, size_t count, ncclDataType_t type, int root,
                         ncclComm_t comm, cudaStream_t stream) = nullptr;
  ncclResult_t (*scatter)(const void* send, void* recv, size_t count, ncclDataType_t type, int root,
                          ncclComm_t comm, cudaStream_t stream) = nullptr;
  decltype(&::ncclBroadcast) broadcast = nullptr;
  decltype(&::ncclReduce) reduce = nullptr;
  decltype(&::ncclSend) send = nullptr;
  decltype(&::ncclRecv) recv = nullptr;
  decltype(&::ncclGroupStart) group_start = nullptr;
  decltype(&::ncclGroupEnd) group_end = nullptr;
  // One rank per process (under mpirun/srun; NCCL 2.4+ has all four).
  decltype(&::ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&::ncclCommInitRank) comm_init_rank = nullptr;
  decltype(&::ncclCommGetAsyncError) comm_get_async_error = nullptr;
  decltype(&::ncclCommAbort) comm_abort = nullptr;
  /// Optional: set only when the library exports ncclCommSplit and is NCCL 2.18 or later
  /// (else sub-groups come from ncclCommInitRank over a new unique id); the config argument is
  /// always nullptr. Typed as nccl.h declares it (a call through another pointer type is
  /// undefined: UBSan's -fsanitize=function flags it), void* with headers older than 2.14.
  ncclResult_t (*comm_split)(ncclComm_t comm, int color, int key, ncclComm_t* newcomm, NcclSplitConfig* config) = nullptr;

  /// "unhandled system error (...)" plus ncclGetLastError(comm) when present and not empty.
  std::string error_text(ncclResult_t rc, ncclComm_t comm = nullptr) const;
};

/// Both libraries. Never unloaded once loaded (an initialised CUDA runtime must stay).
struct NcclApi {
  CudartApi cuda;
  NcclLibApi nccl;
};

/// Loads the CUDA runtime and NCCL. Libraries: $FABDIAG_CUDART_LIB / $FABDIAG_NCCL_LIB when set
/// (through env.library_override(): ignored when running setuid or setgid; tests point them at
/// the fakes), else libcudart.so.<major> then cudart_library_candidates(env), and
/// nccl_library_candidates(env) (capabilities.h). Checks: every required symbol resolves,
/// NCCL's major version is the headers' (NCCL_MAJOR) and at least 2.7 (ncclSend/ncclRecv).
/// Errors: kUnsupported, source "libnccl (<path>)" or "libcudart (<path>)", the message naming
/// the missing symbol, version or file. Side effects:
/// loads both libraries for the rest of the process; starts no GPU work.
Result<std::shared_ptr<const NcclApi>> load_nccl_api(const Environment& env);

/// Number of GPUs the runtime sees (cudaGetDeviceCount). Errors: kUnsupported, source
/// "libcudart (<path>)", message "no CUDA-capable device: cudaGetDeviceCount returned 35 ..."
/// when the call fails (no driver, no device) or finds 0 GPUs. Cost: initialises the runtime.
Result<int> visible_gpu_count(const NcclApi& api);

}  // namespace fabdiag::perf
