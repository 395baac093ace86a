#include "triage/launcher.h"

#include <unistd.h>

#include <algorithm>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/text.h"
#include "triage/launch_failure.h"

namespace fabdiag::triage {

Result<std::vector<std::string>> read_args_file(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.error().with_context("reading the mpirun arguments file");
  std::vector<std::string> args;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    args.push_back(t);
  }
  return args;
}

Result<LaunchSpec> base_launch_spec(const std::string& mpirun, const std::string& hostfile, size_t nodes,
                                    const std::string& args_file, const std::vector<std::string>& args) {
  LaunchSpec spec;
  spec.mpirun = mpirun;
  spec.hostfile = hostfile;
  spec.nodes = static_cast<int>(nodes);
  if (!args_file.empty()) {
    auto extra = read_args_file(args_file);
    if (!extra) return extra.error();
    spec.mpirun_args = *extra;
  }
  spec.mpirun_args.insert(spec.mpirun_args.end(), args.begin(), args.end());
  // An operator running fabdiag as root has already made the choice Open MPI asks for.
  if (geteuid() == 0 && std::find(spec.mpirun_args.begin(), spec.mpirun_args.end(), "--allow-run-as-root") ==
                            spec.mpirun_args.end())
    spec.mpirun_args.push_back("--allow-run-as-root");
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  spec.self_exe = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "fabdiag";
  return spec;
}

std::vector<std::string> compose_mpirun_argv(const LaunchSpec& spec) {
  auto has = [&](std::initializer_list<const char*> flags) {
    for (const auto& a : spec.mpirun_args)
      for (const char* f : flags)
        if (a == f) return true;
    return false;
  };
  std::vector<std::string> argv = {spec.mpirun};
  if (!spec.hostfile.empty() && !has({"--hostfile", "-hostfile", "--machinefile", "-machinefile"}))
    argv.insert(argv.end(), {"--hostfile", spec.hostfile});
  if (spec.nodes > 0 && !has({"-np", "-n", "--np"})) argv.insert(argv.end(), {"-np", std::to_string(spec.nodes)});
  if (!has({"--map-by", "-map-by"})) argv.insert(argv.end(), {"--map-by", "node"});
  argv.insert(argv.end(), spec.mpirun_args.begin(), spec.mpirun_args.end());
  argv.push_back(spec.self_exe);
  argv.insert(argv.end(), spec.worker_args.begin(), spec.worker_args.end());
  return argv;
}

namespace {

// One probe of one host: `fabdiag --version` there alone. Empty reason = it answered.
struct HostAnswer {
  std::string reason;
  int interrupted_by = 0;
};

HostAnswer probe_host(const ProcessRunner& runner, const LaunchSpec& spec, const std::string& host, double timeout_s) {
  LaunchSpec one = spec;
  one.nodes = 1;
  one.mpirun_args.insert(one.mpirun_args.end(), {"--host", host});
  one.worker_args = {"--version"};
  auto r = runner.run(compose_mpirun_argv(one), timeout_s, nullptr, nullptr);
  if (!r.ok()) return {r.error().to_string()};
  if (r->interrupted_by) return {"interrupted", r->interrupted_by};
  if (!r->timed_out && r->exit_code == 0) return {};
  // The line that says why, when mpirun or ssh said it ("ssh: connect to host ... refused").
  auto causes = find_launch_causes(r->stderr_tail, {host});
  if (!causes.empty()) return {"'" + escape_nonprintable(causes[0].line) + "'"};
  if (r->timed_out)
    return {"no process could be started there within " + std::to_string(static_cast<int>(timeout_s)) + " s"};
  return {"starting fabdiag there failed (mpirun exit " + std::to_string(r->exit_code) + ")"};
}

}  // namespace

SilentHosts find_silent_hosts(const ProcessRunner& runner, const LaunchSpec& spec,
                              const std::vector<std::string>& hosts, double timeout_s) {
  SilentHosts out;
  std::vector<HostAnswer> answer(hosts.size());
  constexpr size_t kBatch = 16;
  for (size_t start = 0; start < hosts.size(); start += kBatch) {
    std::vector<std::thread> threads;
    for (size_t i = start; i < std::min(hosts.size(), start + kBatch); ++i)
      threads.emplace_back([&, i] { answer[i] = probe_host(runner, spec, hosts[i], timeout_s); });
    for (auto& t : threads) t.join();
    for (size_t i = start; i < std::min(hosts.size(), start + kBatch); ++i)
      if (answer[i].interrupted_by) out.interrupted_by = answer[i].interrupted_by;
    if (out.interrupted_by) return out;  // Ctrl-C: stop probing, do not start the next batch
  }
  // A host that failed while 16 launches ran at once may only have been slow under load: ask
  // each of those again alone before naming it.
  for (size_t i = 0; i < hosts.size(); ++i) {
    if (answer[i].reason.empty()) continue;
    HostAnswer again = probe_host(runner, spec, hosts[i], timeout_s);
    if (again.interrupted_by) {
      out.interrupted_by = again.interrupted_by;
      return out;
    }
    if (again.reason.empty()) continue;
    out.hosts.emplace_back(hosts[i], answer[i].reason);
  }
  return out;
}

namespace {

// An envelope on one line of rank 0's stdout, else nullopt (Open MPI's own lines, noise).
std::optional<Envelope> envelope_line(const std::string& line) {
  if (line.empty() || line[0] != '{') return std::nullopt;
  auto doc = nlohmann::json::parse(line, nullptr, false);
  if (doc.is_discarded()) return std::nullopt;
  auto env = envelope_from_json(doc);
  if (!env.ok()) return std::nullopt;
  return std::move(*env);
}

// When mpirun said nothing about who failed: name the hosts that do not answer a trivial
// launch (unless Ctrl-C stops that too).
void name_silent_hosts(const ProcessRunner& runner, const LaunchSpec& spec, const std::vector<std::string>& hosts,
                       double timeout_s, const LaunchWatch& watch, LaunchOutcome& out) {
  if (watch.progress) watch.progress("checking which of the " + std::to_string(hosts.size()) + " hosts answer");
  SilentHosts silent = find_silent_hosts(runner, spec, hosts, timeout_s > 0 ? std::min(30.0, timeout_s) : 30.0);
  if (silent.interrupted_by) {
    out.interrupted_by = silent.interrupted_by;
    return;
  }
  if (silent.hosts.empty()) return;
  std::string names;
  for (const auto& [h, r] : silent.hosts) names += (names.empty() ? "" : ", ") + h + " (" + r + ")";
  std::string head = out.failure.message.substr(0, out.failure.message.find("; a host did not answer"));
  out.failure = make_error(out.failure.code, head + "; not answering: " + names, silent.hosts[0].first);
}

}  // namespace

Result<LaunchOutcome> run_launch(const ProcessRunner& runner, const LaunchSpec& spec,
                                 const std::vector<std::string>& hosts, double timeout_s,
                                 const LaunchWatch& watch) {
  LaunchOutcome out;
  auto on_line = [&](const std::string& line) {
    // Open MPI 4.1 prints this harmless race warning on many launches
    // (docs/emulation.md#known-warnings).
    if (line.find("setpgid") != std::string::npos && line.find("plm:rsh") != std::string::npos) return;
    if (!spec.progress_prefix.empty() && line.rfind(spec.progress_prefix, 0) == 0)
      out.last_progress = line.substr(spec.progress_prefix.size());
    if (watch.on_line) watch.on_line(line);
  };
  auto on_out = [&](const std::string& line) {
    auto env = envelope_line(line);
    if (!env) return;
    out.result = std::move(*env);
    if (watch.on_result) watch.on_result(*out.result);
  };
  auto res = runner.run(compose_mpirun_argv(spec), timeout_s, on_line, on_out);
  if (!res.ok()) return res.error();
  out.interrupted_by = res->interrupted_by;
  out.timed_out = res->timed_out;
  if (out.interrupted_by) return out;
  if (out.result && !out.result->partial) return out;  // the whole result, even after a late failure
  out.failure = diagnose_launch_failure(res->stderr_tail, res->exit_code, res->timed_out, timeout_s, out.last_progress,
                                        hosts, spec.hostfile);
  // mpirun did not say who: start a trivial process on each host alone to find the silent ones.
  if (out.failure.source == "mpirun") name_silent_hosts(runner, spec, hosts, timeout_s, watch, out);
  return out;
}

}  // namespace fabdiag::triage
