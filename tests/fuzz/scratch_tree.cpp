// ScratchTree (tests/fuzz/fuzz_support.h): fuzzed "path:value" lines made into a real directory
// tree, for the targets that read sysfs through FsRoot. Everything it creates stays inside its
// directory: each directory step and each file is checked after resolving links, and a link
// that ends up pointing outside is removed, so a fuzz input can neither write nor read
// anywhere else.
#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <vector>

#include "tests/fuzz/fuzz_support.h"

namespace fabdiag::fuzz {

namespace stdfs = std::filesystem;

namespace {

constexpr size_t kMaxLines = 2048;
constexpr size_t kMaxDepth = 16;
constexpr size_t kMaxPath = 256;
const std::string_view kLinkArrow = " -> ";

bool is_hexish(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c)) && c != '.' && c != ':') return false;
  return true;
}

// Index of the ':' that ends the path (scripts/sysfs-from-lines.sh split_index): a ':' stays in
// the path when the text after it up to the next '/' is made of hex digits, '.' and ':' (PCI
// names); npos when there is none.
size_t split_index(std::string_view line) {
  for (size_t i = line.find(':'); i != std::string_view::npos; i = line.find(':', i + 1)) {
    std::string_view rest = line.substr(i + 1);
    size_t slash = rest.find('/');
    if (slash != std::string_view::npos && is_hexish(rest.substr(0, slash))) continue;
    return i;
  }
  return std::string_view::npos;
}

struct Logical {
  bool proc = false;               // under the procfs root, else sysfs
  std::vector<std::string> parts;  // no "", ".", ".."
};

std::optional<Logical> logical_path(std::string_view path) {
  Logical l;
  if (path.size() > kMaxPath || path.find('\0') != std::string_view::npos) return std::nullopt;
  if (path.starts_with("/sys/")) {
    path.remove_prefix(5);
  } else if (path.starts_with("/proc/")) {
    path.remove_prefix(6);
    l.proc = true;
  } else if (path.starts_with("/")) {
    return std::nullopt;
  }
  while (!path.empty()) {
    size_t slash = path.find('/');
    std::string_view part = path.substr(0, slash);
    if (part.empty() || part == "." || part == "..") return std::nullopt;
    l.parts.emplace_back(part);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  if (l.parts.empty() || l.parts.size() > kMaxDepth) return std::nullopt;
  return l;
}

bool inside(const stdfs::path& p, const stdfs::path& root) {
  auto rel = p.lexically_relative(root);
  return !rel.empty() && *rel.begin() != "..";
}

// The physical directory of `parts` (all but the last), created where missing, or nullopt when
// a step is not a directory or resolves outside `root` (a canonical path).
std::optional<stdfs::path> parent_dir(const stdfs::path& root, const std::vector<std::string>& parts) {
  std::error_code ec;
  stdfs::path cur = root;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    stdfs::path next = cur / parts[i];
    if (stdfs::exists(next, ec)) {
      next = stdfs::canonical(next, ec);
      if (ec || !inside(next, root) || !stdfs::is_directory(next, ec)) return std::nullopt;
    } else if (!stdfs::create_directory(next, ec) || ec) {
      return std::nullopt;  // a dangling link or an unusable name
    }
    cur = next;
  }
  return cur;
}

void write_file(const stdfs::path& root, const Logical& l, const std::string& content) {
  auto dir = parent_dir(root, l.parts);
  if (!dir) return;
  stdfs::path p = *dir / l.parts.back();
  std::error_code ec;
  auto st = stdfs::symlink_status(p, ec);
  if (stdfs::is_symlink(st)) {  // write through a link only onto a file inside the tree
    auto target = stdfs::canonical(p, ec);
    if (ec || !inside(target, root) || !stdfs::is_regular_file(target, ec)) return;
    p = target;
  } else if (stdfs::exists(st) && !stdfs::is_regular_file(st)) {
    return;
  }
  int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return;
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
}

void make_link(const stdfs::path& root, const Logical& l, std::string_view target) {
  if (target.empty() || target.starts_with("/") || target.size() > kMaxPath ||
      target.find('\0') != std::string_view::npos)
    return;
  auto dir = parent_dir(root, l.parts);
  if (!dir) return;
  std::error_code ec;
  stdfs::create_symlink(std::string(target), *dir / l.parts.back(), ec);
}

// Removes every link under `root` that resolves outside it (checked once all links and
// directories exist, since a dangling link can come to resolve later).
void drop_escaping_links(const stdfs::path& root) {
  std::error_code ec;
  std::vector<stdfs::path> bad;
  for (auto it = stdfs::recursive_directory_iterator(root, ec); !ec && it != stdfs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_symlink(ec)) continue;
    std::error_code ec2;
    auto target = stdfs::canonical(it->path(), ec2);
    if (!ec2 && !inside(target, root)) bad.push_back(it->path());
  }
  for (const auto& p : bad) stdfs::remove(p, ec);
}

}  // namespace

ScratchTree::ScratchTree() {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/fabdiag-fuzz-XXXXXX";
  if (!::mkdtemp(tmpl.data())) {
    std::perror("fuzz: mkdtemp");
    std::abort();
  }
  std::error_code ec;
  dir_ = stdfs::canonical(tmpl, ec).string();
  if (ec) dir_ = tmpl;
}

ScratchTree::~ScratchTree() {
  std::error_code ec;
  stdfs::remove_all(dir_, ec);
}

FsRoot ScratchTree::fs() const { return FsRoot(dir_ + "/sys", dir_ + "/proc"); }

void ScratchTree::build(std::string_view lines) {
  const stdfs::path sys = dir_ + "/sys", proc = dir_ + "/proc";
  std::error_code ec;
  stdfs::remove_all(sys, ec);
  stdfs::remove_all(proc, ec);
  stdfs::create_directory(sys, ec);
  stdfs::create_directory(proc, ec);

  std::vector<std::pair<Logical, std::string>> links;
  std::map<std::pair<bool, std::vector<std::string>>, std::string> files;  // in path order
  size_t count = 0;
  while (!lines.empty() && count < kMaxLines) {
    size_t nl = lines.find('\n');
    std::string_view line = lines.substr(0, nl);
    lines.remove_prefix(nl == std::string_view::npos ? lines.size() : nl + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    ++count;
    size_t arrow = line.find(kLinkArrow);
    if (arrow != std::string_view::npos && split_index(line.substr(0, arrow)) == std::string_view::npos) {
      if (auto l = logical_path(line.substr(0, arrow)))
        links.emplace_back(std::move(*l), std::string(line.substr(arrow + kLinkArrow.size())));
      continue;
    }
    size_t colon = split_index(line);
    if (colon == std::string_view::npos) continue;
    auto l = logical_path(line.substr(0, colon));
    if (!l) continue;
    std::string& content = files[{l->proc, l->parts}];
    content.append(line.substr(colon + 1));
    content.push_back('\n');
  }
  for (const auto& [l, target] : links) make_link(l.proc ? proc : sys, l, target);
  for (const auto& [key, content] : files) {
    Logical l{key.first, key.second};
    write_file(key.first ? proc : sys, l, content);
  }
  drop_escaping_links(sys);
  drop_escaping_links(proc);
}

}  // namespace fabdiag::fuzz
