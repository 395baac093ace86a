#include "triage/launcher.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>
#include <thread>

#include "core/atomic_file.h"
#include "core/subprocess.h"
#include "core/text.h"

namespace fabdiag::triage {

Result<std::vector<std::string>> read_hostfile(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.error().with_context("reading the hostfile");
  std::vector<std::string> hosts;
  std::istringstream in(*text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    std::string host = split_ws(line)[0];
    host = host.substr(0, host.find(':'));  // MPICH "host:slots"
    bool valid = !host.empty() && std::all_of(host.begin(), host.end(), [](unsigned char c) {
      return std::isalnum(c) || c == '.' || c == '-' || c == '_';
    });
    if (!valid)
      return make_error(ErrorCode::kParse,
                        "line " + std::to_string(lineno) + " is not a host name (letters, digits, '.', '-', '_')", path);
    if (std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
  }
  if (hosts.empty()) return make_error(ErrorCode::kParse, "the hostfile names no host", path);
  return hosts;
}

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

Error diagnose_launch_failure(const std::string& stderr_text, int exit_code, bool timed_out,
                              double timeout_s, const std::string& last_progress) {
  std::smatch m;
  static const std::regex rank_on_node(R"(rank (\d+) with PID \d+ on node (\S+) exited on signal (\d+)(?: \(([^)]*)\))?)");
  static const std::regex node_only(R"((?:on node|node:|host:?|connect to host) ([A-Za-z0-9._-]+))");
  static const std::regex daemon(R"(daemon (?:on node|died on|on host) ([A-Za-z0-9._-]+))");
  std::string host, what;
  if (std::regex_search(stderr_text, m, rank_on_node)) {
    host = m[2];
    what = "rank " + m[1].str() + " on " + host + " died (signal " + m[3].str() +
           (m[4].matched ? ", " + m[4].str() : "") + ")";
  } else if (std::regex_search(stderr_text, m, daemon) || std::regex_search(stderr_text, m, node_only)) {
    host = m[1];
    what = "the MPI launch failed on " + host;
  }
  std::string tail;
  {
    auto lines = split(trim(stderr_text), '\n');
    size_t from = lines.size() > 4 ? lines.size() - 4 : 0;
    for (size_t i = from; i < lines.size(); ++i) tail += (tail.empty() ? "" : " | ") + trim(lines[i]);
  }
  std::string msg;
  if (timed_out) {
    msg = "no result within " + std::to_string(static_cast<int>(timeout_s)) + " s";
    if (!last_progress.empty()) msg += " (last step: " + last_progress + ")";
    if (!host.empty()) msg += "; " + what;
    else msg += "; a host did not answer or a rank hangs: rerun with -v, or check each host with `fabdiag doctor`";
    return make_error(ErrorCode::kTimeout, msg, host.empty() ? "mpirun" : host);
  }
  if (!host.empty()) {
    msg = what + (last_progress.empty() ? "" : " (last progress: '" + last_progress + "')");
    return make_error(ErrorCode::kUnavailable, msg, host);
  }
  msg = "mpirun exited with code " + std::to_string(exit_code) + (tail.empty() ? "" : ": " + tail);
  return make_error(ErrorCode::kUnavailable, msg, "mpirun");
}

std::vector<std::pair<std::string, std::string>> find_silent_hosts(const LaunchSpec& spec,
                                                                   const std::vector<std::string>& hosts,
                                                                   double timeout_s) {
  std::vector<std::pair<std::string, std::string>> silent;
  std::vector<std::string> reason(hosts.size());
  constexpr size_t kBatch = 16;
  for (size_t start = 0; start < hosts.size(); start += kBatch) {
    std::vector<std::thread> threads;
    for (size_t i = start; i < std::min(hosts.size(), start + kBatch); ++i) {
      threads.emplace_back([&, i] {
        LaunchSpec one = spec;
        one.nodes = 1;
        one.mpirun_args.insert(one.mpirun_args.end(), {"--host", hosts[i]});
        one.worker_args = {"--version"};
        auto r = run_process(compose_mpirun_argv(one), timeout_s, nullptr);
        if (!r.ok()) reason[i] = r.error().to_string();
        else if (r->timed_out) reason[i] = "no process could be started there within " + std::to_string(static_cast<int>(timeout_s)) + " s";
        else if (r->exit_code != 0) reason[i] = "starting fabdiag there failed (mpirun exit " + std::to_string(r->exit_code) + ")";
      });
    }
    for (auto& t : threads) t.join();
  }
  // A host that failed while 16 launches ran at once may only have been slow under load: ask
  // each of those again alone before naming it.
  for (size_t i = 0; i < hosts.size(); ++i) {
    if (reason[i].empty()) continue;
    LaunchSpec one = spec;
    one.nodes = 1;
    one.mpirun_args.insert(one.mpirun_args.end(), {"--host", hosts[i]});
    one.worker_args = {"--version"};
    auto r = run_process(compose_mpirun_argv(one), timeout_s, nullptr);
    if (r.ok() && !r->timed_out && r->exit_code == 0) continue;
    silent.emplace_back(hosts[i], reason[i]);
  }
  return silent;
}

}  // namespace fabdiag::triage
