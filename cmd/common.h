// What every subcommand shares: global flags, output (format, --output, atomic write), exit
// code policy, and stderr progress. Only cmd/ prints.
#pragma once

#include <string>

#include "core/envelope.h"
#include "core/fs_root.h"
#include "core/progress.h"
#include "report/document.h"
#include "report/render.h"

namespace fabdiag::cmd {

/// Flags common to every subcommand.
struct GlobalOptions {
  std::string format;        ///< "table" | "json" | "md" | "prometheus" (counters only); empty = table on a TTY, else json.
  std::string output;        ///< File to write the result to (atomically); empty = stdout.
  std::string sysfs_root = "/sys";
  std::string procfs_root = "/proc";
  int verbose = 0;           ///< -v count.
  bool quiet = false;        ///< No progress on stderr.
};

/// The FsRoot of the global flags; error names the missing root.
Result<FsRoot> make_fs_root(const GlobalOptions& g);

/// Resolved output format (explicit --format, else table on a TTY stdout, else json).
Format resolve_format(const GlobalOptions& g);

/// Progress sink writing "fabdiag: <line>" to stderr unless --quiet.
Progress stderr_progress(const GlobalOptions& g);

/// Prints "fabdiag: error: <text>" to stderr and notes it for the fabdiag.error/1 document of a
/// usage error under --format json (cmd/error_document.h).
void print_error(const std::string& text);

/// Exit code for a finished envelope: 1 if any finding is warn or worse, else 4 if the result
/// has gaps (errors[]), else 0.
int exit_code_for(const Envelope& env);

/// Renders `env`/`doc` in the chosen format to stdout or --output (atomic write), and returns
/// exit_code_for(env), or 70 / the write error's exit code when output fails; 2 for
/// --format prometheus, which only `counters` renders (itself).
int emit(const GlobalOptions& g, const Envelope& env, const Document& doc);

/// Writes a rendered result to --output (atomically, regular files only; "-" = stdout) or to
/// stdout, every write checked. Returns kExitOk, kExitUsage (a bad --output path: missing
/// directory, no permission, a device/FIFO/directory) or kExitPartial (ENOSPC, EIO, /dev/full:
/// the result exists but could not be delivered). EPIPE on stdout (`| head`) is quiet: kExitOk.
int write_result_text(const GlobalOptions& g, const std::string& text);
/// The stdout half of write_result_text().
int write_stdout(const std::string& text);

/// The writing half of emit(): 0 when written, else the exit code above (2 or 4).
int write_rendered(const GlobalOptions& g, const Envelope& env, const Document& doc);

}  // namespace fabdiag::cmd
