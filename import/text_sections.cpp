#include "import/text_sections.h"

#include "core/text.h"

namespace fabdiag {

std::vector<TextSection> split_sections(std::string_view text) {
  std::vector<TextSection> out;
  TextSection cur;
  bool in_titled = false;
  size_t line_no = 0;
  auto flush = [&] {
    if (in_titled || !trim(cur.text).empty()) out.push_back(cur);
  };
  for (const auto& raw : split(text, '\n')) {
    ++line_no;
    std::string t = trim(raw);
    if (starts_with(t, "###")) {
      flush();
      cur = TextSection{trim(t.substr(3)), line_no + 1, {}};
      in_titled = true;
      continue;
    }
    cur.text += raw;
    cur.text += '\n';
  }
  flush();
  return out;
}

}  // namespace fabdiag
