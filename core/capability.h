// Capability: whether an optional piece (MPI, NCCL, CUDA runtime, NVML, ibverbs, ethtool
// netlink) is usable by this binary on this host. `fabdiag doctor` lists them; commands that
// need one report "unsupported: <why_not>" and exit 3 instead of crashing or printing nothing.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace fabdiag {

/// State of one capability. Produced by the adapters (probes/, perf/), never by cmd/.
struct Capability {
  std::string name;      ///< "mpi", "nccl", "cuda_runtime", "nvml", "ibverbs", "ethtool_netlink".
  bool compiled = false; ///< Support was compiled in (headers found at build time), or needs none (dlopen).
  bool loaded = false;   ///< The library / kernel interface answered at run time.
  std::string version;   ///< Library or interface version when loaded ("2.28.3", "Open MPI v4.1.4").
  std::string detail;    ///< Extra facts when loaded (device count, library path).
  std::string why_not;   ///< Why it is not usable, with what to do ("libnccl.so.2 not found: ...").
};

void to_json(nlohmann::json& j, const Capability& c);

}  // namespace fabdiag
