#include "perf/capabilities.h"

#include <dlfcn.h>


#include "core/text.h"

namespace fabdiag::perf {

namespace {

struct Loaded {
  void* handle = nullptr;
  std::string path;                // the path the library resolved to
  std::vector<std::string> tried;  // dlerror() of each failed candidate
};

Loaded load_first(const std::vector<std::string>& candidates) {
  Loaded l;
  for (const auto& c : candidates) {
    dlerror();
    void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) {
      l.handle = h;
      l.path = c;
      return l;
    }
    const char* err = dlerror();
    l.tried.push_back(err ? err : c + ": not found");
  }
  return l;
}

std::string resolved_path(void* symbol, const std::string& fallback) {
  Dl_info info{};
  if (symbol && dladdr(symbol, &info) && info.dli_fname) return info.dli_fname;
  return fallback;
}

std::string join_tried(const std::vector<std::string>& tried) { return join_first(tried, 3, "; ", "..."); }

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
  c.compiled = false;
  Loaded l = load_first(candidates);
  if (!l.handle) {
    c.why_not = "libnccl.so.2 not found (" + join_tried(l.tried) +
                "); install NCCL or set NCCL_HOME; the nccl backend is not in this build either";
    return c;
  }
  using GetVersion = int (*)(int*);
  auto fn = reinterpret_cast<GetVersion>(dlsym(l.handle, "ncclGetVersion"));
  c.detail = resolved_path(reinterpret_cast<void*>(fn), l.path);
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
    c.why_not = "the NCCL backend of bench/pairwise is not implemented in this build "
                "(use --backend mpi)";
  }
  dlclose(l.handle);
  return c;
}

Capability probe_cuda_runtime_capability(const std::vector<std::string>& candidates) {
  Capability c;
  c.name = "cuda_runtime";
  c.compiled = true;  // loaded at run time; needs no headers
  Loaded l = load_first(candidates);
  if (!l.handle) {
    c.why_not = "libcudart.so not found (" + join_tried(l.tried) +
                "); install the CUDA runtime or set CUDA_HOME";
    return c;
  }
  using IntOut = int (*)(int*);
  auto version_fn = reinterpret_cast<IntOut>(dlsym(l.handle, "cudaRuntimeGetVersion"));
  auto count_fn = reinterpret_cast<IntOut>(dlsym(l.handle, "cudaGetDeviceCount"));
  const std::string path = resolved_path(reinterpret_cast<void*>(version_fn), l.path);
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

std::string nccl_backend_unavailable_reason() {
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
