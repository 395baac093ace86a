#include "core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fabdiag {

namespace {
Error io_error(int err, const std::string& what, const std::string& path) {
  ErrorCode code = err == ENOENT   ? ErrorCode::kNotFound
                   : (err == EACCES || err == EPERM || err == EROFS) ? ErrorCode::kPermission
                                                                     : ErrorCode::kIo;
  return make_error(code, what + ": " + std::strerror(err), path);
}
}  // namespace

Status write_file_atomic(const std::string& path, const std::string& content) {
  std::filesystem::path target(path);
  std::filesystem::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (std::filesystem::is_directory(target, ec))
    return make_error(ErrorCode::kInvalidArgument, "is a directory; give a file name", path);
  if (!std::filesystem::is_directory(dir, ec))
    return make_error(ErrorCode::kNotFound, "directory " + dir.string() + " does not exist", path);
  std::string tmpl = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0) return io_error(errno, "cannot create a temporary file next to it", path);
  size_t off = 0;
  while (off < content.size()) {
    ssize_t n = ::write(fd, content.data() + off, content.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(name.data());
      return io_error(err, "write failed", path);
    }
    off += static_cast<size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0 || ::fsync(fd) != 0) {
    int err = errno;
    ::close(fd);
    ::unlink(name.data());
    return io_error(err, "fsync failed", path);
  }
  ::close(fd);
  if (std::rename(name.data(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(name.data());
    return io_error(err, "rename failed", path);
  }
  return Ok{};
}

Result<std::string> read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return make_error(ErrorCode::kInvalidArgument, "is a directory, expected a file", path);
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error(errno ? errno : ENOENT, "cannot open", path);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return io_error(EIO, "read failed", path);
  return ss.str();
}

}  // namespace fabdiag
