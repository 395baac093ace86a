#include "core/fs_root.h"

#include <algorithm>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

namespace fabdiag {
namespace fs = std::filesystem;

namespace {

std::string join(const std::string& root, const std::string& rel) {
  if (rel.empty()) return root;
  std::string r = rel;
  while (!r.empty() && r.front() == '/') r.erase(r.begin());
  if (!root.empty() && root.back() == '/') return root + r;
  return root + "/" + r;
}

Error errno_error(int err, const std::string& path) {
  ErrorCode code = ErrorCode::kIo;
  switch (err) {
    case ENOENT:
    case ENOTDIR: code = ErrorCode::kNotFound; break;
    case EACCES:
    case EPERM: code = ErrorCode::kPermission; break;
    case EOPNOTSUPP:
    case EINVAL:
    case ENODATA:
    case ENXIO:
    case ENODEV: code = ErrorCode::kUnsupported; break;
    default: break;
  }
  return make_error(code, std::strerror(err), path);
}

// The whole of an open file into `out`, with trailing whitespace (newlines) removed; closes
// `fd`. 0, or the errno of the failed read(). A stack buffer and no FILE (its malloc and fstat):
// a counter snapshot reads hundreds of files. sysfs files report size 4096 and may fail only at
// read() time (EINVAL, EOPNOTSUPP: "not supported by the device"), so errors are taken from
// read(). A sysfs attribute is returned by one read(); reading goes on until 0 for regular
// files (fixtures, captures) longer than the buffer.
// Past kMaxReadBytes the read stops with EFBIG: no sysfs attribute, procfs file or capture of
// one is that long, and a file that never ends (a link to /dev/zero planted in a fixture tree)
// must not take the memory. Opened with O_NONBLOCK: a FIFO in the tree reads as empty at once
// instead of waiting for a writer (no effect on regular files).
constexpr size_t kMaxReadBytes = size_t{16} << 20;
constexpr int kReadFlags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;

int read_fd_trimmed(int fd, std::string& out) {
  char buf[4096];
  int err = 0;
  for (;;) {
    if (out.size() >= kMaxReadBytes) {
      err = EFBIG;
      break;
    }
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (static_cast<size_t>(n) < sizeof buf && out.size() < sizeof buf) break;  // a whole attribute
  }
  ::close(fd);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ' || out.back() == '\t' ||
                          out.back() == '\r' || out.back() == '\0')) {
    out.pop_back();
  }
  return err;
}

Result<std::string> read_file_trimmed(const std::string& path) {
  int fd = ::open(path.c_str(), kReadFlags);
  if (fd < 0) return errno_error(errno, path);
  std::string out;
  if (int err = read_fd_trimmed(fd, out)) return errno_error(err, path);
  return out;
}

// The entry names of an open directory (without "." and ".."), in natural order.
std::vector<std::string> sorted_names(DIR* d) {
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d)) {
    const char* n = e->d_name;
    if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'))) continue;
    names.emplace_back(n);
  }
  std::sort(names.begin(), names.end(), natural_less);
  return names;
}

// A directory stream closed on scope exit.
struct DirCloser {
  void operator()(DIR* d) const { ::closedir(d); }
};
using DirHandle = std::unique_ptr<DIR, DirCloser>;

}  // namespace

bool natural_less(const std::string& a, const std::string& b) {
  auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      // Compare the numbers by value, without their leading zeros: length first, then digits.
      while (i + 1 < a.size() && a[i] == '0' && digit(a[i + 1])) ++i;
      while (j + 1 < b.size() && b[j] == '0' && digit(b[j + 1])) ++j;
      size_t i2 = i, j2 = j;
      while (i2 < a.size() && digit(a[i2])) ++i2;
      while (j2 < b.size() && digit(b[j2])) ++j2;
      if (i2 - i != j2 - j) return i2 - i < j2 - j;
      int c = a.compare(i, i2 - i, b, j, j2 - j);
      if (c != 0) return c < 0;
      i = i2;
      j = j2;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return (a.size() - i) < (b.size() - j);
}

Status FsRoot::validate() const {
  std::error_code ec;
  if (!fs::is_directory(sysfs_root_, ec))
    return make_error(ErrorCode::kNotFound, "sysfs root is not a directory", sysfs_root_);
  if (!procfs_root_.empty() && !fs::is_directory(procfs_root_, ec))
    return make_error(ErrorCode::kNotFound, "procfs root is not a directory", procfs_root_);
  return Ok{};
}

std::string FsRoot::sys_path(const std::string& rel) const { return join(sysfs_root_, rel); }
std::string FsRoot::proc_path(const std::string& rel) const { return join(procfs_root_, rel); }

Result<std::string> FsRoot::read_sys(const std::string& rel) const {
  return read_file_trimmed(sys_path(rel));
}
Result<std::string> FsRoot::read_proc(const std::string& rel) const {
  if (procfs_root_.empty())
    return make_error(ErrorCode::kNotFound, "no procfs for this sysfs root (give --procfs-root)", "/proc/" + rel);
  return read_file_trimmed(proc_path(rel));
}

Result<std::vector<uint8_t>> FsRoot::read_sys_bytes(const std::string& rel,
                                                    size_t max_bytes) const {
  std::string path = sys_path(rel);
  errno = 0;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return errno_error(errno, path);
  std::vector<uint8_t> out(max_bytes);
  size_t n = std::fread(out.data(), 1, max_bytes, f);
  bool err = std::ferror(f);
  int e = errno ? errno : EIO;
  std::fclose(f);
  if (err) return errno_error(e, path);
  out.resize(n);
  return out;
}

Result<std::vector<std::string>> FsRoot::list_sys(const std::string& rel) const {
  std::string path = sys_path(rel);
  DirHandle d(::opendir(path.c_str()));
  if (!d) return errno_error(errno, path);
  return sorted_names(d.get());
}

Result<std::vector<FsRoot::DirFile>> FsRoot::read_sys_dir(const std::string& rel) const {
  std::string path = sys_path(rel);
  DirHandle d(::opendir(path.c_str()));
  if (!d) return errno_error(errno, path);
  std::vector<DirFile> files;
  for (auto& name : sorted_names(d.get())) {
    DirFile& f = files.emplace_back(DirFile{std::move(name), std::string()});
    int fd = ::openat(::dirfd(d.get()), f.name.c_str(), kReadFlags);
    int err = fd < 0 ? errno : read_fd_trimmed(fd, *f.text);
    if (err) f.text = errno_error(err, path + "/" + f.name);
  }
  return files;
}

bool FsRoot::exists_sys(const std::string& rel) const {
  struct stat st;
  return ::stat(sys_path(rel).c_str(), &st) == 0;
}
bool FsRoot::exists_proc(const std::string& rel) const {
  if (procfs_root_.empty()) return false;
  struct stat st;
  return ::stat(proc_path(rel).c_str(), &st) == 0;
}

Result<std::string> FsRoot::canonical_sys(const std::string& rel) const {
  std::error_code ec;
  fs::path root = fs::canonical(sysfs_root_, ec);
  if (ec) return errno_error(ec.value(), sysfs_root_);
  fs::path p = fs::canonical(sys_path(rel), ec);
  if (ec) return errno_error(ec.value(), sys_path(rel));
  std::string rs = root.string(), ps = p.string();
  if (rs == "/") return ps.substr(1);
  if (ps.compare(0, rs.size(), rs) != 0 || (ps.size() > rs.size() && ps[rs.size()] != '/'))
    return make_error(ErrorCode::kInvalidArgument,
                      "symbolic link resolves outside the sysfs root (" + ps +
                          "); fixture links must be relative",
                      sys_path(rel));
  return ps.size() > rs.size() ? ps.substr(rs.size() + 1) : std::string{};
}

Result<std::string> FsRoot::link_name_sys(const std::string& rel) const {
  std::string path = sys_path(rel);
  char buf[4096];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
  if (n < 0) return errno_error(errno, path);
  std::string_view target(buf, static_cast<size_t>(n));
  size_t slash = target.rfind('/');  // the last component, as path::filename() has it
  return std::string(slash == std::string_view::npos ? target : target.substr(slash + 1));
}

bool is_live_sysfs(const FsRoot& fs) {
  std::error_code ec;
  return std::filesystem::equivalent(fs.sysfs_root(), "/sys", ec) && !ec;
}

}  // namespace fabdiag
