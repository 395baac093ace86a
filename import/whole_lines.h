// The whole lines of an input, streamed: each line is handed on once the next one starts, so
// that a last line cut without its newline (a paste or a log copied while it was written) is
// reported as a gap instead of being read as data. Used by the GPU readers (nvidia-smi nvlink,
// dcgmi, NVRM Xid logs).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/line_source.h"
#include "core/result.h"

namespace fabdiag {

/// Calls `line(text, line_no)` for every line of `lines` (blank lines included) except a last
/// line that ends without a newline: that one is given to `cut(text, line_no)` instead, and a
/// kParse gap "the last line ends without a newline (...): NOT READ: \"...\"" naming
/// "SOURCE:LINE" is appended to `gaps`. Errors: the line source's read error (kIo).
Status for_each_whole_line(LineSource& lines, const std::string& source,
                           const std::function<void(std::string_view, size_t)>& line, std::vector<Error>& gaps,
                           const std::function<void(std::string_view, size_t)>& cut = {});

}  // namespace fabdiag
