// Atomic file writes: results and baselines are never left half-written.
#pragma once

#include <string>

#include "core/result.h"

namespace fabdiag {

/// Writes `content` to `path` atomically: a temporary file in the same directory, fsync, then
/// rename(2) over the target. Readers see the old file or the new one, never a mix.
/// Errors: kNotFound (directory missing), kPermission, kIo; the message names `path`.
Status write_file_atomic(const std::string& path, const std::string& content);

/// Reads a whole regular file. Errors: kNotFound, kPermission, kIo naming `path`.
Result<std::string> read_file(const std::string& path);

}  // namespace fabdiag
