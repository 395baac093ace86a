// Hostfiles of `triage --hostfile`: fabdiag reads them itself, strictly, before mpirun starts, so
// a malformed line is refused with its file:line:column (exit 2) instead of surfacing as Open
// MPI's "bad parameter in the hostfile" or as a host that "failed".
#pragma once

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

/// Host names of an Open MPI / MPICH hostfile, first-seen order without repeats. A line is
/// `[user@]HOST [KEY=VALUE]...` (Open MPI: slots, count, cpu, max_slots and its spellings take a
/// whole number; username/user-name/user_name a user name) or `HOST:N` (MPICH); '#' starts a
/// comment. Errors: kNotFound/kPermission naming the file; kParse with source "FILE:LINE:COLUMN"
/// (1-based, the column of the offending token) for a host that is not is_valid_hostname(), an
/// unknown keyword, a value that is not a whole number; kParse naming the file when it names no
/// host.
Result<std::vector<std::string>> read_hostfile(const std::string& path);

}  // namespace fabdiag::triage
