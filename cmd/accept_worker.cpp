// `accept --spec S --worker`: one MPI rank of `accept --hostfile`. Each rank reads its own node
// (topo_output, check_output, counters_output: cmd/commands.h) and, inside the counter window,
// all ranks run the cluster's benches (perf/collective_bench.h) and pairs (perf/pairwise.h)
// together; rank 0 gathers the documents and streams them to the launcher (cmd/accept_cluster.cpp).
#include <nlohmann/json.hpp>

#include "cmd/accept.h"
#include "cmd/commands.h"
#include "cmd/mpi_job.h"
#include "cmd/nccl_job.h"
#include "core/exit_codes.h"
#include "perf/collective_bench.h"
#include "perf/pairwise.h"
#include "perf/pairwise_analysis.h"
#include "perf/sweep.h"
#include "report/humanize.h"
#include "report/render.h"
#include "triage/mpi_cluster.h"

namespace fabdiag::cmd {

namespace {

using nlohmann::json;

json part(const std::string& schema, const std::string& host, const std::string& source, json data) {
  return {{"schema", schema}, {"host", host}, {"source", source}, {"data", std::move(data)}};
}

// One rank's run: its options (sysfs and procfs roots of its host), the MPI job, and on rank 0
// the parts gathered so far.
struct RankRun {
  GlobalOptions g;
  const AcceptOptions& o;
  const accept::Spec& spec;
  perf::MpiSession& session;
  perf::Comm& comm;
  std::string host;
  Envelope stream;                    ///< fabdiag.import/1 whose data.parts rank 0 fills.
  json node_parts = json::array();    ///< This rank's documents not yet gathered.
  Progress progress;                  ///< "fabdiag: accept: ..." on rank 0, nothing elsewhere.

  // Rank 0: writes the parts so far as one JSON line (partial unless `whole`).
  void emit(bool whole, const std::string& during, const std::string& not_run) {
    if (comm.rank() != 0) return;
    Envelope env = stream;
    env.partial = !whole;
    if (!whole) env.cut = Cut{"", during, not_run};
    write_stdout(render_json_line(env));
  }

  // Collective: every rank's node_parts to rank 0's stream. False (reported, job aborted) on failure.
  bool gather() {
    auto all = comm.gather_strings(node_parts.dump(), 0);
    node_parts = json::array();
    if (!all) {
      fail_mpi_run(session, all.error());
      return false;
    }
    for (const auto& s : *all) {
      json parts = json::parse(s, nullptr, false);
      if (parts.is_array())
        for (auto& p : parts) stream.data["parts"].push_back(std::move(p));
    }
    return true;
  }
};

// Reports a failed collective step (fail_mpi_run: the job is aborted) and returns false.
bool failed(RankRun& r, const Error& e) {
  fail_mpi_run(r.session, e);
  return false;
}

// This rank's topology and checks (failures said, the checks then not_checked).
void read_node(RankRun& r) {
  ImportOutput topo;
  TopoOptions to;
  to.nvml_lib = r.o.nvml_lib;
  if (!topo_output(r.g, to, topo))
    r.node_parts.push_back(part(topo.env.schema, r.host, r.host + ": fabdiag topo --sysfs-root " + r.g.sysfs_root,
                                std::move(topo.env.data)));
  ImportOutput check;
  if (!check_output(r.g, CheckOptions{}, check))
    r.node_parts.push_back(part(check.env.schema, r.host, r.host + ": fabdiag check", std::move(check.env.data)));
}

// One bench per busbw item of the spec across every rank; false when the job failed.
bool run_benches(RankRun& r) {
  for (const auto& b : r.spec.deliver.busbw) {
    perf::BenchOptions bo;
    bo.collective = perf::parse_collective(b.collective).value_or(perf::Collective::kAllReduce);
    bo.sweep = {b.size_bytes, b.size_bytes, 2};
    bo.iters = r.o.bench_iters;
    bo.warmup_iters = std::max(1, r.o.bench_iters / 4);
    const std::string what = "bench " + b.collective + " " + perf::format_size_bytes(b.size_bytes);
    r.progress(what + " on " + std::to_string(r.comm.size()) + " ranks (" + r.o.backend + ")");
    auto result = perf::run_collective_bench(r.comm, bo, r.progress);
    if (!result) return failed(r, result.error());
    result->backend = r.o.backend;
    json data;
    perf::to_json(data, *result);
    r.stream.data["parts"].push_back(part("fabdiag.bench/1", "", "live: " + what + " -n " + std::to_string(bo.iters) +
                                                                   " --backend " + r.o.backend,
                                          std::move(data)));
    r.emit(false, "the counter window", "the rest of the window");
  }
  return true;
}

// The pairwise matrix (when the spec judges pairs); false when the job failed.
bool run_pairs(RankRun& r) {
  if (!r.spec.deliver.pair_checked) return true;
  perf::PairwiseOptions po;
  po.size_bytes = perf::parse_size_bytes(r.o.pair_size).value_or(po.size_bytes);  // the launcher validated it
  po.iters = r.o.pair_iters;
  r.progress("pairwise: " + perf::format_size_bytes(po.size_bytes) + " x " + std::to_string(po.iters) + " per pair");
  auto matrix = perf::run_pairwise(r.comm, po, r.progress, {});
  if (!matrix) return failed(r, matrix.error());
  if (r.comm.rank() != 0) return true;
  perf::PairwiseThresholds thresholds;
  json data;
  perf::pairwise_to_json(data, *matrix, perf::analyze_pairwise(*matrix, thresholds));
  r.stream.data["parts"].push_back(part("fabdiag.pairwise/1", "", "live: pairwise --size " +
                                                                      perf::format_size_bytes(po.size_bytes) + " -n " +
                                                                      std::to_string(po.iters),
                                        std::move(data)));
  r.emit(false, "the soak", "the soak and the second counter snapshot");
  return true;
}

// Inside the counter window, every rank together: benches, pairs; the soak is the counters
// wait that follows. False when the job failed.
bool run_window(RankRun& r) {
  if (auto st = r.comm.barrier(); !st) return failed(r, st.error());
  r.progress("counter window open on all " + std::to_string(r.comm.size()) + " ranks; then " +
             format_sig(r.o.duration_s, 4) + " s of soak");
  return run_benches(r) && run_pairs(r);
}

// The counter window around run_window() on this rank; false when the job failed.
bool run_counter_window(RankRun& r) {
  CountersOptions co;
  co.interval_s = r.o.duration_s;
  co.all = true;  // unmoved counters too: a zero growth is a pass, not a counter that was not read
  bool ran = false, ok = true;
  co.during_window = [&] {
    ran = true;
    ok = run_window(r);
  };
  ImportOutput counters;
  const bool read = !counters_output(r.g, co, counters);
  if (!ran) ok = run_window(r);  // the snapshot failed before the window: the others still wait for us
  if (!ok) return false;
  if (read)
    r.node_parts.push_back(part(counters.env.schema, r.host,
                                r.host + ": fabdiag counters --interval " + format_sig(r.o.duration_s, 4) + " --all",
                                std::move(counters.env.data)));
  return true;
}

}  // namespace

int run_accept_worker(const GlobalOptions& g, const AcceptOptions& o, const accept::Spec& spec) {
  auto session = open_mpi_shielded();
  if (!session.ok()) {
    print_error("cannot start MPI: " + session.error().to_string());
    return kExitMissingCapability;
  }
  std::unique_ptr<perf::NcclWorld> nccl;  // --backend nccl: benches and pairs on one GPU per rank
  Envelope stream = make_envelope("fabdiag.import/1");
  if (o.backend == "nccl") {
    nccl = open_nccl_world_or_report(**session);
    if (!nccl) return kExitMissingCapability;
    add_nccl_world_params(stream.params, *nccl);
  }
  perf::Comm& comm = nccl ? nccl->comm() : (*session)->world();
  const std::string host = comm.hosts()[static_cast<size_t>(comm.rank())];
  auto sysfs = triage::expand_host_placeholder(g.sysfs_root, host);
  auto procfs = triage::expand_host_placeholder(g.procfs_root, host);
  if (!sysfs || !procfs) {  // this rank's host only: the others would wait for it, so abort the job
    print_error(comm.describe_rank(comm.rank()) + ": " + (sysfs ? procfs.error() : sysfs.error()).to_string());
    if (comm.size() > 1) (*session)->abort(kExitUsage);
    return kExitUsage;
  }
  stream.hosts = distinct_hosts(comm.hosts());
  stream.params.update({{"backend", o.backend}, {"duration_s", o.duration_s}, {"ranks", comm.size()}});
  stream.data = {{"parts", json::array()}};
  Progress plain = rank0_progress(g, comm);
  RankRun r{g, o, spec, **session, comm, host, std::move(stream), json::array(),
            [plain](const std::string& line) { plain("accept: " + line); }};
  r.g.sysfs_root = *sysfs;
  r.g.procfs_root = *procfs;
  r.g.output.clear();  // the launcher writes -o; a rank's own outputs go nowhere
  if (comm.rank() != 0) r.g.quiet = true;  // one heartbeat (rank 0's counters wait), not one per rank
  r.progress("reading topo and check on " + std::to_string(comm.size()) + " ranks");
  read_node(r);
  if (!r.gather()) return kExitPartial;
  r.emit(false, "the counter window", "the benches, the pairs, the soak and the counters");
  if (!run_counter_window(r) || !r.gather()) return kExitPartial;
  r.progress("collected " + std::to_string(r.stream.data["parts"].size()) + " results");
  r.emit(true, "", "");
  return kExitOk;  // the launcher judges; a non-zero exit would make mpirun report a failed job
}

}  // namespace fabdiag::cmd
