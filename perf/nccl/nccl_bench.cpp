#include "perf/nccl_bench.h"

#include <thread>

#include "core/envelope.h"
#include "perf/nccl/nccl_api.h"
#include "perf/nccl/nccl_comm.h"

namespace fabdiag::perf {

namespace {

// The communicators of ncclCommInitAll, destroyed when the run ends.
struct NcclComms {
  const NcclApi& api;
  std::vector<ncclComm_t> comms;
  ~NcclComms() {
    for (ncclComm_t c : comms)
      if (c) api.nccl.comm_destroy(c);
  }
};

Status check_options(const NcclBenchOptions& o) {
  if (auto st = validate_bench_options(o.bench); !st) return st;
  if (o.gpus < 1 || o.gpus > kMaxNcclLocalGpus)
    return make_error(ErrorCode::kInvalidArgument,
                      "-g " + std::to_string(o.gpus) + ": the GPU count must be 1.." + std::to_string(kMaxNcclLocalGpus));
  if (o.bench.root >= o.gpus)
    return make_error(ErrorCode::kInvalidArgument,
                      "root " + std::to_string(o.bench.root) + " is not a rank (" + std::to_string(o.gpus) + " GPUs)");
  return Ok{};
}

// Loads the libraries and makes the communicators: everything that decides whether the backend
// can run here (kUnsupported otherwise).
Status start_nccl(const NcclApi& api, int gpus, NcclComms& out) {
  auto visible = visible_gpu_count(api);
  if (!visible) return visible.error();
  if (*visible < gpus)
    return make_error(ErrorCode::kUnsupported,
                      "-g " + std::to_string(gpus) + " asks for " + std::to_string(gpus) + " GPUs, but " +
                          std::to_string(*visible) + " are visible",
                      "libcudart (" + api.cuda.path + ")");
  std::vector<int> devices;
  for (int d = 0; d < gpus; ++d) devices.push_back(d);
  out.comms.assign(static_cast<size_t>(gpus), nullptr);
  ncclResult_t rc = api.nccl.comm_init_all(out.comms.data(), gpus, devices.data());
  if (rc != ncclSuccess) {
    out.comms.clear();  // nothing to destroy after a failed init
    return make_error(ErrorCode::kUnsupported,
                      "ncclCommInitAll(" + std::to_string(gpus) + " GPUs) failed: " + api.nccl.error_text(rc),
                      "libnccl (" + api.nccl.path + ")");
  }
  return Ok{};
}

// The error a failed run reports: the lowest rank's own error, not a rank released by abort().
Error first_error(const std::vector<Result<BenchResult>>& per_rank) {
  const Error* any = nullptr;
  for (const auto& r : per_rank) {
    if (r) continue;
    if (!any) any = &r.error();
    if (r.error().message.find("another rank of this process stopped") == std::string::npos) return r.error();
  }
  return any ? *any : make_error(ErrorCode::kInternal, "no rank reported a result");
}

}  // namespace

bool nccl_backend_compiled() { return true; }

Result<BenchResult> run_nccl_bench(const NcclBenchOptions& o, const Progress& progress, const BenchStepSink& on_step,
                                   const Environment& env) {
  if (auto st = check_options(o); !st) return st.error();
  auto api = load_nccl_api(env);
  if (!api) return api.error();
  if (o.bench.graph_launches > 0 && !(*api)->cuda.has_graphs())
    return make_error(ErrorCode::kUnsupported, "-G needs CUDA graphs: the runtime lacks cudaStreamBeginCapture, "
                                               "cudaStreamEndCapture, cudaGraphInstantiate or cudaGraphLaunch",
                      "libcudart (" + (*api)->cuda.path + ")");
  NcclComms comms{**api, {}};
  if (auto st = start_nccl(**api, o.gpus, comms); !st) return st.error();

  HostRendezvous rendezvous(o.gpus);
  const std::vector<std::string> hosts(static_cast<size_t>(o.gpus), local_hostname());
  std::vector<Result<BenchResult>> per_rank(static_cast<size_t>(o.gpus),
                                            make_error(ErrorCode::kInternal, "rank did not run"));
  // The steps say which backend ran (run_collective_bench leaves the default, "mpi").
  BenchStepSink steps;
  if (on_step)
    steps = [&](const BenchResult& so_far, const std::vector<uint64_t>& left) {
      BenchResult tagged = so_far;
      tagged.backend = "nccl";
      on_step(tagged, left);
    };
  std::vector<std::thread> threads;
  for (int r = 0; r < o.gpus; ++r) {
    threads.emplace_back([&, r] {
      NcclComm comm(**api, comms.comms[static_cast<size_t>(r)], r, o.gpus, r, rendezvous, hosts);
      auto& slot = per_rank[static_cast<size_t>(r)];
      if (auto st = comm.open(); !st) {
        slot = st.error();
      } else {
        slot = run_collective_bench(comm, o.bench, r == 0 ? progress : no_progress(),
                                    r == 0 ? steps : BenchStepSink{});
      }
      if (!slot) rendezvous.abort();
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& r : per_rank)
    if (!r) return first_error(per_rank);
  BenchResult out = std::move(*per_rank[0]);
  out.backend = "nccl";
  return out;
}

}  // namespace fabdiag::perf
