// Loading a vendor shared library at run time (dlopen), shared by the capability probes
// (capabilities.h) and the NCCL backend's loader (perf/nccl/nccl_api.h), so the binary never
// links libnccl or libcudart and runs on CPU-only nodes.
#pragma once

#include <string>
#include <vector>

namespace fabdiag::perf {

/// The first candidate that dlopen (RTLD_NOW | RTLD_LOCAL) accepted.
struct LoadedLibrary {
  void* handle = nullptr;          ///< dlopen handle; nullptr when no candidate loaded.
  std::string path;                ///< The candidate that loaded, as given.
  std::vector<std::string> tried;  ///< dlerror() of each candidate that did not load.
};

/// Tries `candidates` in order (names for the loader's search path, or paths). The caller owns
/// the handle (dlclose, or keep it: an initialised CUDA runtime must not be unloaded).
LoadedLibrary load_first_library(const std::vector<std::string>& candidates);

/// The file a resolved `symbol` lives in (dladdr), else `fallback`: the path a name resolved to.
std::string library_file_of(void* symbol, const std::string& fallback);

/// The first three failures of `l.tried` joined with "; " (then "..."): why nothing loaded.
std::string load_failures(const LoadedLibrary& l);

}  // namespace fabdiag::perf
