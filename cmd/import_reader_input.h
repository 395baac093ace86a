// The input of a registry reader (cmd/import_readers.h): FILE (or stdin for "-") as lines, its
// first lines looked at so that another tool's output is refused before it is read.
#pragma once

#include <memory>
#include <string>

#include "core/line_source.h"
#include "core/result.h"
#include "import/format_detect.h"

namespace fabdiag::cmd {

/// Opens `file` as lines (open_input_lines()) and checks its first 256 lines with
/// check_named_tool(`tool`): the source replays them. Errors: those of open_input_lines();
/// kParse naming FILE:LINE when a marker line says the text is another tool's.
Result<std::unique_ptr<PeekedLineSource>> open_reader_input(const std::string& file, ToolText tool);

}  // namespace fabdiag::cmd
