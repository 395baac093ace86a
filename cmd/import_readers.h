// The registry of `fabdiag import FORMAT FILE` readers that take one file and --max-findings:
// one row per format (its subcommand name, the ToolText detection calls it, help texts and the
// function that reads it). main.cpp makes one subcommand per row; `fabdiag import FILE...`
// (no format) picks the row whose `tool` detect_tool() names (import/format_detect.h).
// A new reader adds: import/<format>.{h,cpp} (the parser, into the result model),
// cmd/import_<format>.cpp (its read function: envelope + document), a ToolText with its marker
// in import/format_detect.*, and one row in cmd/import_readers.cpp.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "cmd/common.h"
#include "core/envelope.h"
#include "core/line_source.h"
#include "core/result.h"
#include "import/format_detect.h"
#include "report/document.h"

namespace fabdiag::cmd {

/// Options of a registry reader.
struct ImportFileOptions {
  std::string file;           ///< The saved output; "-" = stdin.
  size_t max_findings = 200;  ///< Findings of one code and errors of one kind listed; 0 = all.
  /// --line-rate of the MPI benchmark readers (osu, imb): one port's rate, Gb/s; nullopt = not judged.
  std::optional<double> line_rate_gbit_per_s;
};

/// What a reader made of one file: the envelope (schema, data, findings, errors[] for the
/// gaps) and the document people read.
struct ImportOutput {
  Envelope env;
  Document doc;
};

/// One format `fabdiag import` reads.
struct ImportReader {
  const char* name;    ///< Subcommand: "nvidia-smi-nvlink".
  ToolText tool;       ///< What detect_tool() calls this format's text.
  const char* help;    ///< One line: "`nvidia-smi nvlink -s` text -> fabdiag.gpulinks/1 (...)".
  const char* footer;  ///< What is tolerated and the exit codes.
  /// Reads the file. Errors (exit 2 through fail_input): the file is missing or unreadable,
  /// or is not this format (kParse naming FILE:LINE and what was seen). A part that could not
  /// be read is not an error: it is in env.errors (exit 4).
  Result<ImportOutput> (*read)(const ImportFileOptions& o);
};

/// What every read function returns around its reader's result: the envelope `schema` without
/// hosts (the caller adds those the content names) and with params {importer, file}, `data`, `findings` and `gaps` (as errors[]), findings and errors
/// capped at o.max_findings, and the document titled "fabdiag import IMPORTER FILE" (no
/// sections yet: the caller adds its tables).
ImportOutput reader_output(const ImportFileOptions& o, const std::string& importer, const std::string& schema,
                           nlohmann::json data, std::vector<Finding> findings, std::vector<Error> gaps);

/// Every registry reader, in the order of `fabdiag import --help`.
std::span<const ImportReader> import_readers();

/// The reader of `tool`, or nullptr.
const ImportReader* import_reader_for(ToolText tool);

/// Runs `r` on `o` and prints its result: fail_input()'s code when the file cannot be used,
/// else emit()'s (0, 1 findings, 4 gaps).
int run_import_reader(const GlobalOptions& g, const ImportReader& r, const ImportFileOptions& o);

}  // namespace fabdiag::cmd
