// Reading a streamed input line by line where the last line may have been cut (a paste, a copy
// of a file still being written): each line is held back until the next one shows it was whole,
// and a last line without '\n' becomes a gap instead of a record. Also the gap that sums up the
// lines of one kind a reader could not use. Used by the GPU readers (nvidia-smi nvlink, dcgmi,
// NVRM Xid logs) and the fabric readers (iblinkinfo, SONiC PFC, lldpctl, perftest, pairs).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/line_source.h"
#include "core/result.h"
#include "import/common.h"

namespace fabdiag {

/// Gives every line of `lines` to `read(line, number)`. The last line, when it ends without a
/// '\n' and `cut_is_gap()` is true at that point (the reader is inside its format), is not read:
/// a kParse gap "the last line ends without a newline (the output was cut); NOT READ: \"...\""
/// naming SOURCE:LINE is added to `gaps`, and the line is given to `cut` when there is one.
/// Lines cut at 4 MiB add their gap too (add_cut_lines_gap). Errors: the read error that ended
/// `lines` early.
Status read_whole_lines(LineSource& lines, const std::string& source,
                        const std::function<void(const std::string&, size_t)>& read,
                        const std::function<bool()>& cut_is_gap, std::vector<Error>& gaps,
                        const std::function<void(const std::string&, size_t)>& cut = {});

/// read_whole_lines() where a cut last line is always a gap (blank lines are read too).
Status for_each_whole_line(LineSource& lines, const std::string& source,
                           const std::function<void(std::string_view, size_t)>& line, std::vector<Error>& gaps,
                           const std::function<void(std::string_view, size_t)>& cut = {});

/// Adds to `gaps`, when `tally` counted any line, one kParse gap naming SOURCE:LINE of the
/// first: "<count> <what>, first: \"<line>\"" (what = "line(s) not understood").
void add_tally_gap(std::vector<Error>& gaps, const std::string& source, const LineTally& tally, const std::string& what);

}  // namespace fabdiag
