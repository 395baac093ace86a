// Atomic file writes: results and baselines are never left half-written.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace fabdiag {

/// Writes `content` to `path` atomically: a temporary file in the target's directory, every
/// write checked, fsync, close checked, then rename(2) over the target. Readers see the old
/// file or the new one, never a mix. A new file is created 0644; a replaced file's permission
/// bits are kept (not set-user/group-ID), and its owner and group where the process may give them (root can). An
/// existing target the process could not write itself (faccessat W_OK, e.g. a root-owned 0644
/// file in a world-writable directory) is refused with kPermission ("not writable by uid N")
/// and left untouched.
/// Only regular files are written: a symlink is resolved (its final target is replaced
/// atomically, the link stays); an existing device, FIFO, socket or directory is refused with
/// kInvalidArgument naming its kind (root would otherwise replace /dev/null by a file).
/// Errors: kInvalidArgument (not a regular file), kNotFound (directory missing), kPermission,
/// kIo (ENOSPC, EIO, ...: errno text); the message names `path`.
Status write_file_atomic(const std::string& path, const std::string& content);

/// Checks before a long run that write_file_atomic(`path`, ...) can succeed later, writing
/// nothing: the same refusal of what is not a regular file (symlinks resolved), an existing
/// directory to hold it, write and search permission there (access(2)), and an existing target
/// the process may write. Errors as
/// write_file_atomic: kInvalidArgument, kNotFound, kPermission, naming `path`.
Status check_output_path(const std::string& path);

/// Refuses an output that is the same file (st_dev and st_ino, symlinks followed) as one of the
/// named `inputs` ("-" and what does not exist are skipped; a directory named as input is not
/// walked): writing the result would destroy what it was made from. `output` empty or "-"
/// (stdout), or not existing yet: Ok. Errors: kInvalidArgument naming `output`
/// ("-o FILE is also an input; write elsewhere").
Status check_output_not_input(const std::string& output, const std::vector<std::string>& inputs);

/// Refuses an output that is an existing file inside one of the directory `trees` a command
/// reads (--sysfs-root, --procfs-root; symlinks resolved): `fabdiag counters --sysfs-root N -o
/// N/.../counters/link_downed` would replace a counter it reads. Trees that do not exist are
/// skipped; `output` empty, "-" or not existing yet: Ok. Errors: kInvalidArgument naming
/// `output` ("-o FILE is inside the input tree DIR; write elsewhere").
Status check_output_outside_trees(const std::string& output, const std::vector<std::string>& trees);

/// Writes all of `content` to the open descriptor `fd` (EINTR and short writes retried).
/// Errors: kUnavailable for EPIPE (the reader went away: `| head`), kIo for anything else
/// (ENOSPC on a full disk, EIO, /dev/full), naming `what` ("stdout").
Status write_all(int fd, std::string_view content, const std::string& what);

/// Reads a whole regular file. Errors: kNotFound, kPermission, kIo naming `path`.
Result<std::string> read_file(const std::string& path);

}  // namespace fabdiag
