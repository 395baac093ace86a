#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

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
  CHECK(r.error().message.find("line 2") != std::string::npos);
  std::remove(path);
}
