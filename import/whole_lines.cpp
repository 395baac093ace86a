#include "import/whole_lines.h"

#include "import/common.h"
#include "import/format_detect.h"

namespace fabdiag {

Status for_each_whole_line(LineSource& lines, const std::string& source,
                           const std::function<void(std::string_view, size_t)>& line, std::vector<Error>& gaps,
                           const std::function<void(std::string_view, size_t)>& cut) {
  std::string held;
  size_t held_no = 0;
  while (auto raw = lines.next()) {
    if (held_no) line(held, held_no);
    held.assign(raw->data(), raw->size());
    held_no = lines.line_no();
  }
  if (lines.error()) return *lines.error();
  add_cut_lines_gap(lines, source, gaps);
  if (!held_no) return Ok{};
  if (!lines.unterminated() || held.empty()) {
    line(held, held_no);
    return Ok{};
  }
  gaps.push_back(make_error(ErrorCode::kParse,
                            "the last line ends without a newline (the output was cut); NOT READ: " + quote_line(held),
                            line_source(source, held_no)));
  if (cut) cut(held, held_no);
  return Ok{};
}

}  // namespace fabdiag
