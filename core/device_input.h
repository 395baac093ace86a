// Inputs that may never end: a character or block device (/dev/zero, /dev/urandom, a disk) or
// a socket given where a saved tool output belongs. The readers (core/line_source.h open_line_source,
// core/atomic_file.h read_file) refuse them by name instead of reading forever; /dev/null (1:3)
// is an empty input, and pipes and FIFOs end when their writer does.
#pragma once

#include <sys/types.h>

#include <string>

namespace fabdiag {

/// "character device", "block device" or "socket" for a file of that type (st_mode, st_rdev of
/// stat(2)) other than /dev/null; "" for a regular file, a directory, a pipe or /dev/null.
std::string endless_input_kind(mode_t mode, dev_t rdev);

/// The message of the refusal: "is a character device, not a file: it may never end; ...".
std::string endless_input_message(const std::string& kind);

}  // namespace fabdiag
