#include "perf/capabilities.h"

#include <dlfcn.h>

#include "core/build_config.h"
#include "perf/shared_library.h"

namespace fabdiag::perf {

namespace {

void add_dir_candidates(std::vector<std::string>& out, const Environment& env, const char* var,
                        const char* sub, const std::vector<std::string>& names) {
  auto dir = env.library_override(var);  // ignored when running setuid/setgid
  if (!dir) return;
  for (const auto& n : names) out.push_back(*dir + "/" + sub + "/" + n);
}

}  // namespace

std::vector<std::string> nccl_library_candidates(const Environment& env) {
  std::vector<std::string> names = {"libnccl.so.2", "libnccl.so"};
  std::vector<std::string> out = names;
  add_dir_candidates(out, env, "NCCL_HOME", "lib", names);
  add_dir_candidates(out, env, "CUDA_HOME", "lib64", names);
  for (const auto& n : names) out.push_back("/usr/local/cuda/lib64/" + n);
  return out;
}

std::vector<std::string> cudart_library_candidates(const Environment& env) {
  std::vector<std::string> names = {"libcudart.so", "libcudart.so.13", "libcudart.so.12",
                                    "libcudart.so.11.0"};
  std::vector<std::string> out = names;
  add_dir_candidates(out, env, "CUDA_HOME", "lib64", names);
  for (const auto& n : names) out.push_back("/usr/local/cuda/lib64/" + n);
  return out;
}

Capability probe_nccl_capability(const std::vector<std::string>& candidates) {
  Capability c;
  c.name = "nccl";
  c.compiled = FABDIAG_HAVE_NCCL_HEADERS == 1;
  LoadedLibrary l = load_first_library(candidates);
  if (!l.handle) {
    c.why_not = "libnccl.so.2 not found (" + load_failures(l) + "); install NCCL or set NCCL_HOME" +
                (c.compiled ? "" : "; the nccl backend is not in this build either");
    return c;
  }
  using GetVersion = int (*)(int*);
  auto fn = reinterpret_cast<GetVersion>(dlsym(l.handle, "ncclGetVersion"));
  c.detail = library_file_of(reinterpret_cast<void*>(fn), l.path);
  int code = 0;
  if (!fn || fn(&code) != 0) {
    c.why_not = c.detail + " has no working ncclGetVersion";
  } else {
    c.loaded = true;
    int major, minor, patch;
    if (code >= 10000) {
      major = code / 10000, minor = (code % 10000) / 100, patch = code % 100;
    } else {
      major = code / 1000, minor = (code % 1000) / 100, patch = code % 100;
    }
    c.version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
    if (!c.compiled)
      c.why_not = "this build has no NCCL backend (nccl.h and cuda_runtime_api.h were not found when it was "
                  "configured; use --backend mpi)";
  }
  dlclose(l.handle);
  return c;
}

Capability probe_cuda_runtime_capability(const std::vector<std::string>& candidates) {
  Capability c;
  c.name = "cuda_runtime";
  c.compiled = true;  // loaded at run time; needs no headers
  LoadedLibrary l = load_first_library(candidates);
  if (!l.handle) {
    c.why_not = "libcudart.so not found (" + load_failures(l) +
                "); install the CUDA runtime or set CUDA_HOME";
    return c;
  }
  using IntOut = int (*)(int*);
  auto version_fn = reinterpret_cast<IntOut>(dlsym(l.handle, "cudaRuntimeGetVersion"));
  auto count_fn = reinterpret_cast<IntOut>(dlsym(l.handle, "cudaGetDeviceCount"));
  const std::string path = library_file_of(reinterpret_cast<void*>(version_fn), l.path);
  int version = 0;
  if (!version_fn || !count_fn || version_fn(&version) != 0) {
    c.why_not = path + " lacks cudaRuntimeGetVersion/cudaGetDeviceCount or they failed";
    // The runtime stays loaded: unloading an initialised CUDA runtime is not safe.
    return c;
  }
  c.loaded = true;
  c.version = std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
  int count = 0;  // cudaGetDeviceCount leaves it unwritten without a driver
  int rc = count_fn(&count);
  if (rc == 0) {
    c.detail = std::to_string(count) + " GPU(s); " + path;
    if (count == 0) c.why_not = "no GPU visible (CUDA_VISIBLE_DEVICES?)";
  } else {
    c.detail = "0 GPUs; " + path;
    const char* what = rc == 35    ? "insufficient driver: no NVIDIA driver loaded"
                       : rc == 100 ? "no CUDA-capable device"
                       : rc == 34  ? "stub library: no NVIDIA driver installed"
                                   : "error";
    c.why_not = "no GPU or driver here: cudaGetDeviceCount returned " + std::to_string(rc) +
                " (" + what + ")";
  }
  // Not dlclose'd: the runtime may have initialised the driver and registered exit handlers.
  return c;
}

Capability with_nccl_backend_verdict(Capability nccl, const Capability& cuda) {
  if (!nccl.compiled || !nccl.loaded || cuda.why_not.empty()) return nccl;
  nccl.why_not = "bench --backend nccl is compiled but cannot run here: libcudart: " + cuda.why_not;
  return nccl;
}

std::string nccl_backend_unavailable_reason() {
  if (FABDIAG_HAVE_NCCL_HEADERS == 1)
    return "the NCCL backend of this build is `fabdiag bench --backend nccl -g N` (one process, local GPUs); "
           "pairwise, triage and MPI-launched NCCL runs are not implemented yet (use --backend mpi)";
  Capability nccl = probe_nccl_capability();
  Capability cuda = probe_cuda_runtime_capability();
  std::string out = "NCCL backend not available in this build/here: this build implements only "
                    "--backend mpi";
  out += nccl.loaded ? "; NCCL " + nccl.version + " was found at " + nccl.detail
                     : std::string("; libnccl.so.2 not found (install NCCL or set NCCL_HOME)");
  out += cuda.loaded ? "; CUDA runtime " + cuda.version +
                           (cuda.why_not.empty() ? " with " + cuda.detail : ", " + cuda.why_not)
                     : "; " + cuda.why_not;
  return out;
}

}  // namespace fabdiag::perf
