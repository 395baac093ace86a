// Input files of subcommands that read saved results (baseline, import): reading FILE or
// stdin, and the exit code when an input cannot be used.
#pragma once

#include <memory>
#include <string>

#include "core/line_source.h"
#include "core/result.h"

namespace fabdiag::cmd {

/// The whole content of FILE, or of stdin when `file` is "-".
/// Errors: those of read_file (kNotFound, kPermission, kIo, kInvalidArgument for a directory)
/// naming the file; kIo naming "-" when stdin cannot be read.
Result<std::string> read_input(const std::string& file);

/// FILE, or stdin when `file` is "-", as lines read as they are needed (the readers of
/// import/ stream: memory is what they keep, not the file). Errors: as read_input().
Result<std::unique_ptr<LineSource>> open_input_lines(const std::string& file);

/// Prints `e` ("fabdiag: error: SOURCE: MESSAGE") and returns the exit code: 2 when the
/// user can fix the input (kNotFound, kInvalidArgument, kParse, kUnsupported: missing file,
/// not JSON, wrong schema, bad name), 70 when the system failed (kPermission, kIo: a file or
/// the store cannot be read or written; emit() does the same for output it cannot write).
int fail_input(const Error& e);

}  // namespace fabdiag::cmd
