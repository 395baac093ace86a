// A result file written atomically in pieces (core/atomic_file.h writes one whole string): for
// a result too big to hold whole, such as a report listing every link of a 1500-host matrix.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace fabdiag {

class AtomicFile;

/// Creates the temporary file of an atomic write of `path` (the checks of write_file_atomic:
/// symlinks resolved, only regular files, an existing directory). Errors: kInvalidArgument,
/// kNotFound, kPermission, kIo naming `path`.
Result<std::unique_ptr<AtomicFile>> open_atomic_file(const std::string& path);

/// A file written atomically in pieces: the pieces go to a temporary file in the target's
/// directory; commit() makes it the target as write_file_atomic() does (0644, fsync, rename);
/// destroyed without commit() (an error, an early return), the temporary file is removed and
/// the target left as it was. Opened by open_atomic_file().
class AtomicFile {
 public:
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  /// Appends `piece` (EINTR and short writes retried). After a failure every later write()
  /// and commit() return the same error. Errors: kIo (ENOSPC, EIO: errno text) naming the path.
  Status write(std::string_view piece);
  /// The replaced file's mode and owner (0644 for a new file), fsync, close, rename over the
  /// target. Errors as write_file_atomic().
  Status commit();

 private:
  friend Result<std::unique_ptr<AtomicFile>> open_atomic_file(const std::string& path);
  AtomicFile(std::string path, std::string target, std::string temp, int fd);
  Status fail(int err, const char* what);
  Status apply_mode();
  struct Keep {
    unsigned mode;
    unsigned uid, gid;
  };
  std::optional<Keep> keep_;  ///< the replaced file's mode and owner; none for a new file
  std::string path_, target_, temp_;
  int fd_ = -1;
  std::optional<Error> failed_;
};

}  // namespace fabdiag
