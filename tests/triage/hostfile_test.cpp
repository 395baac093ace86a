// fabdiag's own hostfile reader: strict, with file:line:column, before mpirun starts; and the
// names it lets through reach mpirun as argv elements, never through a shell.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/subprocess.h"
#include "tests/support/fake_process_runner.h"
#include "tests/support/temp_tree.h"
#include "triage/launcher.h"

using namespace fabdiag;
using namespace fabdiag::triage;
using fabdiag::testing::FakeProcessRunner;
using fabdiag::testing::TempTree;

namespace {

// read_hostfile of a one-file tree holding `text`; the path is returned through `path`.
Result<std::vector<std::string>> read_text(const TempTree& t, const std::string& text, std::string& path) {
  t.write("hosts", text);
  path = (t.path() / "hosts").string();
  return read_hostfile(path);
}

}  // namespace

TEST_CASE("host names follow RFC 1123") {
  for (const char* good : {"node01", "n", "gpu-a100-07", "node01.rack2.example.com", "10.0.0.5", "0node"})
    CHECK_MESSAGE(is_valid_hostname(good), good);
  for (const char* bad : {"", "node01;touch /tmp/x", "$(id)", "node 01", "node_01", "-node", "node-", "a..b", ".node",
                          "node.", "..", "../etc", "a/b", "n\xe9ud", "tab\there", "nul\x01"})
    CHECK_FALSE_MESSAGE(is_valid_hostname(bad), bad);
  CHECK(is_valid_hostname(std::string(63, 'a')));
  CHECK_FALSE(is_valid_hostname(std::string(64, 'a')));
  std::string long_name;
  for (int i = 0; i < 64; ++i) long_name += "abc.";
  CHECK_FALSE(is_valid_hostname(long_name + "x"));  // 257 characters
}

TEST_CASE("a malformed hostfile line is refused with file:line:column") {
  TempTree t("hostfile");
  std::string path;
  struct Case {
    const char* text;
    const char* where;  // LINE:COLUMN
    const char* says;
  };
  for (const Case& c : {Case{"node01 slots=1\nnode03 slots=abc\n", "2:14", "'abc' is not a whole number (slots=N)"},
                        Case{"node01 slots=2 slots=4\n", "1:16", "'slots' is given twice on this line"},
                        Case{"node01 slots=99999999999\n", "1:14", "slots=99999999999 is more than mpirun can hold"},
                        Case{"node01:2147483648\n", "1:8", "slot count 2147483648 is more than mpirun can hold"},
                        Case{"node01\nnode02 foo=bar\n", "2:8", "unknown hostfile keyword 'foo'"},
                        Case{"node01 slots 4\n", "1:8", "'slots' is not KEY=VALUE"},
                        Case{"node01:x\n", "1:8", "'x' after ':' is not a slot count"},
                        Case{"# c\n  node01;touch /tmp/x slots=1\n", "2:3", "'node01;touch' is not a host name"},
                        Case{"$(id)\n", "1:1", "'$(id)' is not a host name"},
                        Case{"node01\nn\xe9ud02\n", "2:1", "'n\\xe9ud02' is not a host name"},
                        Case{"bad user@node01\n", "1:5", "'user@node01' is not KEY=VALUE"},
                        Case{"-x@node01\n", "1:1", "'-x' is not a user name"}}) {
    auto r = read_text(t, c.text, path);
    REQUIRE_FALSE_MESSAGE(r.ok(), c.text);
    CHECK(r.error().code == ErrorCode::kParse);
    CHECK_MESSAGE(r.error().source == path + ":" + c.where, c.text);
    CHECK_MESSAGE(r.error().message.find(c.says) != std::string::npos, r.error().message);
  }
}

TEST_CASE("the Open MPI and MPICH forms fabdiag accepts") {
  TempTree t("hostfile");
  std::string path;
  auto r = read_text(t,
                     "# cluster\nnode01 slots=8 max_slots=8\nroot@node02 slots=8\nnode03:4\n\n  node04\tslots=2 # rack 2\n"
                     "10.0.0.5 username=ops\nnode01 slots=8\n",
                     path);
  REQUIRE(r.ok());
  CHECK(*r == std::vector<std::string>{"node01", "node02", "node03", "node04", "10.0.0.5"});
}

TEST_CASE("a large hostfile parses in one pass, each host once") {
  // 100,000 distinct hosts, each listed twice with a comment between: the old reader searched the
  // host list for every line (quadratic; 50k lines took 4 s, 500k never finished).
  TempTree t("hostfile");
  std::string text;
  for (int i = 0; i < 100000; ++i) text += "node" + std::to_string(i) + " slots=8\n# rack\nnode" + std::to_string(i) + "\n";
  std::string path;
  t.write("hosts", text);
  path = (t.path() / "hosts").string();
  auto r = read_hostfile(path, HostfileLimits{200000, size_t{16} << 20});
  REQUIRE(r);
  REQUIRE(r->size() == 100000);
  CHECK(r->front() == "node0");
  CHECK((*r)[54321] == "node54321");
  CHECK(r->back() == "node99999");
}

TEST_CASE("a hostfile over the host-line or size limit is refused naming the file and the limit") {
  TempTree t("hostfile");
  std::string path, text;
  for (int i = 0; i < 65536; ++i) text += "n" + std::to_string(i) + "\n";
  text += "# comments do not count\n\n";
  auto ok = read_text(t, text, path);
  REQUIRE(ok);
  CHECK(ok->size() == 65536);
  auto over = read_text(t, text + "n65536\n", path);
  REQUIRE_FALSE(over);
  CHECK(over.error().code == ErrorCode::kInvalidArgument);
  CHECK(over.error().source == path);
  CHECK_MESSAGE(over.error().message.find("65536 host lines") != std::string::npos, over.error().message);

  t.write("big", std::string(100, '#') + "\nnode01\n");
  auto big = read_hostfile((t.path() / "big").string(), HostfileLimits{65536, 64});
  REQUIRE_FALSE(big);
  CHECK(big.error().source == (t.path() / "big").string());
  CHECK_MESSAGE(big.error().message.find("limit of 64 bytes") != std::string::npos, big.error().message);
  CHECK(HostfileLimits{}.max_bytes == size_t{16} << 20);
  CHECK(HostfileLimits{}.max_host_lines == 65536);
}

TEST_CASE("hostile strings reach mpirun as single argv elements, never through a shell") {
  LaunchSpec s;
  s.hostfile = "/tmp/my hosts;touch /tmp/x";
  s.nodes = 2;
  s.mpirun_args = {"--mca", "plm_rsh_agent", "ssh -x $(id)"};
  s.self_exe = "/opt/fab diag/fabdiag";
  s.worker_args = {"--sysfs-root", "/tmp/`id`/{host}/sys", "triage", "--worker"};
  const std::vector<std::string> job = {"mpirun", "--hostfile", "/tmp/my hosts;touch /tmp/x", "-np", "2", "--map-by", "node",
                                        "--mca", "plm_rsh_agent", "ssh -x $(id)", "/opt/fab diag/fabdiag",
                                        "--sysfs-root", "/tmp/`id`/{host}/sys", "triage", "--worker"};
  FakeProcessRunner runner;
  runner.script(job, fabdiag::testing::timed_out());
  runner.script_default(fabdiag::testing::exited(0));  // every probe answers
  auto out = run_launch(runner, s, {"node01", "node02;touch /tmp/x"}, 60, {});
  REQUIRE(out.ok());
  auto calls = runner.calls();
  REQUIRE(calls.size() == 3);
  CHECK(calls[0].argv == job);
  // The probe of the second host: the name is one argv element after --host.
  bool probed = std::any_of(calls.begin(), calls.end(), [](const fabdiag::testing::ProcessCall& c) {
    auto it = std::find(c.argv.begin(), c.argv.end(), "--host");
    return it != c.argv.end() && it + 1 != c.argv.end() && *(it + 1) == "node02;touch /tmp/x";
  });
  CHECK(probed);
  for (const auto& c : calls) {
    CHECK(c.argv[0] == "mpirun");
    CHECK(std::find(c.argv.begin(), c.argv.end(), "-c") == c.argv.end());
  }
}

TEST_CASE("run_process execs argv directly: shell syntax in an argument stays literal") {
  auto r = run_process({"/bin/echo", "$(id)", "a;b", "`id`", "x y"}, 10, nullptr);
  REQUIRE(r.ok());
  CHECK(r->exit_code == 0);
  CHECK(r->stdout_text == "$(id) a;b `id` x y\n");
}
