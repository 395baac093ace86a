#include "cmd/nccl_job.h"

#include "cmd/common.h"
#include "core/exit_codes.h"

namespace fabdiag::cmd {

namespace {

// The variables of the NCCL environment guide that change which transport, NIC, GPUDirect mode
// or algorithm a run uses, and the GPU selection.
constexpr const char* kNcclSettings[] = {
    "NCCL_IB_HCA",           "NCCL_SOCKET_IFNAME",   "NCCL_NET_GDR_LEVEL",     "NCCL_NET_GDR_READ",
    "NCCL_ALGO",             "NCCL_PROTO",           "NCCL_IB_GID_INDEX",      "NCCL_NET",
    "NCCL_NET_PLUGIN",       "NCCL_P2P_LEVEL",       "NCCL_P2P_DISABLE",       "NCCL_SHM_DISABLE",
    "NCCL_IB_DISABLE",       "NCCL_IB_TC",           "NCCL_IB_SL",             "NCCL_IB_QPS_PER_CONNECTION",
    "NCCL_IB_ADAPTIVE_ROUTING", "NCCL_CROSS_NIC",    "NCCL_MIN_NCHANNELS",     "NCCL_MAX_NCHANNELS",
    "NCCL_BUFFSIZE",         "NCCL_NVLS_ENABLE",     "NCCL_COLLNET_ENABLE",    "NCCL_TOPO_FILE",
    "NCCL_DEBUG",            "NCCL_DEBUG_SUBSYS",    "NCCL_DEBUG_FILE",        "CUDA_VISIBLE_DEVICES",
};

}  // namespace

nlohmann::json nccl_environment_params(const Environment& env) {
  nlohmann::json out = nlohmann::json::object();
  for (const char* name : kNcclSettings)
    if (auto v = env.get(name)) out[name] = *v;
  return out;
}

std::string nccl_version_text(int code) {
  const int major = code >= 10000 ? code / 10000 : code / 1000;
  const int minor = code >= 10000 ? (code % 10000) / 100 : (code % 1000) / 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

std::unique_ptr<perf::NcclWorld> open_nccl_world_or_report(perf::MpiSession& session, int device) {
  perf::Comm& host = session.world();
  bool every_rank = true;
  auto w = perf::NcclWorld::open(host, process_environment(), &every_rank, device);
  if (w) return std::move(*w);
  if (!every_rank || host.rank() == 0) print_error("NCCL backend cannot run here: " + w.error().to_string());
  if (!every_rank && host.size() > 1) session.abort(kExitMissingCapability);
  return nullptr;
}

void add_nccl_world_params(nlohmann::json& params, const perf::NcclWorld& world) {
  params["launch"] = "mpi, one rank per GPU";
  params["nccl_version"] = nccl_version_text(world.nccl_version_code());
  params["nccl_library"] = world.nccl_library_path();
  params["nccl_split"] = world.split_method();
  params["gpu"] = world.device();
  params["nccl_env"] = nccl_environment_params(process_environment());
}

}  // namespace fabdiag::cmd
