// `fabdiag bench COLL`: parse and check the flags (before MPI starts, so usage errors exit 2
// at once), run the sweep on MPI_COMM_WORLD (--backend mpi), on the local GPUs through NCCL
// (--backend nccl -g N, one process, no MPI) or on one GPU per rank of an MPI job (--backend
// nccl under mpirun/srun, cmd/nccl_job.h), and print the nccl-tests-like table or the
// fabdiag.bench/1 document (rank 0 only under MPI).
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "cmd/commands.h"
#include "cmd/mpi_job.h"
#include "cmd/nccl_info_capture.h"
#include "cmd/nccl_job.h"
#include "core/exit_codes.h"
#include "core/stats.h"
#include "perf/bandwidth.h"
#include "perf/collective_bench.h"
#include "perf/nccl_bench.h"
#include "perf/nccl_world.h"

namespace fabdiag::cmd {

namespace {

std::string fixed(double v, const char* fmt) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// nccl-tests prints time in us with 2, 1 or 0 decimals depending on magnitude.
std::string time_us(double s) {
  double us = s * 1e6;
  return fixed(us, us >= 10000 ? "%.0f" : us >= 100 ? "%.1f" : "%.2f");
}

Document bench_document(const perf::BenchResult& r) {
  Document doc;
  doc.title = std::string("fabdiag bench ") + perf::to_string(r.collective);
  Section s;
  s.title = std::string(perf::to_string(r.collective)) + ", " + perf::to_string(r.dtype) + ", " +
            std::to_string(r.ranks) + " ranks, " + r.backend + " backend";
  s.fields = {{"hosts", std::to_string(distinct_hosts(r.hosts).size()) + " (" +
                            (r.hosts.empty() ? "" : r.hosts.front()) +
                            (r.hosts.size() > 1 ? " .. " + r.hosts.back() : "") + ")"},
              {"iterations", std::to_string(r.warmup_iters) + " warm-up + " +
                                 std::to_string(r.iters) + " timed per size"},
              {"busbw factor", perf::busbw_factor_formula(r.collective)}};
  if (r.collective == perf::Collective::kHypercube)
    s.fields.push_back({"algbw factor", std::string(perf::algbw_factor_formula(r.collective)) +
                                            " (nccl-tests counts the n-1 blocks received)"});
  if (r.graph_launches > 0)
    s.fields.push_back({"CUDA graph", "the " + std::to_string(r.iters) + " calls captured once, launched " +
                                          std::to_string(r.graph_launches) + " times per size"});
  if (perf::has_root(r.collective)) s.fields.push_back({"root", "rank " + std::to_string(r.root)});
  Table t;
  t.columns = {"size (B)", "count (elts)", "type", "time (us)", "algbw (GB/s)", "busbw (GB/s)",
               "#wrong", "p99 (us)", "cv %", "slowest rank"};
  t.align = {Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight,
             Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kLeft};
  double busbw_sum = 0;
  for (const auto& row : r.results) {
    std::string slowest = std::to_string(row.slowest_rank);
    if (static_cast<size_t>(row.slowest_rank) < r.hosts.size())
      slowest += " " + r.hosts[static_cast<size_t>(row.slowest_rank)];
    auto med = median(row.per_rank_time_s);
    if (med && *med > 0 && r.ranks > 1)
      slowest += " (+" + fixed((row.time_s / *med - 1) * 100, "%.0f") + "% vs median rank)";
    t.rows.push_back({std::to_string(row.size_bytes), std::to_string(row.count),
                      perf::to_string(r.dtype), time_us(row.time_s),
                      fixed(row.algbw_bytes_per_s / 1e9, "%.2f"),
                      fixed(row.busbw_bytes_per_s / 1e9, "%.2f"),
                      std::to_string(row.wrong_elements), time_us(row.iterations.p99_s),
                      fixed(row.iterations.cv * 100, "%.1f"), slowest});
    busbw_sum += row.busbw_bytes_per_s;
  }
  const std::string algbw_scale = r.collective == perf::Collective::kHypercube
                                      ? " x " + std::string(perf::algbw_factor_formula(r.collective))
                                      : "";
  t.notes.push_back("time: average per iteration of the slowest rank; algbw = size / time" + algbw_scale +
                    "; busbw = algbw x " + std::string(perf::busbw_factor_formula(r.collective)) +
                    " (nccl-tests); GB/s = 1e9 bytes/s; p99 and cv: over the iterations, each the slowest "
                    "rank's time (nccl-tests -I)");
  if (!r.results.empty())
    t.notes.push_back("Avg bus bandwidth: " +
                      fixed(busbw_sum / static_cast<double>(r.results.size()) / 1e9, "%.3f") +
                      " GB/s");
  s.tables.push_back(std::move(t));
  doc.sections.push_back(std::move(s));
  return doc;
}

// The sweep so far as a run state: the finished rows, the size now running and the rest.
RunState bench_state(const Envelope& base, const perf::BenchResult& so_far, const std::vector<uint64_t>& left) {
  RunState st;
  st.env = base;
  st.env.hosts = distinct_hosts(so_far.hosts);
  perf::to_json(st.env.data, so_far);
  st.env.findings = perf::bench_findings(so_far);
  st.doc = bench_document(so_far);
  const std::string coll = perf::to_string(so_far.collective);
  if (!left.empty()) {
    const size_t done = so_far.results.size();
    st.during = "size " + perf::format_size_bytes(left[0]) + " of " + coll + " (" + std::to_string(done + 1) +
                " of " + std::to_string(done + left.size()) + ")";
  }
  if (left.size() == 2) st.not_run = "size " + perf::format_size_bytes(left[1]) + " of " + coll;
  if (left.size() > 2)
    st.not_run = "sizes " + perf::format_size_bytes(left[1]) + ".." + perf::format_size_bytes(left.back()) + " of " + coll;
  return st;
}

// Parses and checks the flags into `bo` (before MPI starts); the usage error's exit code.
std::optional<int> bench_options(const BenchOptions& o, perf::BenchOptions& bo) {
  auto coll = perf::parse_collective(o.collective);
  auto dtype = perf::parse_dtype(o.dtype);
  if (!coll || !dtype) {
    return usage_error_once("unknown collective \"" + o.collective + "\" or dtype \"" + o.dtype + "\"");
  }
  bo.collective = *coll;
  bo.dtype = *dtype;
  auto min_bytes = perf::parse_size_bytes(o.min_bytes);
  if (!min_bytes) return usage_error_once("-b: " + min_bytes.error().message);
  auto max_bytes = perf::parse_size_bytes(o.max_bytes);
  if (!max_bytes) return usage_error_once("-e: " + max_bytes.error().message);
  bo.sweep = {*min_bytes, *max_bytes, o.factor};
  bo.warmup_iters = o.warmup_iters;
  bo.iters = o.iters;
  bo.graph_launches = o.graph_launches;
  bo.skew_iters = o.skew_iters;
  bo.root = o.root;
  if (auto st = perf::validate_bench_options(bo); !st) {
    return usage_error_once(st.error().message);
  }
  if (o.graph_launches > 0 && o.backend != "nccl")
    return usage_error_once("-G " + std::to_string(o.graph_launches) + ": CUDA graphs are for --backend nccl");
  if (o.gpus && o.backend != "nccl")
    return usage_error_once("-g " + std::to_string(*o.gpus) + ": local GPUs are for --backend nccl");
  if (o.backend == "nccl" && o.gpus && (*o.gpus < 1 || *o.gpus > perf::kMaxNcclLocalGpus))
    return usage_error_once("-g " + std::to_string(*o.gpus) + ": the GPU count must be 1.." +
                            std::to_string(perf::kMaxNcclLocalGpus));
  if (o.backend == "nccl" && o.gpus.value_or(1) > 1 && launcher_rank())
    return usage_error_once("-g " + std::to_string(*o.gpus) + " under mpirun/srun: each rank drives one GPU "
                            "(its local rank); drop -g, or run one process without the launcher");
  return std::nullopt;
}

// The state before the first size: the run's parameters, nothing measured.
RunState startup_bench_state(const Envelope& env, const perf::BenchOptions& bo, const char* during) {
  perf::BenchResult none;
  none.collective = bo.collective;
  none.backend = env.params.value("backend", none.backend);
  std::vector<uint64_t> sizes = perf::sweep_sizes(bo.sweep);
  sizes.insert(sizes.begin(), 0);  // bench_state's "during" slot: start-up, not a size
  RunState st = bench_state(env, none, sizes);
  st.during = during;
  return st;
}

// The finished run: its document, findings and exit code.
// `nccl_transport`: the data's member of an NCCL run (nccl_info_capture.h), null otherwise.
int emit_bench(const GlobalOptions& g, Envelope& env, const perf::BenchResult& result, PartialRun& run,
               std::chrono::steady_clock::time_point started, const nlohmann::json& nccl_transport = nullptr) {
  env.hosts = distinct_hosts(result.hosts);
  perf::to_json(env.data, result);
  if (!nccl_transport.is_null()) env.data["nccl_transport"] = nccl_transport;
  env.findings = perf::bench_findings(result);
  finish_envelope(env, started);
  run.finish(env);
  return emit(g, env, bench_document(result));
}

// --backend nccl: one process drives -g N local GPUs (perf/nccl_bench.h). A backend that cannot
// start here (not compiled, no library, no GPU, ncclCommInitAll failing) exits 3 with the reason.
int run_bench_nccl(const GlobalOptions& g, const BenchOptions& o, const perf::BenchOptions& bo, Envelope& env,
                   std::chrono::steady_clock::time_point started) {
  perf::NcclBenchOptions no{bo, o.gpus.value_or(1)};
  env.params["gpus"] = no.gpus;
  PartialRun run(g, PartialRunOptions{o.run.checkpoint, o.run.timeout_s, false});
  run.publish(startup_bench_state(env, bo, "start-up (CUDA, NCCL and buffers), before the first size"));
  auto on_step = [&](const perf::BenchResult& so_far, const std::vector<uint64_t>& left) {
    run.publish(bench_state(env, so_far, left));
  };
  NcclInfoCapture capture;  // before NCCL's first call: NCCL reads NCCL_DEBUG_FILE once
  auto result = perf::run_nccl_bench(no, stderr_progress(g), on_step);
  if (!result) {
    const Error& e = result.error();
    if (e.code == ErrorCode::kInvalidArgument) return usage_error_once(e.to_string());
    if (e.code == ErrorCode::kUnsupported) {
      print_error("NCCL backend cannot run here: " + e.to_string());
      return kExitMissingCapability;
    }
    print_error(e.to_string());
    return run.fail(e);
  }
  return emit_bench(g, env, *result, run, started, nccl_transport_json(capture.text(), capture.why_not()));
}

}  // namespace

int run_bench(const GlobalOptions& g, const BenchOptions& o) {
  const auto started = std::chrono::steady_clock::now();
  Envelope env = make_envelope("fabdiag.bench/1");
  perf::BenchOptions bo;
  if (auto rc = bench_options(o, bo)) return *rc;
  if (auto rc = refuse_unwritable_outputs(g, o.run.checkpoint)) return *rc;

  env.params = {{"collective", o.collective}, {"min_bytes", bo.sweep.min_bytes},
                {"max_bytes", bo.sweep.max_bytes}, {"step_factor", o.factor},
                {"warmup", o.warmup_iters},   {"iters", o.iters},
                {"dtype", o.dtype},           {"backend", o.backend},
                {"graph_launches", o.graph_launches}, {"root", o.root}, {"timeout_s", o.run.timeout_s}};
  if (o.skew_iters > 0) env.params["skew_iters"] = o.skew_iters;
  // --backend nccl: one rank per GPU inside an MPI job (launcher_rank() set, no -g > 1), else
  // one process driving -g N local GPUs.
  const bool nccl_ranks = o.backend == "nccl" && launcher_rank().has_value();
  if (o.backend == "nccl" && !nccl_ranks) return run_bench_nccl(g, o, bo, env, started);
  // Rank 0 reports, so rank 0 delivers a cut run. It watches from before MPI starts (MPI_Init
  // can take seconds): a Ctrl-C then still prints the run's document, with no size finished.
  std::optional<PartialRun> run;
  const auto start_watching = [&] {
    run.emplace(g, PartialRunOptions{o.run.checkpoint, o.run.timeout_s, false});
    run->publish(startup_bench_state(env, bo, nccl_ranks ? "start-up (MPI, CUDA, NCCL and buffers), before the first size"
                                                        : "start-up (MPI and buffers), before the first size"));
  };
  if (launcher_rank().value_or(0) == 0) start_watching();
  auto session = open_mpi_or_report();
  if (!session) return kExitMissingCapability;
  std::unique_ptr<perf::NcclWorld> nccl;
  std::optional<NcclInfoCapture> capture;  // before NCCL's first call: NCCL reads NCCL_DEBUG_FILE once
  if (nccl_ranks) {
    capture.emplace();
    nccl = open_nccl_world_or_report(*session);
    if (!nccl) return kExitMissingCapability;
    add_nccl_world_params(env.params, *nccl);
  }
  perf::Comm& comm = nccl ? nccl->comm() : session->world();
  if (comm.rank() != 0) run.reset();       // a launcher that numbers ranks unlike MPI
  if (comm.rank() == 0 && !run) start_watching();
  if (comm.size() == 1)
    std::fprintf(stderr, "fabdiag: note: 1 rank (not started by mpirun?): no data crosses a link and busbw is 0 "
                         "by definition; run it as `mpirun -np N fabdiag bench %s`\n", o.collective.c_str());
  perf::BenchStepSink on_step;
  if (run) {
    on_step = [&](const perf::BenchResult& so_far, const std::vector<uint64_t>& left) {
      perf::BenchResult tagged = so_far;
      tagged.backend = o.backend;  // run_collective_bench leaves the default, "mpi"
      run->publish(bench_state(env, tagged, left));
    };
  }
  auto result = perf::run_collective_bench(comm, bo, rank0_progress(g, comm), on_step);
  if (!result) return fail_mpi_run(*session, result.error(), run ? &*run : nullptr);
  auto nccl_transport = collect_nccl_transport(session->world(), capture);
  if (!nccl_transport) return fail_mpi_run(*session, nccl_transport.error(), run ? &*run : nullptr);
  if (comm.rank() != 0) return kExitOk;  // only rank 0 reports
  result->backend = o.backend;

  return emit_bench(g, env, *result, *run, started, *nccl_transport);
}

}  // namespace fabdiag::cmd
