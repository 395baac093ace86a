#include "core/atomic_file.h"
#include "core/atomic_pieces.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/device_input.h"

namespace fabdiag {

namespace {
Error io_error(int err, const std::string& what, const std::string& path) {
  // ENOTDIR: a regular file where the path needs a directory, the operator's to fix (exit 2),
  // like ENOENT and EACCES; only the rest (ENOSPC, EIO, ...) is the disk's (exit 4).
  ErrorCode code = err == ENOENT   ? ErrorCode::kNotFound
                   : (err == EACCES || err == EPERM || err == EROFS) ? ErrorCode::kPermission
                   : err == ENOTDIR                                  ? ErrorCode::kInvalidArgument
                                                                     : ErrorCode::kIo;
  return make_error(code, what + ": " + std::strerror(err), path);
}
}  // namespace

namespace {

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// The path to replace: `path` itself, or the final target of a symlink chain (which may not
// exist yet: a dangling link names the file to create). Refuses what is not a regular file.
Result<std::filesystem::path> resolve_output_target(const std::string& path) {
  std::filesystem::path target(path);
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(target.c_str(), &st) != 0) {
      if (errno == ENOENT) return target;  // a new file
      return io_error(errno, "cannot inspect the output path", path);
    }
    if (S_ISREG(st.st_mode)) return target;
    if (!S_ISLNK(st.st_mode))
      return make_error(ErrorCode::kInvalidArgument,
                        std::string("is ") + file_kind(st.st_mode) +
                            "; results are written only to regular files (give a file path, or - for stdout)",
                        path);
    std::error_code ec;
    std::filesystem::path next = std::filesystem::read_symlink(target, ec);
    if (ec) return io_error(ec.value(), "cannot read the symlink", path);
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
  return make_error(ErrorCode::kInvalidArgument, "too many levels of symbolic links", path);
}

// Writes everything; 0 or the errno of the failed write.
int write_fd(int fd, std::string_view content) {
  size_t off = 0;
  while (off < content.size()) {
    ssize_t n = ::write(fd, content.data() + off, content.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    off += static_cast<size_t>(n);
  }
  return 0;
}

// An existing target the caller could not write itself is refused: root's cron job may own
// the directory, but a user who cannot write a file must not replace it through us.
// Fills `existing` (when the target exists) with the mode and owner the new file keeps.
Status check_replaceable(const std::filesystem::path& target, const std::string& path, struct stat* existing,
                         bool* exists) {
  *exists = false;
  if (::stat(target.c_str(), existing) != 0) {
    if (errno == ENOENT) return Ok{};
    return io_error(errno, "cannot inspect the output path", path);
  }
  *exists = true;
  if (::faccessat(AT_FDCWD, target.c_str(), W_OK, AT_EACCESS) != 0) {
    if (errno == EROFS) return io_error(errno, "cannot replace it", path);
    return make_error(ErrorCode::kPermission,
                      "exists and is not writable by uid " + std::to_string(::geteuid()) +
                          "; it is left as it was",
                      path);
  }
  return Ok{};
}

// The directory that will hold `target` (".": the working directory); kNotFound when missing.
Result<std::filesystem::path> output_directory(const std::filesystem::path& target, const std::string& path) {
  std::filesystem::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    return make_error(ErrorCode::kNotFound, "directory " + dir.string() + " does not exist", path);
  return dir;
}

}  // namespace

Status write_all(int fd, std::string_view content, const std::string& what) {
  int err = write_fd(fd, content);
  if (err == 0) return Ok{};
  return make_error(err == EPIPE ? ErrorCode::kUnavailable : ErrorCode::kIo,
                    std::string("write failed: ") + std::strerror(err), what);
}

Status check_output_path(const std::string& path) {
  auto resolved = resolve_output_target(path);
  if (!resolved) return resolved.error();
  auto dir = output_directory(*resolved, path);
  if (!dir) return dir.error();
  if (::access(dir->c_str(), W_OK | X_OK) != 0) return io_error(errno, "cannot create files in " + dir->string(), path);
  struct stat existing {};
  bool exists = false;
  return check_replaceable(*resolved, path, &existing, &exists);
}

Status check_output_not_input(const std::string& output, const std::vector<std::string>& inputs) {
  if (output.empty() || output == "-") return Ok{};
  struct stat out {};
  if (::stat(output.c_str(), &out) != 0) return Ok{};  // a new file is nobody's input
  for (const auto& input : inputs) {
    struct stat in {};
    if (input.empty() || input == "-" || ::stat(input.c_str(), &in) != 0 || S_ISDIR(in.st_mode)) continue;
    if (in.st_dev == out.st_dev && in.st_ino == out.st_ino)
      return make_error(ErrorCode::kInvalidArgument,
                        "-o FILE is also an input" + (input == output ? std::string() : " (" + input + ")") +
                            "; write elsewhere: the result would replace what it was made from",
                        output);
  }
  return Ok{};
}

Status check_output_outside_trees(const std::string& output, const std::vector<std::string>& trees) {
  if (output.empty() || output == "-") return Ok{};
  std::error_code ec;
  const auto out = std::filesystem::canonical(output, ec);
  if (ec) return Ok{};  // a new file is nobody's input
  for (const auto& tree : trees) {
    if (tree.empty()) continue;
    const auto dir = std::filesystem::canonical(tree, ec);
    if (ec) continue;
    auto [dir_end, out_at] = std::mismatch(dir.begin(), dir.end(), out.begin(), out.end());
    if (dir_end == dir.end() && out_at != out.end())
      return make_error(ErrorCode::kInvalidArgument,
                        "-o FILE is inside the input tree " + tree + "; write elsewhere: the result would replace a file it reads",
                        output);
  }
  return Ok{};
}

AtomicFile::AtomicFile(std::string path, std::string target, std::string temp, int fd)
    : path_(std::move(path)), target_(std::move(target)), temp_(std::move(temp)), fd_(fd) {}

// The new file takes the replaced file's owner and group where the process may give them
// (root, or a group it is in; else it stays ours) and then its permission bits; a new file
// is 0644.
Status AtomicFile::apply_mode() {
  if (!keep_) {
    if (::fchmod(fd_, 0644) != 0) return fail(errno, "chmod failed");
    return Ok{};
  }
  if (::fchown(fd_, keep_->uid, keep_->gid) != 0) {
    // Not root: the group alone where the process is in it; else the file stays the writer's,
    // as after any rewrite by that user.
    if (::fchown(fd_, static_cast<uid_t>(-1), keep_->gid) != 0) errno = 0;
  }
  // Set-user/group-ID bits are not carried over: a result is no program, and root must not
  // leave its output set-id whatever the file it replaced was.
  if (::fchmod(fd_, keep_->mode & 01777) != 0) return fail(errno, "chmod failed");
  return Ok{};
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

Status AtomicFile::fail(int err, const char* what) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
  failed_ = io_error(err, what, path_);
  return *failed_;
}

Status AtomicFile::write(std::string_view piece) {
  if (failed_) return *failed_;
  if (int err = write_fd(fd_, piece); err != 0) return fail(err, "write failed");
  return Ok{};
}

Status AtomicFile::commit() {
  if (failed_) return *failed_;
  if (auto st = apply_mode(); !st) return st;
  if (::fsync(fd_) != 0) return fail(errno, "fsync failed");
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return fail(errno, "close failed");
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) return fail(errno, "rename failed");
  temp_.clear();  // it is the target now
  return Ok{};
}

Result<std::unique_ptr<AtomicFile>> open_atomic_file(const std::string& path) {
  auto resolved = resolve_output_target(path);
  if (!resolved) return resolved.error();
  std::filesystem::path target = *resolved;
  auto dir_or = output_directory(target, path);
  if (!dir_or) return dir_or.error();
  const std::filesystem::path dir = *dir_or;
  struct stat existing {};
  bool exists = false;
  if (auto st = check_replaceable(target, path, &existing, &exists); !st) return st.error();
  std::string tmpl = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0) return io_error(errno, "cannot create a temporary file next to it", path);
  std::unique_ptr<AtomicFile> file(new AtomicFile(path, target.string(), name.data(), fd));
  if (exists) file->keep_ = AtomicFile::Keep{existing.st_mode, existing.st_uid, existing.st_gid};
  return file;
}

Status write_file_atomic(const std::string& path, const std::string& content) {
  auto file = open_atomic_file(path);
  if (!file) return file.error();
  if (auto st = (*file)->write(content); !st) return st;
  return (*file)->commit();
}

Result<std::string> read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return make_error(ErrorCode::kInvalidArgument, "is a directory, expected a file", path);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0)
    if (std::string kind = endless_input_kind(st.st_mode, st.st_rdev); !kind.empty())
      return make_error(ErrorCode::kInvalidArgument, endless_input_message(kind), path);
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error(errno ? errno : ENOENT, "cannot open", path);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return io_error(EIO, "read failed", path);
  return ss.str();
}

}  // namespace fabdiag
