// Hostfiles of `triage --hostfile`: fabdiag reads them itself, strictly, before mpirun starts, so
// a malformed line is refused with its file:line:column (exit 2) instead of surfacing as Open
// MPI's "bad parameter in the hostfile" or as a host that "failed".
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace fabdiag::triage {

/// Whether `name` is a host name fabdiag passes to mpirun and uses in paths: RFC 1123 labels
/// of ASCII letters, digits and '-' (no leading or trailing '-', 1-63 characters each) joined
/// by '.', at most 253 characters in all; a dotted IPv4 address qualifies. Never contains '/',
/// "..", whitespace, shell metacharacters or control characters.
bool is_valid_hostname(std::string_view name);

/// Bounds on a hostfile read_hostfile() accepts: a job of more hosts than this is not a hostfile
/// fabdiag expects, and an unbounded one would hold the whole file and its host set in memory.
struct HostfileLimits {
  size_t max_host_lines = 65536;           ///< Lines naming a host (comments and blank lines not counted).
  size_t max_bytes = size_t{16} << 20;     ///< File size in bytes (16 MiB).
};

/// Host names of an Open MPI / MPICH hostfile, first-seen order without repeats. A line is
/// `[user@]HOST [KEY=VALUE]...` (Open MPI: slots, count, cpu, max_slots and its spellings take a
/// whole number; username/user-name/user_name a user name) or `HOST:N` (MPICH); '#' starts a
/// comment. Errors: kNotFound/kPermission naming the file; kParse with source "FILE:LINE:COLUMN"
/// (1-based, the column of the offending token) for a host that is not is_valid_hostname(), an
/// unknown keyword, a value that is not a whole number; kParse naming the file when it names no
/// host; kInvalidArgument naming the file and the limit when it is larger than `limits.max_bytes`
/// or has more than `limits.max_host_lines` host lines. Linear in the file size.
Result<std::vector<std::string>> read_hostfile(const std::string& path, const HostfileLimits& limits = {});

}  // namespace fabdiag::triage
