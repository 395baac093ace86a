#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/atomic_file.h"
#include "core/atomic_pieces.h"

using namespace fabdiag;

TEST_CASE("check_output_path accepts what write_file_atomic can write and refuses the rest, writing nothing") {
  char tmpl[] = "/tmp/fabdiag-outpath.XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl;
  const std::string fresh = dir + "/checkpoint.json";

  CHECK(check_output_path(fresh).ok());
  CHECK(access(fresh.c_str(), F_OK) != 0);  // nothing created
  REQUIRE(write_file_atomic(fresh, "{}\n").ok());
  CHECK(check_output_path(fresh).ok());     // an existing regular file is replaced later
  REQUIRE(symlink(fresh.c_str(), (dir + "/link.json").c_str()) == 0);
  CHECK(check_output_path(dir + "/link.json").ok());

  auto device = check_output_path("/dev/null");
  REQUIRE_FALSE(device.ok());
  CHECK(device.error().code == ErrorCode::kInvalidArgument);
  CHECK(device.error().message.find("character device") != std::string::npos);
  auto directory = check_output_path(dir);
  REQUIRE_FALSE(directory.ok());
  CHECK(directory.error().code == ErrorCode::kInvalidArgument);
  auto missing = check_output_path(dir + "/no/such/dir/x.json");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::kNotFound);
  CHECK(missing.error().source == dir + "/no/such/dir/x.json");
  // A regular file where a directory belongs (ENOTDIR) is the path's fault, like a missing one.
  auto through_file = check_output_path(fresh + "/x.json");
  REQUIRE_FALSE(through_file.ok());
  CHECK(through_file.error().code == ErrorCode::kInvalidArgument);
  CHECK(through_file.error().message.find("Not a directory") != std::string::npos);
  REQUIRE(mkfifo((dir + "/fifo").c_str(), 0600) == 0);
  auto fifo = check_output_path(dir + "/fifo");
  REQUIRE_FALSE(fifo.ok());
  CHECK(fifo.error().message.find("FIFO") != std::string::npos);

  std::remove((dir + "/fifo").c_str());
  std::remove((dir + "/link.json").c_str());
  std::remove(fresh.c_str());
  rmdir(dir.c_str());
}

TEST_CASE("an atomic file written in pieces appears whole at commit, and not at all without it") {
  char tmpl[] = "/tmp/fabdiag-pieces.XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl, target = dir + "/report.json";
  REQUIRE(write_file_atomic(target, "old\n").ok());
  auto count_files = [&] {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) n += e.is_regular_file() ? 1 : 0;
    return n;
  };
  {
    auto f = open_atomic_file(target);
    REQUIRE(f.ok());
    REQUIRE((*f)->write("first ").ok());
    CHECK(*read_file(target) == "old\n");  // the target is untouched while pieces arrive
    CHECK(count_files() == 2);             // the temporary file next to it
  }  // destroyed without commit(): the temporary file is gone, the old target stays
  CHECK(*read_file(target) == "old\n");
  CHECK(count_files() == 1);
  auto f = open_atomic_file(target);
  REQUIRE(f.ok());
  REQUIRE((*f)->write("first ").ok());
  REQUIRE((*f)->write("second\n").ok());
  REQUIRE((*f)->commit().ok());
  CHECK(*read_file(target) == "first second\n");
  CHECK(count_files() == 1);
  struct stat st {};
  REQUIRE(stat(target.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
  auto missing = open_atomic_file(dir + "/no/such/x.json");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::kNotFound);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a replaced file keeps its mode, and its owner and group where the process may give them") {
  char tmpl[] = "/tmp/fabdiag-keepmode.XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl, target = dir + "/m600.json";
  REQUIRE(write_file_atomic(target, "secret\n").ok());
  REQUIRE(chmod(target.c_str(), 0600) == 0);
  REQUIRE(write_file_atomic(target, "{}\n").ok());
  struct stat st {};
  REQUIRE(stat(target.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  CHECK(*read_file(target) == "{}\n");

  REQUIRE(chmod(target.c_str(), 0640) == 0);
  const bool root = geteuid() == 0;
  if (root) REQUIRE(chown(target.c_str(), 65534, 65534) == 0);
  auto f = open_atomic_file(target);  // the pieces path keeps them too
  REQUIRE(f.ok());
  REQUIRE((*f)->write("[]\n").ok());
  REQUIRE((*f)->commit().ok());
  REQUIRE(stat(target.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
  if (root) {
    CHECK(st.st_uid == 65534u);
    CHECK(st.st_gid == 65534u);
  }
  REQUIRE(chmod(target.c_str(), 06750) == 0);  // set-id bits are dropped, the rest kept
  REQUIRE(write_file_atomic(target, "{}\n").ok());
  REQUIRE(stat(target.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0750);
  const std::string fresh = dir + "/new.json";  // a new file is still 0644
  REQUIRE(write_file_atomic(fresh, "{}\n").ok());
  REQUIRE(stat(fresh.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
  std::filesystem::remove_all(dir);
}

TEST_CASE("an existing file the process could not write itself is refused and left untouched") {
  if (geteuid() != 0) {
    MESSAGE("SKIPPED: needs root to drop to uid 65534");
    return;
  }
  char tmpl[] = "/tmp/fabdiag-unwritable.XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl, target = dir + "/target.txt";
  REQUIRE(chmod(dir.c_str(), 0777) == 0);  // anyone may create and rename in it
  REQUIRE(write_file_atomic(target, "root's\n").ok());
  REQUIRE(chmod(target.c_str(), 0644) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(10);
    if (check_output_path(target).ok()) _exit(11);
    auto st = write_file_atomic(target, "nobody's\n");
    if (st.ok()) _exit(12);
    if (st.error().code != ErrorCode::kPermission) _exit(13);
    if (st.error().message.find("not writable by uid 65534") == std::string::npos) _exit(14);
    if (open_atomic_file(target).ok()) _exit(15);
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(*read_file(target) == "root's\n");
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) n += e.is_regular_file() ? 1 : 0;
  CHECK(n == 1);  // no temporary file left behind
  std::filesystem::remove_all(dir);
}

TEST_CASE("an output that is one of the inputs (same device and inode) is refused") {
  char tmpl[] = "/tmp/fabdiag-outin.XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl, raw = dir + "/raw.txt", other = dir + "/other.txt";
  REQUIRE(write_file_atomic(raw, "capture\n").ok());
  REQUIRE(write_file_atomic(other, "capture\n").ok());
  REQUIRE(link(raw.c_str(), (dir + "/hard.txt").c_str()) == 0);
  REQUIRE(symlink("raw.txt", (dir + "/link.txt").c_str()) == 0);

  auto same = check_output_not_input(raw, {other, raw});
  REQUIRE_FALSE(same.ok());
  CHECK(same.error().code == ErrorCode::kInvalidArgument);
  CHECK(same.error().source == raw);
  CHECK(same.error().message.find("-o FILE is also an input; write elsewhere") == 0);
  CHECK_FALSE(check_output_not_input(dir + "/hard.txt", {raw}).ok());  // another name, same inode
  CHECK_FALSE(check_output_not_input(dir + "/link.txt", {raw}).ok());  // a symlink to it
  auto via = check_output_not_input(raw, {dir + "/../" + std::filesystem::path(dir).filename().string() + "/raw.txt"});
  CHECK_FALSE(via.ok());

  CHECK(check_output_not_input(other, {raw}).ok());             // equal content is another file
  CHECK(check_output_not_input(dir + "/new.json", {raw}).ok());  // a new file
  CHECK(check_output_not_input("-", {raw}).ok());
  CHECK(check_output_not_input("", {raw}).ok());
  CHECK(check_output_not_input(raw, {"-", "", dir, dir + "/missing"}).ok());  // stdin, a directory
  CHECK(*read_file(raw) == "capture\n");
  std::filesystem::remove_all(dir);
}

TEST_CASE("check_output_outside_trees refuses an existing file inside a tree the command reads") {
  const std::string dir = std::filesystem::temp_directory_path() / ("fabdiag-trees-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string node = dir + "/node", counter = node + "/class/infiniband/mlx5_0/ports/1/counters/link_downed";
  std::filesystem::create_directories(std::filesystem::path(counter).parent_path());
  REQUIRE(write_file_atomic(counter, "7\n").ok());
  REQUIRE(symlink(counter.c_str(), (dir + "/outside-link").c_str()) == 0);
  auto in = check_output_outside_trees(counter, {node, ""});
  REQUIRE_FALSE(in.ok());
  CHECK(in.error().code == ErrorCode::kInvalidArgument);
  CHECK(in.error().source == counter);
  CHECK(in.error().message.find("-o FILE is inside the input tree " + node) == 0);
  CHECK_FALSE(check_output_outside_trees(dir + "/outside-link", {node}).ok());  // a symlink into the tree
  CHECK(check_output_outside_trees(node + "/class/new.json", {node}).ok());     // a new file
  CHECK(check_output_outside_trees(dir + "/result.json", {node}).ok());         // beside the tree, not in it
  REQUIRE(write_file_atomic(dir + "/node2", "x").ok());
  CHECK(check_output_outside_trees(dir + "/node2", {node}).ok());               // a sibling with the tree's name as prefix
  CHECK(check_output_outside_trees("-", {node}).ok());
  CHECK(check_output_outside_trees(counter, {dir + "/missing"}).ok());
  CHECK(*read_file(counter) == "7\n");
  std::filesystem::remove_all(dir);
}

