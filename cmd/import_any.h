// `fabdiag import FILE|DIR...` with no format named: detection, routing to the command that
// judges each layer, and one joined result (cmd/import_any.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/import_readers.h"

namespace fabdiag::cmd {

/// Options of the format-less import.
struct ImportAnyOptions {
  std::vector<std::string> paths;  ///< Files and directories (walked, regular files only); "-" needs --as.
  std::string as;                  ///< --as FORMAT: every file is this format (a subcommand name); empty = detect.
  size_t max_findings = 200;       ///< Findings of one code and errors of one kind listed; 0 = all.
  /// --line-rate: one port's rate, Gb/s, for the nccl-tests, OSU and IMB files (as `import nccl-tests --line-rate`).
  std::optional<double> line_rate_gbit_per_s;
  /// What to tell the operator about a file no reader claims (after "not the output of a tool
  /// fabdiag reads (line N: ...); "): `import` has --as; `accept --from` and `triage --from` do not.
  std::string unclaimed_hint = "name it with --as FORMAT";
};

/// unclaimed_hint of the commands that read a pile without --as (accept --from, triage --from).
inline constexpr const char* kFromUnclaimedHint =
    "read it with `fabdiag import --as FORMAT FILE > RESULT.json` (FORMAT: `fabdiag import --help`) and give RESULT.json to --from";

/// One input of a pile: what it was taken for.
struct PileFile {
  std::string path;
  std::string format;     ///< The reader's name ("ibstat"); "" = not read (`why`).
  std::string how;        ///< "--as F", or the evidence: "line 1: \"CA 'mlx5_0'\"".
  std::string why;        ///< Why it was not read.
  std::string host_hint;  ///< The host its path names: DIR/<host>/... under a directory argument.
};

/// One result made of some of the files.
struct PilePart {
  std::vector<std::string> files;
  ImportOutput out;
};

/// Everything read from the FILE and DIR arguments.
struct Pile {
  std::vector<PileFile> files;
  std::vector<PilePart> parts;
  int interrupted_by = 0;  ///< SIGINT/SIGTERM caught while reading: the files after it are not read.
};

/// The reading half of run_import_any(): expands, detects, reads (counter outputs together,
/// host facts together, the rest one by one). nullopt with `pile` filled (files not read say
/// why, also on stderr), or the exit code when the run cannot start (a bad --as, a missing
/// path, nothing readable: the error printed). SIGINT/SIGTERM are caught while it reads: the
/// files not read yet say so, `pile.interrupted_by` is set, and an extracted archive's temporary
/// copy is removed before it returns (128 + signal when nothing was read).
std::optional<int> read_pile(const GlobalOptions& g, const ImportAnyOptions& o, Pile& pile);

/// params.files[] of a pile: {file, format (null = not read), detected_by, not_read, host}.
nlohmann::json pile_files_json(const std::vector<PileFile>& files);

/// The "files read" table of a pile: file, format, what gave it away (or why not read).
Section pile_files_section(const std::vector<PileFile>& files);

/// Detects each file's tool from its first 256 lines (a marker line only that tool prints, or
/// most lines of its shape; import/format_detect.h) and reads it as `fabdiag import FORMAT`
/// would, counter outputs together through `counters --from` and host-fact outputs together
/// through `check --from`, so the verdict is the same as those commands'. One file: that
/// command's document, with params.detected = {file, format, detected_by}. Several: one
/// fabdiag.import/1 envelope (data.parts[] = {files, schema, params, data} per result,
/// findings and errors of all, params.files = what each file was taken for).
/// A file no reader claims is reported ("FILE: not the output of a tool fabdiag reads (line
/// N: ...)"), never read as something else. Exit codes: 0 ok, 1 a warn/error/critical finding,
/// 2 no file could be read or a bad --as, 4 some files or parts could not be read.
int run_import_any(const GlobalOptions& g, const ImportAnyOptions& o);

}  // namespace fabdiag::cmd
