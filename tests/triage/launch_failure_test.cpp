// Launch failures quote the line that names the cause and the host it concerns, from recorded
// stderr (tests/fixtures/launch/README.md) and OpenSSH's own message texts.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/atomic_file.h"
#include "tests/support/fake_process_runner.h"
#include "triage/launcher.h"

using namespace fabdiag;
using namespace fabdiag::triage;
using fabdiag::testing::FakeProcessRunner;

namespace {

std::string recorded(const std::string& name) {
  auto text = read_file(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/launch/" + name);
  REQUIRE(text.ok());
  return *text;
}

bool quotes_boilerplate(const std::string& message) {
  return message.find("ORTE was unable") != std::string::npos || message.find("This usually is caused") != std::string::npos ||
         message.find("----") != std::string::npos || message.find("internal error") != std::string::npos;
}

}  // namespace

TEST_CASE("an unresolvable host is named by its own name, not 'Name' from 'Name or service not known'") {
  auto e = diagnose_launch_failure(recorded("ssh-unresolvable.stderr"), 255, false, 300, "", {"node07", "node08"}, "hf");
  CHECK(e.code == ErrorCode::kUnavailable);
  CHECK(e.source == "node08");  // ssh reported node08 first
  CHECK(e.message ==
        "the launch failed on node08: 'ssh: Could not resolve hostname node08: Name or service not known'; also node07 "
        "('ssh: Could not resolve hostname node07: Name or service not known')");
  CHECK_FALSE(quotes_boilerplate(e.message));
}

TEST_CASE("a refused ssh connection names both hosts, past Open MPI's help texts between them") {
  auto causes = find_launch_causes(recorded("ssh-refused.stderr"), {"127.0.0.2", "127.0.0.3"});
  REQUIRE(causes.size() == 2);
  CHECK(causes[0].kind == LaunchCauseKind::kConnect);
  CHECK(causes[0].host == "127.0.0.2");
  CHECK(causes[0].line == "ssh: connect to host 127.0.0.2 port 22: Connection refused");
  CHECK(causes[1].host == "127.0.0.3");
  auto e = diagnose_launch_failure(recorded("ssh-refused.stderr"), 255, false, 300, "", {"127.0.0.2", "127.0.0.3"});
  CHECK(e.source == "127.0.0.2");
  CHECK_FALSE(quotes_boilerplate(e.message));
}

TEST_CASE("orted missing on the far side is quoted, and the host is left to the probe") {
  auto e = diagnose_launch_failure(recorded("orted-missing.stderr"), 127, false, 300, "", {"node05", "node06"});
  CHECK(e.source == "mpirun");
  CHECK(e.message == "the launch failed: '/bin/bash: line 1: orted: command not found'");
  for (const char* line : {"bash: orted: command not found", "sh: 1: prted: not found", "zsh: command not found: orted",
                           "orted: error while loading shared libraries: libopen-rte.so.40: cannot open shared object file"}) {
    auto c = find_launch_causes(line, {});
    REQUIRE_MESSAGE(c.size() == 1, line);
    CHECK(c[0].kind == LaunchCauseKind::kDaemonMissing);
    CHECK(c[0].host.empty());
  }
}

TEST_CASE("an rsh agent's own error names the hostfile host it mentions") {
  auto e = diagnose_launch_failure(recorded("emucluster-rsh-down.stderr"), 255, false, 300, "", {"node05", "node06"});
  CHECK(e.source == "node05");
  CHECK(e.message ==
        "the launch failed on node05: 'emucluster-rsh: node05 is not up (no /tmp/fabdiag-emucluster/node05; run "
        "emucluster.sh up)'; also node06 ('emucluster-rsh: node06 is not up (no /tmp/fabdiag-emucluster/node06; run "
        "emucluster.sh up)')");
}

TEST_CASE("too few slots and a malformed hostfile blame the hostfile, not a host") {
  auto s = diagnose_launch_failure(recorded("not-enough-slots.stderr"), 1, false, 300, "", {"localhost"}, "hosts.txt");
  CHECK(s.code == ErrorCode::kInvalidArgument);
  CHECK(s.source == "hosts.txt");
  CHECK(s.message ==
        "mpirun found too few slots: 'There are not enough slots available in the system to satisfy the 2 slots that "
        "were requested by the application' (give each host of the hostfile slots=N, or fewer ranks)");

  auto p = diagnose_launch_failure(recorded("hostfile-parse-error.stderr"), 1, false, 300, "", {"localhost", "node03"}, "hfp");
  CHECK(p.code == ErrorCode::kInvalidArgument);
  CHECK(p.source == "hfp:2");
  CHECK(p.message ==
        "mpirun refused the hostfile: 'Open RTE detected a parse error in the hostfile: hfp It occured on line number 2 "
        "on token 3.'");

  auto b = diagnose_launch_failure(recorded("hostfile-bad-slots.stderr"), 1, false, 300, "", {"localhost", "node03"},
                                   "hf-badslots");
  CHECK(b.code == ErrorCode::kInvalidArgument);
  CHECK(b.source == "hf-badslots");
  CHECK(b.message.find("'Open RTE detected a bad parameter in the hostfile: hf-badslots The slots parameter is less than 0:") !=
        std::string::npos);
  CHECK_FALSE(quotes_boilerplate(b.message));
}

TEST_CASE("OpenSSH authentication and host key refusals") {
  // Texts of OpenSSH's sshconnect2.c ("%s@%s: Permission denied (%s).") and sshconnect.c.
  auto a = find_launch_causes("Warning: Permanently added 'node05' (ED25519) to the list of known hosts.\n"
                              "root@node05: Permission denied (publickey).\n",
                              {"node05"});
  REQUIRE(a.size() == 1);
  CHECK(a[0].kind == LaunchCauseKind::kAuth);
  CHECK(a[0].host == "node05");
  CHECK(a[0].line == "root@node05: Permission denied (publickey).");

  auto k = find_launch_causes("@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
                              "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n"
                              "Offending ECDSA key in /root/.ssh/known_hosts:3\n"
                              "Host key for node06 has changed and you have requested strict checking.\n"
                              "Host key verification failed.\n",
                              {"node05", "node06"});
  REQUIRE(k.size() >= 1);
  CHECK(k[0].kind == LaunchCauseKind::kHostKey);
  CHECK(k[0].host == "node06");

  auto bare = find_launch_causes("Host key verification failed.\n", {"node05"});
  REQUIRE(bare.size() == 1);
  CHECK(bare[0].host.empty());

  auto t = find_launch_causes("ssh: connect to host node09 port 22: Connection timed out\n", {"node09"});
  REQUIRE(t.size() == 1);
  CHECK(t[0].host == "node09");
}

TEST_CASE("a lost daemon names its node, and without any cause the first line outside help texts is quoted") {
  auto lost = find_launch_causes("--------------------------------------------------------------------------\n"
                                 "ORTE has lost communication with its daemon located on node:\n\n"
                                 "  hostname:  node05\n\n"
                                 "This is usually due to either a failure of the TCP network\n"
                                 "--------------------------------------------------------------------------\n",
                                 {"node04", "node05"});
  REQUIRE(lost.size() == 1);
  CHECK(lost[0].kind == LaunchCauseKind::kDaemonLost);
  CHECK(lost[0].host == "node05");

  CHECK(first_informative_line("---------------\nORTE was unable to reliably start one or more daemons.\n"
                               "---------------\n[node01:1234] something specific went wrong\n") ==
        "[node01:1234] something specific went wrong");
  auto e = diagnose_launch_failure("fabdiag: triage: screen\nunexpected thing\n", 3, false, 60, "");
  CHECK(e.message == "mpirun exited with code 3: 'unexpected thing'");
}

TEST_CASE("the silent-host probe quotes each host's own cause line") {
  LaunchSpec s;
  s.hostfile = "/tmp/h";
  s.nodes = 2;
  s.self_exe = "/opt/fabdiag";
  s.worker_args = {"triage", "--worker"};
  FakeProcessRunner runner;
  runner.script(compose_mpirun_argv(s), fabdiag::testing::exited(127, "", recorded("orted-missing.stderr")));
  auto probe = [&](const std::string& h) {
    LaunchSpec one = s;
    one.nodes = 1;
    one.mpirun_args = {"--host", h};
    one.worker_args = {"--version"};
    return compose_mpirun_argv(one);
  };
  runner.script(probe("node05"), fabdiag::testing::exited(127, "", "bash: orted: command not found\n"));
  runner.script(probe("node06"), fabdiag::testing::exited(0, "fabdiag 0.1.0\n"));
  auto out = run_launch(runner, s, {"node05", "node06"}, 60, {});
  REQUIRE(out.ok());
  CHECK(out->failure.source == "node05");
  CHECK(out->failure.message ==
        "the launch failed: '/bin/bash: line 1: orted: command not found'; not answering: node05 ('bash: orted: "
        "command not found')");
}
