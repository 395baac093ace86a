#include "perf/nccl/nccl_api.h"

#include <dlfcn.h>

#include "perf/capabilities.h"
#include "perf/shared_library.h"

namespace fabdiag::perf {

namespace {

// The symbol version libcudart exports its API under ("libcudart.so.13"): the runtime major
// version must be the one of the headers the types above come from.
const std::string kCudartSymbolVersion = "libcudart.so." + std::to_string(CUDART_VERSION / 1000);

std::string version_text(int major, int minor, int patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

// Error::source of the loader's errors: "libcudart (/usr/local/cuda/lib/libcudart.so.13)".
std::string library_source(const char* library, const std::string& path) {
  return path.empty() ? std::string(library) : std::string(library) + " (" + path + ")";
}

// A symbol to resolve and where its address goes.
struct Wanted {
  const char* name;
  void** slot;
};

template <typename Fn>
Wanted want(const char* name, Fn& slot) {
  return {name, reinterpret_cast<void**>(&slot)};
}

std::vector<std::string> candidates(const Environment& env, const char* override_var,
                                    std::vector<std::string> defaults) {
  if (auto lib = env.library_override(override_var)) return {*lib};
  return defaults;
}

Result<void*> open_library(const std::vector<std::string>& names, const std::string& what,
                           const char* override_var, const char* hint) {
  LoadedLibrary l = load_first_library(names);
  if (l.handle) return l.handle;
  return make_error(ErrorCode::kUnsupported,
                    "not found (" + load_failures(l) + "): " + hint + " (or name the file in $" + override_var + ")",
                    what);
}

Status load_cudart(const Environment& env, CudartApi& api) {
  std::vector<std::string> names = {kCudartSymbolVersion};
  for (auto& c : cudart_library_candidates(env)) names.push_back(std::move(c));
  auto h = open_library(candidates(env, "FABDIAG_CUDART_LIB", names), "libcudart", "FABDIAG_CUDART_LIB",
                        "install the CUDA runtime or set CUDA_HOME");
  if (!h) return h.error();
  Wanted wanted[] = {
      want("cudaRuntimeGetVersion", api.runtime_get_version), want("cudaGetDeviceCount", api.get_device_count),
      want("cudaSetDevice", api.set_device),                  want("cudaMalloc", api.malloc),
      want("cudaFree", api.free),                             want("cudaMemcpyAsync", api.memcpy_async),
      want("cudaStreamCreateWithFlags", api.stream_create),   want("cudaStreamDestroy", api.stream_destroy),
      want("cudaStreamSynchronize", api.stream_synchronize),  want("cudaEventCreate", api.event_create),
      want("cudaEventRecord", api.event_record),              want("cudaEventSynchronize", api.event_synchronize),
      want("cudaEventElapsedTime", api.event_elapsed_time),   want("cudaEventDestroy", api.event_destroy),
      want("cudaGetErrorName", api.get_error_name),           want("cudaGetErrorString", api.get_error_string),
  };
  std::string where;
  for (auto& w : wanted) {
    *w.slot = dlvsym(*h, w.name, kCudartSymbolVersion.c_str());
    if (where.empty() && *w.slot) where = library_file_of(*w.slot, "");
    if (!*w.slot)
      return make_error(ErrorCode::kUnsupported,
                        std::string("has no symbol ") + w.name + "@" + kCudartSymbolVersion +
                            ": this binary was built against CUDA " + std::to_string(CUDART_VERSION / 1000) +
                            " and needs that runtime major version",
                        library_source("libcudart", where));
  }
  api.path = where;
  Wanted optional[] = {
      // CUDA 12 renamed the entry point of the header's cudaDeviceProp (cudaGetDeviceProperties_v2).
      want(CUDART_VERSION / 1000 == 12 ? "cudaGetDeviceProperties_v2" : "cudaGetDeviceProperties",
           api.get_device_properties),
      want("cudaStreamBeginCapture", api.stream_begin_capture),
      want("cudaStreamEndCapture", api.stream_end_capture),
      want("cudaGraphInstantiate", api.graph_instantiate),
      want("cudaGraphLaunch", api.graph_launch),
      want("cudaGraphExecDestroy", api.graph_exec_destroy),
      want("cudaGraphDestroy", api.graph_destroy),
  };
  for (auto& w : optional) *w.slot = dlvsym(*h, w.name, kCudartSymbolVersion.c_str());
  if (cudaError_t rc = api.runtime_get_version(&api.version); rc != cudaSuccess)
    return make_error(ErrorCode::kUnsupported, "cudaRuntimeGetVersion failed: " + api.error_text(rc),
                      library_source("libcudart", api.path));
  return Ok{};
}

Status check_nccl_version(NcclLibApi& api) {
  if (ncclResult_t rc = api.get_version(&api.version_code); rc != ncclSuccess)
    return make_error(ErrorCode::kUnsupported, "ncclGetVersion failed: " + api.error_text(rc),
                      library_source("libnccl", api.path));
  // 2.9+: major*10000 + minor*100 + patch; before: major*1000 + minor*100 + patch.
  const int code = api.version_code;
  const int major = code >= 10000 ? code / 10000 : code / 1000;
  const int minor = code >= 10000 ? (code % 10000) / 100 : (code % 1000) / 100;
  if (major != NCCL_MAJOR || (major == 2 && minor < 7))
    return make_error(ErrorCode::kUnsupported,
                      "is NCCL " + version_text(major, minor, code % 100) + ": this binary needs NCCL " +
                          std::to_string(NCCL_MAJOR) + ".x, 2.7 or later (ncclSend/ncclRecv)",
                      library_source("libnccl", api.path));
  return Ok{};
}

Status load_nccl(const Environment& env, NcclLibApi& api) {
  auto h = open_library(candidates(env, "FABDIAG_NCCL_LIB", nccl_library_candidates(env)), "libnccl.so.2",
                        "FABDIAG_NCCL_LIB", "install NCCL or set NCCL_HOME");
  if (!h) return h.error();
  Wanted wanted[] = {
      want("ncclGetVersion", api.get_version),       want("ncclGetErrorString", api.get_error_string),
      want("ncclCommInitAll", api.comm_init_all),    want("ncclCommDestroy", api.comm_destroy),
      want("ncclAllReduce", api.all_reduce),         want("ncclAllGather", api.all_gather),
      want("ncclReduceScatter", api.reduce_scatter), want("ncclBroadcast", api.broadcast),
      want("ncclReduce", api.reduce),                want("ncclSend", api.send),
      want("ncclRecv", api.recv),                    want("ncclGroupStart", api.group_start),
      want("ncclGroupEnd", api.group_end),           want("ncclGetUniqueId", api.get_unique_id),
      want("ncclCommInitRank", api.comm_init_rank),  want("ncclCommGetAsyncError", api.comm_get_async_error),
      want("ncclCommAbort", api.comm_abort),
  };
  for (auto& w : wanted) {
    *w.slot = dlsym(*h, w.name);
    if (api.path.empty() && *w.slot) api.path = library_file_of(*w.slot, "");
    if (!*w.slot)
      return make_error(ErrorCode::kUnsupported,
                        std::string("has no symbol ") + w.name + ": it is not NCCL, or NCCL older than 2.7",
                        library_source("libnccl", api.path));
  }
  api.get_last_error = reinterpret_cast<decltype(api.get_last_error)>(dlsym(*h, "ncclGetLastError"));
  api.alltoall = reinterpret_cast<decltype(api.alltoall)>(dlsym(*h, "ncclAlltoAll"));
  api.gather = reinterpret_cast<decltype(api.gather)>(dlsym(*h, "ncclGather"));
  api.scatter = reinterpret_cast<decltype(api.scatter)>(dlsym(*h, "ncclScatter"));
  if (auto st = check_nccl_version(api); !st) return st;
  // ncclCommSplit appeared in 2.18; an older library exporting the name is not trusted with it.
  if (api.version_code >= 21800)
    api.comm_split = reinterpret_cast<decltype(api.comm_split)>(dlsym(*h, "ncclCommSplit"));
  return Ok{};
}

}  // namespace

std::string CudartApi::error_text(cudaError_t rc) const {
  std::string out = std::to_string(static_cast<int>(rc));
  const char* name = get_error_name ? get_error_name(rc) : nullptr;
  const char* text = get_error_string ? get_error_string(rc) : nullptr;
  if (name) out += " " + std::string(name);
  if (text) out += " (" + std::string(text) + ")";
  return out;
}

std::string NcclLibApi::error_text(ncclResult_t rc, ncclComm_t comm) const {
  std::string out = get_error_string ? get_error_string(rc) : "NCCL error";
  out += " [" + std::to_string(static_cast<int>(rc)) + "]";
  const char* last = get_last_error ? get_last_error(comm) : nullptr;
  if (last && *last) out += ": " + std::string(last);
  return out;
}

Result<std::shared_ptr<const NcclApi>> load_nccl_api(const Environment& env) {
  auto api = std::make_shared<NcclApi>();
  if (auto st = load_cudart(env, api->cuda); !st) return st.error();
  if (auto st = load_nccl(env, api->nccl); !st) return st.error();
  return std::shared_ptr<const NcclApi>(std::move(api));
}

Result<int> visible_gpu_count(const NcclApi& api) {
  int count = 0;  // left unwritten by some runtimes when there is no driver
  cudaError_t rc = api.cuda.get_device_count(&count);
  if (rc != cudaSuccess)
    return make_error(ErrorCode::kUnsupported,
                      "no CUDA-capable device: cudaGetDeviceCount returned " + api.cuda.error_text(rc),
                      library_source("libcudart", api.cuda.path));
  if (count < 1)
    return make_error(ErrorCode::kUnsupported,
                      "no CUDA-capable device: cudaGetDeviceCount found 0 GPUs (CUDA_VISIBLE_DEVICES?)",
                      library_source("libcudart", api.cuda.path));
  return count;
}

}  // namespace fabdiag::perf
