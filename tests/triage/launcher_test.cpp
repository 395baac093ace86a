#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/support/fake_process_runner.h"
#include "triage/launcher.h"

using namespace fabdiag;
using namespace fabdiag::triage;

TEST_CASE("hostfile parsing: Open MPI and MPICH forms, comments, duplicates") {
  char path[] = "/tmp/fabdiag-hostfile-XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  std::ofstream(path) << "# cluster\nnode01 slots=1\nnode02:8\n\n  node03  # rack 2\nnode01 slots=1\n";
  auto hosts = read_hostfile(path);
  REQUIRE(hosts.ok());
  CHECK(*hosts == std::vector<std::string>{"node01", "node02", "node03"});
  std::ofstream(path) << "# nothing\n";
  auto empty = read_hostfile(path);
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().code == ErrorCode::kParse);
  CHECK(empty.error().source == path);
  std::remove(path);
  auto missing = read_hostfile("/nonexistent/hosts");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::kNotFound);
}

TEST_CASE("mpirun argv is a vector with the worker command last") {
  LaunchSpec s;
  s.hostfile = "/tmp/h";
  s.nodes = 8;
  s.mpirun_args = {"--mca", "btl", "tcp,self"};
  s.self_exe = "/opt/fabdiag/bin/fabdiag";
  s.worker_args = {"triage", "--worker", "--format", "json"};
  auto argv = compose_mpirun_argv(s);
  CHECK(argv == std::vector<std::string>{"mpirun", "--hostfile", "/tmp/h", "-np", "8", "--map-by", "node", "--mca", "btl",
                                         "tcp,self", "/opt/fabdiag/bin/fabdiag", "triage", "--worker", "--format", "json"});
  s.mpirun_args = {"--hostfile", "/other", "-np", "4"};
  argv = compose_mpirun_argv(s);
  CHECK(std::count(argv.begin(), argv.end(), std::string("--hostfile")) == 1);
  CHECK(std::count(argv.begin(), argv.end(), std::string("-np")) == 1);
}

TEST_CASE("launch failures name the host") {
  auto e = diagnose_launch_failure(
      "--------------------------------------------------------------------------\n"
      "mpirun noticed that process rank 3 with PID 0 on node node04 exited on signal 9 (Killed).\n",
      137, false, 300, "pairwise: round 2/7");
  CHECK(e.source == "node04");
  CHECK(e.code == ErrorCode::kUnavailable);
  CHECK(e.message.find("rank 3") != std::string::npos);
  CHECK(e.message.find("last progress: 'pairwise: round 2/7'") != std::string::npos);

  auto t = diagnose_launch_failure("", -1, true, 60, "bench: all_reduce on 8 nodes");
  CHECK(t.code == ErrorCode::kTimeout);
  CHECK(t.message.find("60 s") != std::string::npos);

  auto d = diagnose_launch_failure("ORTE was unable to reliably start one or more daemons.\n"
                                   "ssh: connect to host node05 port 22: No route to host\n", 1, false, 60, "");
  CHECK(d.source == "node05");
}

TEST_CASE("a hostfile with bytes that are not a host name is refused with the line") {
  char path[] = "/tmp/fabdiag-hostfile-XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  std::ofstream(path) << "node01\nn\xe9ud02\n";
  auto r = read_hostfile(path);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().source == std::string(path) + ":2:1");
  std::remove(path);
}

// ---- launches through a fake ProcessRunner: no sh, no mpirun ----

namespace {

using fabdiag::testing::FakeProcessRunner;

LaunchSpec emulated_spec(int nodes) {
  LaunchSpec s;
  s.hostfile = "/tmp/h";
  s.nodes = nodes;
  s.mpirun_args = {"--mca", "btl", "tcp,self"};
  s.self_exe = "/opt/fabdiag";
  s.worker_args = {"triage", "--worker"};
  return s;
}

// The argv of the silent-host probe of `host` for emulated_spec(), spelled out.
std::vector<std::string> probe_argv(const std::string& host) {
  return {"mpirun", "--hostfile", "/tmp/h", "-np", "1", "--map-by", "node", "--mca", "btl", "tcp,self",
          "--host", host, "/opt/fabdiag", "--version"};
}

const std::vector<std::string> kJobArgv = {"mpirun", "--hostfile", "/tmp/h", "-np", "4", "--map-by", "node",
                                           "--mca", "btl", "tcp,self", "/opt/fabdiag", "triage", "--worker"};
const std::vector<std::string> kHosts = {"node01", "node02", "node03", "node04"};

struct Watched {
  std::vector<std::string> lines, progress;
  LaunchWatch watch() {
    return {[this](const std::string& l) { lines.push_back(l); }, [this](const std::string& l) { progress.push_back(l); }, {}};
  }
};

}  // namespace

TEST_CASE("run_launch runs the composed mpirun argv and returns rank 0's envelope") {
  FakeProcessRunner runner;
  nlohmann::json doc = make_envelope("fabdiag.triage/1");
  doc["data"] = {{"suspects", {"node03"}}};
  runner.script(kJobArgv, fabdiag::testing::exited(0, doc.dump(),
                                                   "[node01:77] [[1,0],0] plm:rsh: setpgid failed\n"
                                                   "fabdiag: triage: pairwise: round 1/3\n"
                                                   "Warning: Permanently added 'node02'\n"));
  Watched w;
  auto out = run_launch(runner, emulated_spec(4), kHosts, 300, w.watch());
  REQUIRE(out.ok());
  REQUIRE(out->result.has_value());
  CHECK(out->result->schema == "fabdiag.triage/1");
  CHECK(out->result->data["suspects"] == nlohmann::json::array({"node03"}));
  CHECK(out->interrupted_by == 0);
  auto calls = runner.calls();
  REQUIRE(calls.size() == 1);
  CHECK(calls[0].argv == kJobArgv);
  CHECK(calls[0].timeout_s == 300);
  // The harmless Open MPI race warning is dropped; the rest reaches the caller in order.
  CHECK(w.lines == std::vector<std::string>{"fabdiag: triage: pairwise: round 1/3", "Warning: Permanently added 'node02'"});
  CHECK(w.progress.empty());
}

TEST_CASE("a launch that times out without naming a host probes each host alone and names the silent one") {
  FakeProcessRunner runner;
  runner.script(kJobArgv, fabdiag::testing::timed_out("fabdiag: triage: pairwise: round 2/7\n"));
  runner.script(probe_argv("node01"), fabdiag::testing::exited(0, "fabdiag 0.1.0\n"));
  runner.script(probe_argv("node02"), fabdiag::testing::timed_out());
  runner.script(probe_argv("node03"), fabdiag::testing::exited(1));  // slow under load only:
  runner.script(probe_argv("node03"), fabdiag::testing::exited(0));  // answers when asked alone
  runner.script(probe_argv("node04"), fabdiag::testing::exited(0));
  Watched w;
  auto out = run_launch(runner, emulated_spec(4), kHosts, 60, w.watch());
  REQUIRE(out.ok());
  CHECK_FALSE(out->result.has_value());
  CHECK(out->interrupted_by == 0);
  CHECK(out->failure.code == ErrorCode::kTimeout);
  CHECK(out->failure.source == "node02");
  CHECK(out->failure.message ==
        "no result within 60 s (last step: pairwise: round 2/7); not answering: node02 (no process could be "
        "started there within 30 s)");
  CHECK(w.progress == std::vector<std::string>{"checking which of the 4 hosts answer"});
  CHECK(runner.count(kJobArgv) == 1);
  CHECK(runner.count(probe_argv("node01")) == 1);
  CHECK(runner.count(probe_argv("node02")) == 2);
  CHECK(runner.count(probe_argv("node03")) == 2);
  CHECK(runner.count(probe_argv("node04")) == 1);
  for (const auto& c : runner.calls())
    if (c.argv != kJobArgv) CHECK(c.timeout_s == 30);  // min(30 s, --timeout)
}

TEST_CASE("a launch failure that names the host is not probed further") {
  FakeProcessRunner runner;
  runner.script(kJobArgv, fabdiag::testing::exited(
                              137, "", "mpirun noticed that process rank 3 with PID 0 on node node04 exited on signal 9 (Killed).\n"));
  Watched w;
  auto out = run_launch(runner, emulated_spec(4), kHosts, 60, w.watch());
  REQUIRE(out.ok());
  CHECK(out->failure.code == ErrorCode::kUnavailable);
  CHECK(out->failure.source == "node04");
  CHECK(out->failure.message == "rank 3 on node04 died (signal 9, Killed)");
  CHECK(runner.calls().size() == 1);
  CHECK(w.progress.empty());
}

TEST_CASE("a launcher program that cannot run is the runner's error, and a result on a failed exit still counts") {
  FakeProcessRunner runner;
  runner.script(kJobArgv, make_error(ErrorCode::kNotFound, "cannot run: No such file or directory", "mpirun"));
  auto missing = run_launch(runner, emulated_spec(4), kHosts, 60, {});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::kNotFound);
  CHECK(missing.error().source == "mpirun");

  FakeProcessRunner late;  // mpirun exits 1 after rank 0 printed its result: the result wins
  late.script(kJobArgv, fabdiag::testing::exited(1, nlohmann::json(make_envelope("fabdiag.triage/1")).dump()));
  auto out = run_launch(late, emulated_spec(4), kHosts, 60, {});
  REQUIRE(out.ok());
  CHECK(out->result.has_value());
}

TEST_CASE("Ctrl-C during the launch or during the silent-host probe stops there and is reported") {
  FakeProcessRunner runner;
  runner.script(kJobArgv, fabdiag::testing::interrupted(SIGINT));
  auto out = run_launch(runner, emulated_spec(4), kHosts, 60, {});
  REQUIRE(out.ok());
  CHECK(out->interrupted_by == SIGINT);
  CHECK(runner.calls().size() == 1);

  FakeProcessRunner probing;
  probing.script(kJobArgv, fabdiag::testing::timed_out());
  probing.script_default(fabdiag::testing::interrupted(SIGTERM));
  auto stopped = run_launch(probing, emulated_spec(4), kHosts, 60, {});
  REQUIRE(stopped.ok());
  CHECK(stopped->interrupted_by == SIGTERM);
  for (const auto& h : kHosts) CHECK(probing.count(probe_argv(h)) == 1);  // no second round
}

TEST_CASE("the silent-host probe covers more hosts than one batch of 16 and keeps hostfile order") {
  FakeProcessRunner runner;
  std::vector<std::string> hosts;
  for (int i = 1; i <= 20; ++i) hosts.push_back("n" + std::to_string(i));
  runner.script_default(fabdiag::testing::exited(0));
  runner.script(probe_argv("n17"), make_error(ErrorCode::kIo, "fork: Resource temporarily unavailable", "mpirun"));
  runner.script(probe_argv("n5"), fabdiag::testing::exited(2));
  auto silent = find_silent_hosts(runner, emulated_spec(20), hosts, 10);
  CHECK(silent.interrupted_by == 0);
  REQUIRE(silent.hosts.size() == 2);
  CHECK(silent.hosts[0] == std::pair<std::string, std::string>{"n5", "starting fabdiag there failed (mpirun exit 2)"});
  CHECK(silent.hosts[1] ==
        std::pair<std::string, std::string>{"n17", "mpirun: fork: Resource temporarily unavailable"});
  CHECK(runner.calls().size() == 22);
  // The 17th host is asked in the second batch, after all of the first 16.
  auto calls = runner.calls();
  size_t first_n17 = 0;
  while (calls[first_n17].argv != probe_argv("n17")) ++first_n17;
  CHECK(first_n17 >= 16);
}

// ---- rank 0 streams one envelope per line: checkpoints, then the result ----

namespace {

// One line of rank 0's stream: a checkpoint (partial, during `during`) or the whole result.
std::string stream_line(const std::string& during, bool partial) {
  Envelope e = make_envelope("fabdiag.triage/1");
  e.data = {{"hosts", kHosts}, {"suspects", nlohmann::json::array()}};
  if (partial) {
    e.partial = true;
    e.cut = Cut{"running: checkpoint", during, "the decision"};
  }
  return nlohmann::json(e).dump() + "\n";
}

}  // namespace

TEST_CASE("each line rank 0 streams reaches on_result as it comes, and the last whole one is the result") {
  FakeProcessRunner runner;
  runner.script(kJobArgv, fabdiag::testing::exited(0, stream_line("pairwise round 1 of 3", true) +
                                                          "some Open MPI line on stdout\n" +
                                                          stream_line("pairwise round 2 of 3", true) +
                                                          stream_line("", false)));
  std::vector<std::string> seen;
  LaunchWatch watch;
  watch.on_result = [&](const Envelope& e) { seen.push_back(e.partial ? e.cut.during : "whole"); };
  auto out = run_launch(runner, emulated_spec(4), kHosts, 300, watch);
  REQUIRE(out.ok());
  CHECK(seen == std::vector<std::string>{"pairwise round 1 of 3", "pairwise round 2 of 3", "whole"});
  REQUIRE(out->result.has_value());
  CHECK_FALSE(out->result->partial);
  CHECK(out->failure.message.empty());
}

TEST_CASE("a job that dies after a checkpoint keeps that checkpoint and names the host that died") {
  FakeProcessRunner runner;
  runner.script(kJobArgv,
                fabdiag::testing::exited(137, stream_line("pairwise round 2 of 7", true),
                                         "fabdiag: triage: pairwise: round 2/7 (4 pairs)\n"
                                         "mpirun noticed that process rank 3 with PID 0 on node node04 exited on signal 9 (Killed).\n"));
  auto out = run_launch(runner, emulated_spec(4), kHosts, 60, {});
  REQUIRE(out.ok());
  REQUIRE(out->result.has_value());
  CHECK(out->result->partial);
  CHECK(out->result->cut.during == "pairwise round 2 of 7");
  CHECK(out->failure.source == "node04");
  CHECK(out->last_progress == "pairwise: round 2/7 (4 pairs)");
  CHECK(runner.calls().size() == 1);
}

TEST_CASE("Ctrl-C or the deadline keep what rank 0 streamed before it") {
  FakeProcessRunner runner;
  runner.script(kJobArgv, fabdiag::testing::interrupted(SIGINT, stream_line("the alltoall sweep (2 of 2)", true)));
  auto out = run_launch(runner, emulated_spec(4), kHosts, 60, {});
  REQUIRE(out.ok());
  CHECK(out->interrupted_by == SIGINT);
  REQUIRE(out->result.has_value());
  CHECK(out->result->cut.during == "the alltoall sweep (2 of 2)");

  FakeProcessRunner late;
  late.script(kJobArgv, fabdiag::testing::timed_out("fabdiag: triage: bench: alltoall on 4 nodes\n",
                                                    stream_line("the alltoall sweep (2 of 2)", true)));
  late.script_default(fabdiag::testing::exited(0));  // every host answers the probe
  auto cut = run_launch(late, emulated_spec(4), kHosts, 60, {});
  REQUIRE(cut.ok());
  CHECK(cut->timed_out);
  REQUIRE(cut->result.has_value());
  CHECK(cut->result->partial);
  CHECK(cut->failure.code == ErrorCode::kTimeout);
}

TEST_CASE("base_launch_spec takes the args file then the flags, and keeps the prefix of the command's progress") {
  char path[] = "/tmp/fabdiag-launch-args.XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  const std::string text = "# site flags\n--mca\nbtl\n\ntcp,self\n";
  REQUIRE(write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  close(fd);
  auto spec = base_launch_spec("mpirun", "/tmp/h", 4, path, {"--bind-to", "none"});
  std::remove(path);
  REQUIRE(spec.ok());
  CHECK(spec->hostfile == "/tmp/h");
  CHECK(spec->nodes == 4);
  std::vector<std::string> want = {"--mca", "btl", "tcp,self", "--bind-to", "none"};
  if (geteuid() == 0) want.push_back("--allow-run-as-root");
  CHECK(spec->mpirun_args == want);
  CHECK(spec->self_exe.find('/') == 0);  // this binary, absolute (/proc/self/exe)
  CHECK(spec->progress_prefix == "fabdiag: triage: ");
  auto missing = base_launch_spec("mpirun", "/tmp/h", 4, "/nonexistent/args", {});
  CHECK_FALSE(missing.ok());

  // `accept --hostfile` keeps its own progress lines as the last step.
  FakeProcessRunner runner;
  runner.script(kJobArgv, fabdiag::testing::exited(0, nlohmann::json(make_envelope("fabdiag.import/1")).dump(),
                                                   "fabdiag: accept: pairwise: round 1/3\n"
                                                          "fabdiag: triage: not this command's\n"));
  LaunchSpec accept = emulated_spec(4);
  accept.progress_prefix = "fabdiag: accept: ";
  Watched w;
  auto out = run_launch(runner, accept, kHosts, 300, w.watch());
  REQUIRE(out.ok());
  CHECK(out->last_progress == "pairwise: round 1/3");
}
