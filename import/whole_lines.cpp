#include "import/whole_lines.h"

#include "import/format_detect.h"

namespace fabdiag {

Status read_whole_lines(LineSource& lines, const std::string& source,
                        const std::function<void(const std::string&, size_t)>& read,
                        const std::function<bool()>& cut_is_gap, std::vector<Error>& gaps,
                        const std::function<void(const std::string&, size_t)>& cut) {
  std::string held;  // the previous line: read once the next one shows it was whole
  size_t held_no = 0;
  while (auto raw = lines.next()) {
    if (held_no) read(held, held_no);
    held.assign(raw->data(), raw->size());
    held_no = lines.line_no();
  }
  if (lines.error()) return *lines.error();
  add_cut_lines_gap(lines, source, gaps);
  if (held_no && lines.unterminated() && !held.empty() && cut_is_gap()) {
    gaps.push_back(make_error(ErrorCode::kParse,
                              "the last line ends without a newline (the output was cut); NOT READ: " + quote_line(held),
                              line_source(source, held_no)));
    if (cut) cut(held, held_no);
  } else if (held_no) {
    read(held, held_no);
  }
  return Ok{};
}

Status for_each_whole_line(LineSource& lines, const std::string& source,
                           const std::function<void(std::string_view, size_t)>& line, std::vector<Error>& gaps,
                           const std::function<void(std::string_view, size_t)>& cut) {
  std::function<void(const std::string&, size_t)> on_cut;
  if (cut) on_cut = [&cut](const std::string& l, size_t n) { cut(l, n); };
  return read_whole_lines(
      lines, source, [&line](const std::string& l, size_t n) { line(l, n); }, [] { return true; }, gaps, on_cut);
}

void add_tally_gap(std::vector<Error>& gaps, const std::string& source, const LineTally& tally, const std::string& what) {
  if (tally.count == 0) return;
  gaps.push_back(make_error(ErrorCode::kParse, std::to_string(tally.count) + " " + what + ", first: " + tally.first_text,
                            line_source(source, tally.first)));
}

}  // namespace fabdiag
