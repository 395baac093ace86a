// `accept --spec S --hostfile H`: the cluster run. Composes the mpirun job of `accept --worker`
// (one rank per host, triage/launcher.h as `triage --hostfile` does), keeps the deadline, drops a
// host that does not answer and relaunches on the rest, and judges the parts rank 0 collected with
// the verdict --from uses (file_collected_parts -> accept::evaluate: cmd/accept.cpp).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cmd/accept.h"
#include "cmd/cli_validators.h"
#include "cmd/mpi_job.h"
#include "core/atomic_file.h"
#include "core/environment.h"
#include "core/escape_line.h"
#include "core/exit_codes.h"
#include "core/run_cut.h"
#include "perf/sweep.h"
#include "report/humanize.h"
#include "report/render.h"
#include "triage/hostfile.h"
#include "triage/launcher.h"

namespace fabdiag::cmd {

void add_accept_cluster_options(CLI::App* sub, AcceptOptions& o) {
  auto* hf = sub->add_option("--hostfile", o.hostfile,
                             "The cluster, live: one rank per host of this Open MPI or MPICH hostfile under mpirun "
                             "(topo, check, counters around the benches, pairs and soak; docs/accept.md#a-cluster-live)")
                 ->type_name("FILE");
  sub->get_option("--from")->excludes(hf);
  sub->add_option("--mpirun", o.mpirun, "--hostfile: the mpirun program (default mpirun)");
  sub->add_option("--mpirun-args-file", o.mpirun_args_file,
                  "--hostfile: extra mpirun arguments, one per line (emucluster writes STATE/mpirun-args)")
      ->check(CLI::ExistingFile);
  sub->add_option("--mpirun-arg", o.mpirun_args, "--hostfile: one extra mpirun argument (repeatable)")->allow_extra_args(false);
  sub->add_option("--backend", o.backend, "--hostfile: mpi = benches and pairs in host memory over MPI (default); "
                  "nccl = on one GPU per rank through NCCL (exit 3 where it cannot run)")
      ->check(CLI::IsMember({"mpi", "nccl"}));
  sub->add_option("--pair-size", o.pair_size, "--hostfile: bytes each way per pair exchange (default 4M)");
  sub->add_option("--pair-iters", o.pair_iters, "--hostfile: timed exchanges per pair (default 5)")->check(CLI::Range(1, 10000));
  sub->add_option("--bench-iters", o.bench_iters, "--hostfile: timed calls per bench size (default 20)")->check(CLI::Range(1, 100000));
  sub->add_option("--timeout", o.timeout_s, "--hostfile: seconds before the run is cut and what was collected is judged, "
                  "marked partial (exit 4); 0 = none; default: derived (docs/accept.md#a-cluster-live)")
      ->check(number_in(-1.0, 864000.0));
  sub->add_option("--save", o.save, "--hostfile: also write what was collected as a --from folder "
                  "(DIR/<host>/{topo,check,counters}.json, DIR/bench-N.json, DIR/pairwise.json)")->type_name("DIR");
  sub->add_flag("--worker", o.worker, "Internal: one MPI rank of a --hostfile run")->group("");
}

namespace {

/// The default deadline of a cluster run, seconds: 120 (mpirun and MPI start, topo, check and the
/// snapshots) + 1.5 x --duration + 60 per bench + 30 per pair round (n-1 rounds, n even), so a
/// healthy run never meets it and a hung one is cut in minutes.
double default_deadline_s(size_t hosts, const accept::Spec& spec, const AcceptOptions& o) {
  const double rounds = spec.deliver.pair_checked ? static_cast<double>(hosts + hosts % 2 - 1) : 0;
  return 120 + 1.5 * o.duration_s + 60.0 * static_cast<double>(spec.deliver.busbw.size()) + 30 * rounds;
}

std::string absolute(const std::string& path) {
  return path.empty() ? path : std::filesystem::absolute(path).string();
}

std::vector<std::string> worker_args(const GlobalOptions& g, const AcceptOptions& o) {
  std::vector<std::string> a = {"--sysfs-root", g.sysfs_root, "accept", "--worker", "--spec", absolute(o.spec),
                                "--duration", format_sig(o.duration_s, 9), "--backend", o.backend,
                                "--pair-size", o.pair_size, "--pair-iters", std::to_string(o.pair_iters),
                                "--bench-iters", std::to_string(o.bench_iters)};
  if (!o.nvml_lib.empty()) a.insert(a.end(), {"--nvml-lib", o.nvml_lib});
  if (!g.procfs_root.empty() && g.procfs_root != "/proc") a.insert(a.begin(), {"--procfs-root", g.procfs_root});
  if (g.quiet) a.insert(a.begin(), "--quiet");
  return a;
}

// A hostfile of `hosts` (one per line) in a temporary file, pointed to by `spec` (and by a
// --hostfile among the site's mpirun flags). Errors: kIo.
Status point_at_hosts(triage::LaunchSpec& spec, const std::vector<std::string>& hosts) {
  char path[] = "/tmp/fabdiag-accept-hosts.XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return make_error(ErrorCode::kIo, "cannot create a hostfile for the relaunch", path);
  close(fd);
  std::string text;
  for (const auto& h : hosts) text += h + "\n";
  if (auto st = write_file_atomic(path, text); !st) return st;
  spec.hostfile = path;
  spec.nodes = static_cast<int>(hosts.size());
  for (size_t i = 0; i + 1 < spec.mpirun_args.size(); ++i)
    if (spec.mpirun_args[i] == "--hostfile" || spec.mpirun_args[i] == "-hostfile" || spec.mpirun_args[i] == "--machinefile")
      spec.mpirun_args[i + 1] = path;
  return Ok{};
}

// Writes the collected parts as a --from folder. Errors are said and do not stop the verdict.
void save_parts(const std::string& dir, const Envelope& collected) {
  int n = 0;
  for (const auto& p : collected.data.value("parts", nlohmann::json::array())) {
    const std::string schema = p.value("schema", ""), host = p.value("host", "");
    const std::string kind = schema.substr(8, schema.find('/') - 8);  // "fabdiag.topo/1" -> "topo"
    if (!host.empty() && !triage::is_valid_hostname(host)) continue;  // a name that would lead the path elsewhere
    std::string path = host.empty() ? dir + "/" + kind + (kind == "bench" ? "-" + std::to_string(++n) : "") + ".json"
                                    : dir + "/" + host + "/" + kind + ".json";
    Envelope env = make_envelope(schema);
    env.hosts = host.empty() ? collected.hosts : std::vector<std::string>{host};
    env.data = p.value("data", nlohmann::json());
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    if (auto st = write_file_atomic(path, render_json(env)); !st) print_error(st.error().to_string() + " (--save)");
  }
}

// The host a failed launch names as not answering, when it is one of `hosts` and the rest can
// still run (2 or more); "" otherwise.
std::string dead_host(const triage::LaunchOutcome& l, const std::vector<std::string>& hosts) {
  if (l.interrupted_by || l.result || hosts.size() < 3) return "";
  return std::find(hosts.begin(), hosts.end(), l.failure.source) != hosts.end() ? l.failure.source : "";
}

// The cut of a launch without a whole result: its reason, exit code and error code.
void mark_launch_cut(const triage::LaunchOutcome& l, double deadline_s, AcceptRun& run) {
  Cut cut = l.result ? l.result->cut : Cut{"", l.last_progress, "the whole run"};
  if (l.interrupted_by) {
    StopCause cause{l.interrupted_by, 0};
    cut.reason = describe_stop(cause);
    run.cut_code = stop_error_code(cause);
    run.cut_exit = stop_exit_code(cause);
  } else {
    cut.reason = l.timed_out ? describe_stop(StopCause{0, deadline_s}) : "the MPI job failed";
    run.cut_code = l.timed_out ? ErrorCode::kTimeout : l.failure.code;
    run.cut_exit = kExitPartial;
  }
  print_error(cut_text(cut) + "; what was collected is judged, marked partial");
  run.cut = std::move(cut);
}

// Refuses what cannot start (exit 2 or 3) before mpirun: the hostfile, the sizes, the backend,
// the outputs. nullopt with `hosts` read.
std::optional<int> refuse_bad_launch(const GlobalOptions& g, const AcceptOptions& o, std::vector<std::string>& hosts) {
  // mpirun is looked up in the caller's PATH: setuid, that would run the caller's programs.
  if (process_environment().secure()) {
    print_error("--hostfile: refused: fabdiag runs setuid or setgid, and mpirun would be found in the caller's PATH");
    return kExitUsage;
  }
  auto h = triage::read_hostfile(o.hostfile);
  if (!h) {
    print_error("--hostfile: " + h.error().to_string());
    return kExitUsage;
  }
  if (h->size() < 2) {
    print_error(o.hostfile + ": a cluster run needs at least 2 hosts, the hostfile names " + std::to_string(h->size()) +
                " (one host: accept without --hostfile)");
    return kExitUsage;
  }
  if (auto size = perf::parse_size_bytes(o.pair_size); !size || *size == 0) {
    print_error("--pair-size: " + (size ? std::string("must be at least 1 byte") : size.error().message));
    return kExitUsage;
  }
  if (auto rc = refuse_unavailable_backend(o.backend)) return rc;
  if (auto rc = refuse_unwritable_outputs(g, "")) return rc;
  hosts = std::move(*h);
  return std::nullopt;
}

}  // namespace

int run_accept_cluster(const GlobalOptions& g, const AcceptOptions& o, const accept::Spec& spec) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::string> hosts;
  if (auto rc = refuse_bad_launch(g, o, hosts)) return *rc;
  auto base = triage::base_launch_spec(o.mpirun, o.hostfile, hosts.size(), o.mpirun_args_file, o.mpirun_args);
  if (!base) {
    print_error(base.error().to_string());
    return kExitUsage;
  }
  triage::LaunchSpec launch = std::move(*base);
  launch.worker_args = worker_args(g, o);
  launch.progress_prefix = "fabdiag: accept: ";
  const double deadline_s = o.timeout_s < 0 ? default_deadline_s(hosts.size(), spec, o) : o.timeout_s;
  triage::LaunchWatch watch;
  watch.on_line = [&](const std::string& line) {
    if (!g.quiet || line.rfind("fabdiag:", 0) != 0) std::cerr << line << "\n";
  };
  watch.progress = [&](const std::string& line) {
    if (!g.quiet) std::cerr << "fabdiag: accept: " << escape_line(line) << "\n";
  };
  AcceptRun run;
  run.params = {{"hostfile", o.hostfile}, {"backend", o.backend}, {"timeout_s", deadline_s}, {"pair_size", o.pair_size},
                {"pair_iters", o.pair_iters}, {"bench_iters", o.bench_iters}, {"sysfs_root", g.sysfs_root}};
  std::vector<std::string> dropped;
  Result<triage::LaunchOutcome> l = make_error(ErrorCode::kInternal, "not launched");
  for (;;) {
    if (g.verbose > 0) {
      std::string line;
      for (const auto& a : triage::compose_mpirun_argv(launch)) line += (line.empty() ? "" : " ") + a;
      std::cerr << "fabdiag: running " << line << "\n";
    }
    l = triage::run_launch(system_process_runner(), launch, hosts, deadline_s, watch);
    if (!l) {
      print_error(l.error().to_string() + " (is Open MPI installed? --mpirun names another launcher)");
      return kExitMissingCapability;
    }
    const std::string dead = dead_host(*l, hosts);
    if (dead.empty()) break;
    print_error(l->failure.to_string() + "; judging the other " + std::to_string(hosts.size() - 1) + " hosts without it");
    run.errors.push_back(l->failure);
    dropped.push_back(dead);
    hosts.erase(std::find(hosts.begin(), hosts.end(), dead));
    const std::string previous = dropped.size() > 1 ? launch.hostfile : "";
    if (auto st = point_at_hosts(launch, hosts); !st) {
      print_error(st.error().to_string());
      return kExitPartial;
    }
    if (!previous.empty()) std::remove(previous.c_str());  // the last relaunch's own hostfile
  }
  accept::Inputs in;
  std::vector<AcceptInputFile> files;
  if (l->result) file_collected_parts(l->result->data, in, files);
  for (const auto& h : dropped) {
    in.hosts.push_back(accept::HostInputs{h, {}, {}, {}});
    files.push_back({h, "not collected: the host did not answer (its node checks are not checked)"});
  }
  if (!l->result || l->result->partial) {
    if (!l->interrupted_by && !l->failure.message.empty()) {
      print_error(l->failure.to_string());
      run.errors.push_back(l->failure);
    }
    mark_launch_cut(*l, deadline_s, run);
  }
  if (!o.save.empty() && l->result) save_parts(o.save, *l->result);
  if (!dropped.empty()) std::remove(launch.hostfile.c_str());  // the relaunch's hostfile (point_at_hosts)
  return judge_and_write(g, o, spec, in, files, run, started);
}

}  // namespace fabdiag::cmd
