// `fabdiag import FILE|DIR...` with no format named: detection, routing to the command that
// judges each layer, and one joined result (cmd/import_any.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cmd/common.h"

namespace fabdiag::cmd {

/// Options of the format-less import.
struct ImportAnyOptions {
  std::vector<std::string> paths;  ///< Files and directories (walked, regular files only); "-" needs --as.
  std::string as;                  ///< --as FORMAT: every file is this format (a subcommand name); empty = detect.
  size_t max_findings = 200;       ///< Findings of one code and errors of one kind listed; 0 = all.
};

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
