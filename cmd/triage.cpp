// fabdiag triage: as an MPI job (rank 0 walks, the others follow) or as a launcher that composes
// mpirun from a hostfile, watches it under a deadline and renders rank 0's result.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "cmd/commands.h"
#include "cmd/input.h"
#include "cmd/mpi_job.h"
#include "cmd/nccl_job.h"
#include "cmd/partial_run.h"
#include "cmd/triage_view.h"
#include "core/atomic_file.h"
#include "core/environment.h"
#include "core/escape_line.h"
#include "core/exit_codes.h"
#include "core/run_cut.h"
#include "core/subprocess.h"
#include "import/fabric_topology.h"
#include "perf/comm.h"
#include "perf/sweep.h"
#include "triage/deadline.h"
#include "triage/launcher.h"
#include "triage/mpi_cluster.h"
#include "triage/walk.h"

namespace fabdiag::cmd {

namespace {

// Exit code of a triage result: suspects named -> 1; else gaps or nodes that could not be
// judged (too few partners, too few confirmation tests) -> 4; else 0. Counter warnings without
// a suspect are reported but do not fail the run.
int triage_exit_code(const Envelope& env) {
  const auto& s = env.data.value("suspects", nlohmann::json::array());
  if (!s.empty()) return kExitProblems;
  const auto& inc = env.data.value("inconclusive", nlohmann::json::array());
  return env.errors.empty() && inc.empty() ? kExitOk : kExitPartial;
}

int emit_triage(const GlobalOptions& g, const Envelope& env) {
  int rc = write_rendered(g, env, triage_document(env));
  return rc != kExitOk ? rc : triage_exit_code(env);
}

Result<triage::WalkParams> walk_params(const TriageOptions& o) {
  triage::WalkParams p;
  // An explicit --node-ratio wins; without it the threshold adapts to the screen's spread.
  if (o.node_ratio > 0) p.localize.node_ratio = o.node_ratio;
  else p.localize.adaptive.on = true;
  p.localize.pair_ratio = o.pair_ratio;
  p.localize.oversubscription = o.oversubscription;
  if (o.expected_rate > 0) p.localize.reference_bytes_per_s = o.expected_rate;
  if (o.pair_size == "auto") p.pair_sizing = triage::PairSizingParams{};
  auto pair = perf::parse_size_bytes(o.pair_size == "auto" ? "1M" : o.pair_size);
  if (!pair) return pair.error().with_context("--pair-size");
  auto bmin = perf::parse_size_bytes(o.sweep_min);
  if (!bmin) return bmin.error().with_context("--sweep-min");
  auto bmax = perf::parse_size_bytes(o.sweep_max);
  if (!bmax) return bmax.error().with_context("--sweep-max");
  if (*bmin > *bmax) return make_error(ErrorCode::kInvalidArgument, "--sweep-min is larger than --sweep-max");
  p.pair_size_bytes = *pair;
  p.pair_iters = o.pair_iters;
  p.dead_after_s = o.dead_after_s;
  if (!o.topology.empty()) {  // read here, so a bad file is refused (exit 2, FILE:LINE) before mpirun starts
    auto text = read_input(o.topology);
    if (!text) return text.error().with_context("--topology");
    auto topo = read_fabric_topology(*text, o.topology);
    if (!topo) return topo.error().with_context("--topology");
    p.topology = std::move(*topo);
  }
  p.sweep_stop.on = !o.full_sweeps;
  p.sweeps.clear();
  if (!o.no_sweeps)
    for (const char* c : {"all_reduce", "alltoall"}) {
      triage::CollectiveSpec s;
      s.collective = c;
      s.min_bytes = *bmin;
      s.max_bytes = *bmax;
      s.iters = o.bench_iters;
      p.sweeps.push_back(s);
    }
  return p;
}

// The nodes a walk will have, for its default deadline: the hostfile's hosts, else the MPI job's
// size from the launcher's environment (Open MPI, PMI); 16 when neither says.
int walk_nodes(const TriageOptions& o) {
  if (!o.hostfile.empty() && !o.worker)
    if (auto h = triage::read_hostfile(o.hostfile); h.ok()) return static_cast<int>(h->size());
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (auto v = process_environment().get(var); v && !v->empty()) return std::max(2, std::atoi(v->c_str()));
  return 16;
}

// The fabdiag.triage/1 envelope of a walk report (whole or so far) on top of `base` (schema,
// started_at, params).
Envelope triage_envelope(const Envelope& base, const triage::TriageReport& rep) {
  Envelope env = base;
  env.hosts = rep.hosts;
  env.data = triage::to_json(rep);
  env.findings = rep.findings;
  env.errors = rep.errors;
  return env;
}

// The params the walk chose itself: the node ratio (fixed or adaptive, and why) and the pair
// size (given or sized), from the screen's record in data.pairwise.
void record_chosen_params(Envelope& env) {
  const auto& pw = env.data.value("pairwise", nlohmann::json::object());
  if (!pw.is_object()) return;
  if (pw.contains("node_threshold")) {
    const auto& t = pw["node_threshold"];
    env.params["node_ratio"] = t.value("ratio", nlohmann::json(nullptr));
    if (t.value("source", "") == "adaptive") env.params["node_ratio_source"] = "adaptive";
    else if (env.params.value("node_ratio_source", "") != "flag") env.params["node_ratio_source"] = "fixed";
    env.params["node_ratio_why"] = t.value("why", "");
  }
  if (pw.contains("size_bytes")) env.params["pair_size_bytes"] = pw["size_bytes"];
  env.params["pair_size_source"] = pw.contains("pair_sizing") ? "auto" : "fixed";
}

// Rank 0's side of the walk: the walk itself, each step published to `run`, the result.
Envelope walk_on_rank0(const GlobalOptions& g, const triage::WalkParams& params, perf::Comm& comm,
                       const triage::NodeReadOptions& node, const Envelope& base, PartialRun& run) {
  Progress plain = stderr_progress(g);
  Progress progress = [plain](const std::string& line) { plain("triage: " + line); };
  triage::MpiCluster cluster(comm, node, progress);
  cluster.set_pair_limits(params.dead_after_s, 10);  // a dead pair is named, the walk goes on
  auto on_step = [&](const triage::TriageReport& so_far, const std::string& during, const std::string& not_run) {
    RunState st{triage_envelope(base, so_far), {}, during, not_run};
    st.doc = triage_document(st.env);
    run.publish(std::move(st));
  };
  triage::TriageReport rep = triage::run_walk(cluster, params, triage::judge_counter_snapshots, progress, on_step);
  auto st = cluster.finish();
  if (!st.ok()) rep.errors.push_back(st.error());
  Envelope env = triage_envelope(base, rep);
  record_chosen_params(env);
  return env;
}

int run_worker(const GlobalOptions& g, const TriageOptions& o, const triage::WalkParams& params) {
  auto started = std::chrono::steady_clock::now();
  Envelope base = make_envelope("fabdiag.triage/1");
  base.params = {{"pair_size_bytes", params.pair_size_bytes}, {"pair_iters", params.pair_iters},
                 {"node_ratio", params.localize.adaptive.on ? nlohmann::json("adaptive") : nlohmann::json(params.localize.node_ratio)},
                 {"node_ratio_source", params.localize.adaptive.on ? "adaptive" : "flag"},
                 {"pair_ratio", params.localize.pair_ratio},
                 {"modz_limit", params.localize.modz_limit}, {"sysfs_root", g.sysfs_root},
                 {"reference_bytes_per_s", o.expected_rate > 0 ? nlohmann::json(o.expected_rate) : nlohmann::json(nullptr)},
                 {"timeout_s", o.timeout_s}, {"dead_after_s", params.dead_after_s},
                 {"sweep_early_stop", params.sweep_stop.on ? nlohmann::json({{"ratio", params.sweep_stop.ratio},
                                                                             {"min_bytes", params.sweep_stop.min_bytes}})
                                                           : nlohmann::json(nullptr)},
                 {"backend", o.backend}};
  if (params.topology) {
    base.params["topology"] = fabric_topology_json(*params.topology);
    base.params["oversubscription"] = params.localize.oversubscription;
  }
  if (auto rc = refuse_unavailable_backend(o.backend)) return *rc;
  // Rank 0 reports, so rank 0 delivers a cut run; it watches from before MPI starts, so a
  // Ctrl-C during start-up still prints the run's document. Under the launcher, rank 0
  // streams every step to it and the launcher keeps the deadline.
  std::optional<PartialRun> run;
  const auto start_watching = [&] {
    run.emplace(g, o.worker ? PartialRunOptions{"", 0, true} : PartialRunOptions{o.checkpoint, o.timeout_s, false});
    run->publish(startup_state(base, "fabdiag triage", "every step of the walk"));
  };
  if (launcher_rank().value_or(0) == 0) start_watching();
  auto session = open_mpi_shielded();
  if (!session.ok()) {
    print_error("cannot start MPI: " + session.error().to_string());
    return kExitMissingCapability;
  }
  // --backend nccl: the sweeps and pair tests run on one GPU per rank through NCCL; the triage
  // steps and counter snapshots still travel over MPI (the NCCL Comm's host side).
  std::unique_ptr<perf::NcclWorld> nccl;
  if (o.backend == "nccl") {
    nccl = open_nccl_world_or_report(**session);
    if (!nccl) return kExitMissingCapability;
    add_nccl_world_params(base.params, *nccl);
  }
  perf::Comm& comm = nccl ? nccl->comm() : (*session)->world();
  const std::string& host = comm.hosts()[static_cast<size_t>(comm.rank())];
  auto sysfs = triage::expand_host_placeholder(g.sysfs_root, host);
  auto procfs = triage::expand_host_placeholder(g.procfs_root, host);
  if (!sysfs || !procfs) {  // this rank's host only: the others would wait for it, so abort the job
    print_error(comm.describe_rank(comm.rank()) + ": " + (sysfs ? procfs.error() : sysfs.error()).to_string());
    if (comm.size() > 1) (*session)->abort(kExitUsage);
    return kExitUsage;
  }
  triage::NodeReadOptions node{FsRoot(*sysfs, *procfs), true};
  if (comm.size() < 2) {
    print_error("triage needs at least 2 nodes: run it under `mpirun -np N --map-by node fabdiag triage` "
                "or give --hostfile");
    return kExitUsage;
  }
  if (comm.rank() != 0) {
    run.reset();  // a launcher that numbers ranks unlike MPI
    auto st = triage::serve_followers(comm, node);
    if (!st.ok()) std::cerr << "fabdiag: rank " << comm.rank() << " (" << escape_line(host) << "): " << escape_line(st.error().to_string()) << "\n";
    return st.ok() ? kExitOk : kExitPartial;
  }
  if (!run) start_watching();
  Envelope env = walk_on_rank0(g, params, comm, node, base, *run);
  finish_envelope(env, started);
  run->finish(env);
  if (o.worker) {  // the launcher re-renders the last line: always JSON lines on stdout
    write_stdout(render_json_line(env));
    return kExitOk;  // the launcher decides the exit code; a non-zero rank exit would make
                     // mpirun report a failed job
  }
  return emit_triage(g, env);
}

// The mpirun job of `triage --hostfile`: the hostfile's nodes, the site's mpirun flags, and
// this binary as the worker with the walk's flags. Errors: an unreadable --mpirun-args-file.
Result<triage::LaunchSpec> launch_spec(const GlobalOptions& g, const TriageOptions& o, size_t nodes) {
  auto base = triage::base_launch_spec(o.mpirun, o.hostfile, nodes, o.mpirun_args_file, o.mpirun_args);
  if (!base) return base.error();
  triage::LaunchSpec spec = std::move(*base);
  spec.worker_args = {"--sysfs-root", g.sysfs_root, "triage", "--worker",
                      "--pair-size", o.pair_size, "--pair-iters", std::to_string(o.pair_iters),
                      "--sweep-min", o.sweep_min, "--sweep-max", o.sweep_max,
                      "--bench-iters", std::to_string(o.bench_iters),
                      "--timeout", std::to_string(o.timeout_s),  // for its params: the launcher keeps the deadline
                      "--dead-after", std::to_string(o.dead_after_s),
                      "--pair-ratio", std::to_string(o.pair_ratio), "--expected-rate", std::to_string(o.expected_rate)};
  if (o.node_ratio > 0) spec.worker_args.insert(spec.worker_args.end(), {"--node-ratio", std::to_string(o.node_ratio)});
  if (o.no_sweeps) spec.worker_args.push_back("--no-sweeps");
  if (o.oversubscription != 1)
    spec.worker_args.insert(spec.worker_args.end(), {"--oversubscription", std::to_string(o.oversubscription)});
  if (o.full_sweeps) spec.worker_args.push_back("--full-sweeps");
  if (!o.topology.empty()) {  // rank 0 reads it again, from mpirun's working directory or not
    std::string path = o.topology;
    if (path.front() != '/') {
      char cwd[4096];
      if (getcwd(cwd, sizeof cwd)) path = std::string(cwd) + "/" + path;
    }
    spec.worker_args.insert(spec.worker_args.end(), {"--topology", path});
  }
  if (o.backend != "mpi") spec.worker_args.insert(spec.worker_args.end(), {"--backend", o.backend});
  if (!g.procfs_root.empty() && g.procfs_root != "/proc")
    spec.worker_args.insert(spec.worker_args.begin(), {"--procfs-root", g.procfs_root});
  if (g.quiet) spec.worker_args.insert(spec.worker_args.begin(), "--quiet");
  return spec;
}

// What the launcher knows of a walk that left no result: its hosts and the failure.
Envelope launcher_envelope(const std::vector<std::string>& hosts, const Error& why) {
  Envelope env = make_envelope("fabdiag.triage/1");
  env.hosts = hosts;
  env.data = {{"hosts", hosts}, {"suspects", nlohmann::json::array()},
              {"inconclusive", why.message.empty() ? nlohmann::json::array() : nlohmann::json::array({why.to_string()})}};
  return env;
}

// A launch without a whole result (Ctrl-C, the deadline, a dead rank or host): the last
// envelope rank 0 streamed, or what the launcher knows, cut with the launcher's reason.
// Exit 128 + signal for an interrupt, else 4.
int emit_cut_launch(const GlobalOptions& g, const TriageOptions& o, const std::vector<std::string>& hosts,
                    const triage::LaunchOutcome& launch, std::chrono::steady_clock::time_point started) {
  Envelope env = launch.result ? *launch.result : launcher_envelope(hosts, launch.failure);
  Cut cut = env.partial ? env.cut : Cut{"", launch.last_progress, launch.result ? "" : "the rest of the walk"};
  ErrorCode code = launch.failure.code;
  int rc = kExitPartial;
  if (launch.interrupted_by) {
    StopCause cause{launch.interrupted_by, 0};
    cut.reason = describe_stop(cause);
    code = stop_error_code(cause);
    rc = stop_exit_code(cause);
  } else {
    cut.reason = launch.timed_out ? describe_stop(StopCause{0, o.timeout_s}) : "the MPI job failed";
    if (launch.timed_out) code = ErrorCode::kTimeout;
    if (!launch.failure.message.empty()) {
      print_error(launch.failure.to_string());
      env.errors.push_back(launch.failure);
    }
  }
  mark_cut(env, code, std::move(cut));
  if (!launch.result) finish_envelope(env, started);
  print_error(cut_text(env.cut) + "; what finished follows, marked partial");
  if (!o.checkpoint.empty()) {
    if (auto st = write_file_atomic(o.checkpoint, render_json(env)); !st) print_error(st.error().to_string() + " (--checkpoint)");
  }
  int wrc = write_rendered(g, env, triage_document(env));
  return wrc != kExitOk ? wrc : rc;
}

int run_launcher(const GlobalOptions& g, const TriageOptions& o) {
  // mpirun is looked up in the caller's PATH and runs the caller's --mpirun-arg flags: running
  // setuid or setgid, that would run the caller's programs with the file owner's privileges.
  if (process_environment().secure()) {
    print_error("--hostfile: refused: fabdiag runs setuid or setgid, and mpirun would be found in the caller's PATH "
                "(run triage --hostfile as the user who may start the job)");
    return kExitUsage;
  }
  auto hosts = triage::read_hostfile(o.hostfile);
  if (!hosts) {
    print_error(hosts.error().to_string());
    return kExitUsage;
  }
  if (hosts->size() < 2) {
    print_error(o.hostfile + ": triage needs at least 2 hosts, the hostfile names " + std::to_string(hosts->size()));
    return kExitUsage;
  }
  auto spec = launch_spec(g, o, hosts->size());
  if (!spec) {
    print_error(spec.error().to_string());
    return kExitUsage;
  }
  if (g.verbose > 0) {
    std::string line;
    for (const auto& a : triage::compose_mpirun_argv(*spec)) line += (line.empty() ? "" : " ") + a;
    std::cerr << "fabdiag: running " << line << "\n";
  }
  triage::LaunchWatch watch;
  bool checkpoint_failed = false;
  watch.on_result = [&](const Envelope& e) {
    if (o.checkpoint.empty() || checkpoint_failed) return;
    if (auto st = write_file_atomic(o.checkpoint, render_json(e)); !st) {
      checkpoint_failed = true;  // said once; the run goes on
      print_error(st.error().to_string() + " (--checkpoint; the run goes on)");
    }
  };
  watch.on_line = [&](const std::string& line) {
    if (!g.quiet || line.rfind("fabdiag:", 0) != 0) std::cerr << line << "\n";
  };
  watch.progress = [&](const std::string& line) {
    if (!g.quiet) std::cerr << "fabdiag: triage: " << escape_line(line) << "\n";
  };
  auto started = std::chrono::steady_clock::now();
  auto launch = triage::run_launch(system_process_runner(), *spec, *hosts, o.timeout_s, watch);
  if (!launch.ok()) {
    print_error(launch.error().to_string() + " (is Open MPI installed? --mpirun names another launcher)");
    return kExitMissingCapability;
  }
  if (launch->result && !launch->result->partial) return emit_triage(g, *launch->result);  // whole, whatever came after
  if (launch->interrupted_by)
    print_error(std::string("interrupted: stopped mpirun and the ranks it started on the ") +
                std::to_string(hosts->size()) + " hosts");
  return emit_cut_launch(g, o, *hosts, *launch, started);
}

}  // namespace

int run_triage(const GlobalOptions& g, const TriageOptions& o) {
  if (!o.from.empty()) return run_triage_from(g, o);
  auto params = walk_params(o);
  if (!params) {
    print_error(params.error().to_string());
    return kExitUsage;
  }
  if (!o.worker)
    if (auto rc = refuse_unwritable_outputs(g, o.checkpoint)) return *rc;
  TriageOptions with_deadline = o;  // --timeout not given: derived from the nodes, sizes and rounds
  if (o.timeout_s < 0) with_deadline.timeout_s = triage::default_deadline_s(walk_nodes(o), *params);
  if (!o.hostfile.empty() && !o.worker) return run_launcher(g, with_deadline);
  return run_worker(g, with_deadline, *params);
}

}  // namespace fabdiag::cmd
