// nccl-tests JSON (internal to the nccl-tests import, import/nccl_tests.h): the document
// `-J FILE` writes (nccl-tests src/util.cu, JSON_FILE_VERSION 2) and the one-line stdout form
// of the unmerged PR #318, read into result tables even when the document is cut short.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "import/nccl_tests.h"

namespace fabdiag::baseline::detail {

/// True when `text` starts a JSON object of nccl-tests: '{' and either "nccl-tests structured
/// output" (PR #318) or a "version" key with a "nccl_version" or "results" key (-J file).
bool looks_like_nccl_tests_json(std::string_view text);

/// What one JSON document holds.
struct JsonTables {
  std::vector<NcclTestsTable> tables;  ///< One per results list (-J) or benchmark list (PR #318).
  std::vector<std::string> gaps;       ///< What could not be read: the record the cut fell in, ...
  bool cut = false;                    ///< The document ends before its last '}'.
};

/// Reads `text` (a document as looks_like_nccl_tests_json() accepts): the complete result
/// records (size, count, type, redop, root, both halves in seconds and bytes/s, #wrong,
/// per-iteration statistics and per-process slowest iterations), the devices as ranks, the
/// summary. A record the cut falls in is not kept: it is named in gaps. Header lines are 0:
/// the caller sets them.
JsonTables read_nccl_tests_json(std::string_view text);

}  // namespace fabdiag::baseline::detail
