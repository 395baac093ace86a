#include "import/text_sections.h"

#include "core/text.h"

namespace fabdiag {

bool is_section_title(std::string_view line, std::string* title) {
  size_t at = line.find_first_not_of(" \t");
  if (at == std::string_view::npos || line.substr(at, 3) != "###") return false;
  if (title) *title = trim(line.substr(at + 3));
  return true;
}

void SectionReader::cut_before(const TextSection& cur, std::string_view line) {
  rest_.emplace();
  rest_->title = cur.title;
  rest_->title_line = cur.title_line;
  rest_->first_line = lines_.line_no();
  rest_->text.append(line);
  if (!lines_.unterminated()) rest_->text += '\n';
}

std::optional<TextSection> SectionReader::next() {
  while (!done_) {
    TextSection cur;
    bool keep = rest_.has_value() || next_title_.has_value();  // returned even when blank
    if (rest_) {
      cur = std::move(*rest_);
      rest_.reset();
    } else if (next_title_) {
      cur.title = std::move(*next_title_);
      cur.first_line = next_first_line_;
      cur.title_line = next_first_line_ - 1;
      next_title_.reset();
    } else {
      cur.first_line = lines_.line_no() + 1;
    }
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
      if (cut_bytes_ > 0 && cur.text.size() >= cut_bytes_ && record_start_(*line)) {
        cut_before(cur, *line);
        break;
      }
      blank = blank && line->find_first_not_of(" \t\r") == std::string_view::npos;
      cur.text.append(*line);
      if (!lines_.unterminated()) cur.text += '\n';  // a last line without '\n' stays so: it may be cut
    }
    if (keep || !blank) return cur;
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
