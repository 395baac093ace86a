// fabdiag triage: as an MPI job (rank 0 walks, the others follow) or as a launcher that composes
// mpirun from a hostfile, watches it under a deadline and renders rank 0's result.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "cmd/commands.h"
#include "cmd/triage_view.h"
#include "core/exit_codes.h"
#include "core/subprocess.h"
#include "perf/comm.h"
#include "perf/sweep.h"
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

std::string self_exe() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "fabdiag";
  return std::string(buf, static_cast<size_t>(n));
}

Result<triage::WalkParams> walk_params(const TriageOptions& o) {
  triage::WalkParams p;
  auto pair = perf::parse_size_bytes(o.pair_size);
  if (!pair) return pair.error().with_context("--pair-size");
  auto bmin = perf::parse_size_bytes(o.sweep_min);
  if (!bmin) return bmin.error().with_context("--sweep-min");
  auto bmax = perf::parse_size_bytes(o.sweep_max);
  if (!bmax) return bmax.error().with_context("--sweep-max");
  if (*bmin > *bmax) return make_error(ErrorCode::kInvalidArgument, "--sweep-min is larger than --sweep-max");
  p.pair_size_bytes = *pair;
  p.pair_iters = o.pair_iters;
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

int run_worker(const GlobalOptions& g, const TriageOptions& o, const triage::WalkParams& params) {
  auto started = std::chrono::steady_clock::now();
  auto session = perf::MpiSession::open();
  if (!session.ok()) {
    print_error("cannot start MPI: " + session.error().to_string());
    return kExitMissingCapability;
  }
  perf::Comm& comm = (*session)->world();
  const std::string& host = comm.hosts()[static_cast<size_t>(comm.rank())];
  triage::NodeReadOptions node{FsRoot(triage::expand_host_placeholder(g.sysfs_root, host),
                                      triage::expand_host_placeholder(g.procfs_root, host)),
                               true};
  if (comm.size() < 2) {
    print_error("triage needs at least 2 nodes: run it under `mpirun -np N --map-by node fabdiag triage` "
                "or give --hostfile");
    return kExitUsage;
  }
  if (comm.rank() != 0) {
    auto st = triage::serve_followers(comm, node);
    if (!st.ok()) std::cerr << "fabdiag: rank " << comm.rank() << " (" << host << "): " << st.error().to_string() << "\n";
    return st.ok() ? kExitOk : kExitPartial;
  }
  Progress base = stderr_progress(g);
  Progress progress = [base](const std::string& line) { base("triage: " + line); };
  triage::MpiCluster cluster(comm, node, progress);
  triage::TriageReport rep = triage::run_walk(cluster, params, triage::judge_counter_snapshots, progress);
  auto st = cluster.finish();
  if (!st.ok()) rep.errors.push_back(st.error());

  Envelope env = make_envelope("fabdiag.triage/1");
  env.hosts = rep.hosts;
  env.params = {{"pair_size_bytes", params.pair_size_bytes}, {"pair_iters", params.pair_iters},
                {"node_ratio", params.localize.node_ratio}, {"pair_ratio", params.localize.pair_ratio},
                {"modz_limit", params.localize.modz_limit}, {"sysfs_root", g.sysfs_root}};
  env.data = triage::to_json(rep);
  env.findings = rep.findings;
  env.errors = rep.errors;
  finish_envelope(env, started);
  if (o.worker) {  // the launcher re-renders: always one JSON document on stdout
    std::string text = render_json(env);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return kExitOk;  // the launcher decides the exit code; a non-zero rank exit would make
                     // mpirun report a failed job
  }
  return emit_triage(g, env);
}

// The mpirun job of `triage --hostfile`: the hostfile's nodes, the site's mpirun flags, and
// this binary as the worker with the walk's flags. Errors: an unreadable --mpirun-args-file.
Result<triage::LaunchSpec> launch_spec(const GlobalOptions& g, const TriageOptions& o, size_t nodes) {
  triage::LaunchSpec spec;
  spec.mpirun = o.mpirun;
  spec.hostfile = o.hostfile;
  spec.nodes = static_cast<int>(nodes);
  if (!o.mpirun_args_file.empty()) {
    auto extra = triage::read_args_file(o.mpirun_args_file);
    if (!extra) return extra.error();
    spec.mpirun_args = *extra;
  }
  spec.mpirun_args.insert(spec.mpirun_args.end(), o.mpirun_args.begin(), o.mpirun_args.end());
  // Open MPI refuses to start as root without this flag, and its refusal reads like a host
  // failure; an operator running fabdiag as root has already made that choice.
  if (geteuid() == 0 && std::find(spec.mpirun_args.begin(), spec.mpirun_args.end(), "--allow-run-as-root") ==
                            spec.mpirun_args.end())
    spec.mpirun_args.push_back("--allow-run-as-root");
  spec.self_exe = self_exe();
  spec.worker_args = {"--sysfs-root", g.sysfs_root, "triage", "--worker",
                      "--pair-size", o.pair_size, "--pair-iters", std::to_string(o.pair_iters),
                      "--sweep-min", o.sweep_min, "--sweep-max", o.sweep_max,
                      "--bench-iters", std::to_string(o.bench_iters)};
  if (o.no_sweeps) spec.worker_args.push_back("--no-sweeps");
  if (!g.procfs_root.empty() && g.procfs_root != "/proc")
    spec.worker_args.insert(spec.worker_args.begin(), {"--procfs-root", g.procfs_root});
  if (g.quiet) spec.worker_args.insert(spec.worker_args.begin(), "--quiet");
  return spec;
}

// A launch without a result: the reason on stderr and a triage document that carries it.
int emit_launch_failure(const GlobalOptions& g, const std::vector<std::string>& hosts, const Error& why,
                        std::chrono::steady_clock::time_point started) {
  print_error(why.to_string());
  Envelope failed = make_envelope("fabdiag.triage/1");
  failed.hosts = hosts;
  failed.data = {{"hosts", hosts}, {"suspects", nlohmann::json::array()}, {"inconclusive", {why.to_string()}}};
  failed.errors.push_back(why);
  finish_envelope(failed, started);
  int rc = write_rendered(g, failed, triage_document(failed));
  return rc != kExitOk ? rc : kExitPartial;
}

int run_launcher(const GlobalOptions& g, const TriageOptions& o) {
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
  watch.on_line = [&](const std::string& line) {
    if (!g.quiet || line.rfind("fabdiag:", 0) != 0) std::cerr << line << "\n";
  };
  watch.progress = [&](const std::string& line) {
    if (!g.quiet) std::cerr << "fabdiag: triage: " << line << "\n";
  };
  auto started = std::chrono::steady_clock::now();
  auto launch = triage::run_launch(system_process_runner(), *spec, *hosts, o.timeout_s, watch);
  if (!launch.ok()) {
    print_error(launch.error().to_string() + " (is Open MPI installed? --mpirun names another launcher)");
    return kExitMissingCapability;
  }
  if (launch->interrupted_by) {
    print_error(std::string("interrupted: stopped mpirun and the ranks it started on the ") +
                std::to_string(hosts->size()) + " hosts");
    return 128 + launch->interrupted_by;
  }
  if (launch->result) return emit_triage(g, *launch->result);
  return emit_launch_failure(g, *hosts, launch->failure, started);
}

}  // namespace

int run_triage(const GlobalOptions& g, const TriageOptions& o) {
  auto params = walk_params(o);
  if (!params) {
    print_error(params.error().to_string());
    return kExitUsage;
  }
  if (!o.hostfile.empty() && !o.worker) return run_launcher(g, o);
  return run_worker(g, o, *params);
}

}  // namespace fabdiag::cmd
