// `accept --spec S` without --from: this host's inputs, taken by the commands that own them
// (topo_output, check_output, counters_output: cmd/commands.h) and, inside the counter window,
// a local NCCL bench of each collective and size the spec names (perf/nccl_bench.h).
#include <nlohmann/json.hpp>

#include "cmd/accept.h"
#include "cmd/commands.h"
#include "perf/nccl_bench.h"
#include "perf/sweep.h"
#include "report/humanize.h"

namespace fabdiag::cmd {

namespace {

using accept::Doc;

accept::HostInputs& local_host(accept::Inputs& in, const std::vector<std::string>& hosts) {
  const std::string host = hosts.empty() ? "localhost" : hosts.front();
  for (auto& h : in.hosts)
    if (h.host == host) return h;
  in.hosts.push_back(accept::HostInputs{host, {}, {}, {}});
  return in.hosts.back();
}

int gpus_of(const nlohmann::json& topo) {
  int n = 0;
  for (const auto& d : topo.value("devices", nlohmann::json::array())) n += d.value("kind", "") == "gpu";
  return n;
}

// One NCCL bench per (collective, size) of the spec on `gpus` local GPUs; what was not run is said.
void run_local_benches(const GlobalOptions& g, const accept::Spec& spec, int gpus, accept::Inputs& in,
                       std::vector<AcceptInputFile>& files) {
  if (spec.deliver.busbw.empty()) return;
  if (gpus == 0) {
    files.push_back({"live: bench", "not run: no GPU in this host's topology (run the bench across nodes with "
                                    "mpirun and give its result with --from)"});
    return;
  }
  for (const auto& b : spec.deliver.busbw) {
    perf::NcclBenchOptions no;
    no.gpus = gpus;
    no.bench.collective = perf::parse_collective(b.collective).value_or(perf::Collective::kAllReduce);
    no.bench.sweep = {b.size_bytes, b.size_bytes, 2};
    const std::string what = "live: bench " + b.collective + " " + perf::format_size_bytes(b.size_bytes) + " -g " +
                             std::to_string(gpus) + " --backend nccl";
    auto result = perf::run_nccl_bench(no, stderr_progress(g));
    if (!result) {
      files.push_back({what, "not run: " + result.error().to_string()});
      continue;
    }
    nlohmann::json data;
    perf::to_json(data, *result);
    in.bench.push_back(Doc{"fabdiag.bench/1", std::move(data), what});
    files.push_back({what, "bench " + b.collective});
  }
}

}  // namespace

std::optional<int> collect_live_inputs(const GlobalOptions& g, const AcceptOptions& o, const accept::Spec& spec,
                                       accept::Inputs& in, std::vector<AcceptInputFile>& files) {
  ImportOutput topo;
  TopoOptions to;
  to.nvml_lib = o.nvml_lib;
  if (auto rc = topo_output(g, to, topo)) return rc;
  accept::HostInputs& h = local_host(in, topo.env.hosts);
  h.topo = Doc{topo.env.schema, std::move(topo.env.data), "live: fabdiag topo"};
  files.push_back({"live: fabdiag topo --sysfs-root " + g.sysfs_root, "topo of " + h.host});

  ImportOutput check;
  if (auto rc = check_output(g, CheckOptions{}, check)) return rc;
  h.check = Doc{check.env.schema, std::move(check.env.data), "live: fabdiag check"};
  files.push_back({"live: fabdiag check", "check of " + h.host});

  const int gpus = o.gpus > 0 ? o.gpus : gpus_of(h.topo->data);
  CountersOptions co;
  co.interval_s = o.duration_s;
  co.all = true;  // unmoved counters too: a zero growth is a pass, not a counter that was not read
  co.during_window = [&] { run_local_benches(g, spec, gpus, in, files); };
  ImportOutput counters;
  if (auto rc = counters_output(g, co, counters)) return rc;
  accept::HostInputs& same = local_host(in, topo.env.hosts);  // `h` may have moved while benches ran
  same.counters = Doc{counters.env.schema, std::move(counters.env.data), "live: fabdiag counters"};
  files.push_back({"live: fabdiag counters --interval " + format_sig(o.duration_s, 4) + " --all", "counters of " + same.host});
  return std::nullopt;
}

}  // namespace fabdiag::cmd
