// Test helper for the counters tests: a throw-away fake sysfs tree under /tmp.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace fabdiag::testing {

/// A temporary directory removed on destruction; file()/link() create entries by logical path.
class CounterTestTree {
 public:
  CounterTestTree() {
    char tmpl[] = "/tmp/fabdiag-counters-test-XXXXXX";
    const char* p = mkdtemp(tmpl);
    root_ = p ? p : "/tmp/fabdiag-counters-test-failed";
  }
  ~CounterTestTree() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  CounterTestTree(const CounterTestTree&) = delete;
  CounterTestTree& operator=(const CounterTestTree&) = delete;

  const std::string& root() const { return root_; }

  /// Writes `content` plus a newline (as sysfs prints) to root/rel, creating directories.
  void file(const std::string& rel, const std::string& content) const {
    std::filesystem::path p = std::filesystem::path(root_) / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << content << "\n";
  }
  /// Creates the symbolic link root/rel -> target (target as given, usually relative).
  void link(const std::string& rel, const std::string& target) const {
    std::filesystem::path p = std::filesystem::path(root_) / rel;
    std::filesystem::create_directories(p.parent_path());
    std::filesystem::create_symlink(target, p);
  }
  /// Creates an empty directory root/rel.
  void dir(const std::string& rel) const {
    std::filesystem::create_directories(std::filesystem::path(root_) / rel);
  }

 private:
  std::string root_;
};

}  // namespace fabdiag::testing
