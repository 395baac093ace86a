// Test helper: a throw-away directory tree under the system temp dir (a fake sysfs or procfs
// root, a baseline store, a capture target), removed with everything below it on destruction.
#pragma once

#include <stdlib.h>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/fs_root.h"

namespace fabdiag::testing {

/// A fresh empty directory <temp>/fabdiag-<tag>-XXXXXX; entries are created by path relative
/// to it ("class/net/eth0/mtu").
class TempTree {
 public:
  /// Creates the directory; fails the test (REQUIRE) when it cannot.
  explicit TempTree(const std::string& tag = "test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / ("fabdiag-" + tag + "-XXXXXX")).string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path_ = tmpl;
    root_ = tmpl;
  }
  /// Gives every directory below back its owner permissions (a test may make one read-only),
  /// then removes the tree.
  ~TempTree() {
    std::error_code ec;
    namespace fs = std::filesystem;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    for (auto it = fs::recursive_directory_iterator(path_, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->is_directory(ec) && !it->is_symlink(ec))
        fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  const std::filesystem::path& path() const { return path_; }
  const std::string& root() const { return root_; }
  /// root/rel as a string; the root itself when `rel` is empty.
  std::string str(const std::string& rel = {}) const { return rel.empty() ? root_ : (path_ / rel).string(); }
  /// The tree as both sysfs and procfs root (a fixture without a separate procfs).
  FsRoot fsroot() const { return FsRoot(root_, root_); }

  /// Writes `content` exactly to root/rel, creating directories.
  void write(const std::string& rel, const std::string& content) const {
    std::filesystem::create_directories((path_ / rel).parent_path());
    std::ofstream(path_ / rel) << content;
  }
  /// Writes `content` plus a newline (as sysfs prints attributes) to root/rel.
  void file(const std::string& rel, const std::string& content) const { write(rel, content + "\n"); }
  /// Creates the symbolic link root/rel -> target (target as given, usually relative).
  void link(const std::string& rel, const std::string& target) const {
    std::filesystem::create_directories((path_ / rel).parent_path());
    std::filesystem::create_symlink(target, path_ / rel);
  }
  /// Creates the directory root/rel (and its parents).
  void dir(const std::string& rel) const { std::filesystem::create_directories(path_ / rel); }

 private:
  std::filesystem::path path_;
  std::string root_;
};

}  // namespace fabdiag::testing
