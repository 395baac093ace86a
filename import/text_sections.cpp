#include "import/text_sections.h"

#include "core/text.h"

namespace fabdiag {

bool is_section_title(std::string_view line, std::string* title) {
  size_t at = line.find_first_not_of(" \t");
  if (at == std::string_view::npos || line.substr(at, 3) != "###") return false;
  if (title) *title = trim(line.substr(at + 3));
  return true;
}

std::optional<TextSection> SectionReader::next() {
  while (!done_) {
    TextSection cur;
    bool titled = next_title_.has_value();
    if (titled) cur.title = *next_title_;
    cur.first_line = titled ? next_first_line_ : lines_.line_no() + 1;
    next_title_.reset();
    bool blank = true;
    for (;;) {
      auto line = lines_.next();
      if (!line) {
        done_ = true;
        break;
      }
      std::string title;
      if (is_section_title(*line, &title)) {
        next_title_ = std::move(title);
        next_first_line_ = lines_.line_no() + 1;
        break;
      }
      blank = blank && line->find_first_not_of(" \t\r") == std::string_view::npos;
      cur.text.append(*line);
      if (!lines_.unterminated()) cur.text += '\n';  // a last line without '\n' stays so: it may be cut
    }
    if (titled || !blank) return cur;
  }
  return std::nullopt;
}

std::vector<TextSection> split_sections(std::string_view text) {
  auto lines = text_line_source(std::string(text));
  SectionReader reader(*lines);
  std::vector<TextSection> out;
  while (auto s = reader.next()) out.push_back(std::move(*s));
  return out;
}

}  // namespace fabdiag
