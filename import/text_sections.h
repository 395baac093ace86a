// "###" sections of a saved input: case files and captures hold several tool outputs, each after
// a "### <title>" line ("### ethtool -S eth0", "### lspci -vvv"). Shared by every importer
// (import/host_formats.h for `check --from`, import/common.h for counters).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/line_source.h"

namespace fabdiag {

/// A part of an input: the text after a "### <title>" line up to the next one. Text before the
/// first "###" line (if not blank) is a section with an empty title.
struct TextSection {
  std::string title;       ///< After "###", trimmed; empty for text before the first title.
  size_t first_line = 1;   ///< 1-based line number (in the whole input) of the section's first text line.
  std::string text;  ///< Its lines, each ending in '\n' but an input's last line that had none.
};

/// True for a "###" title line (starting with "###" after optional blanks); `title` gets the
/// text after the "###", trimmed.
bool is_section_title(std::string_view line, std::string* title = nullptr);

/// Sections of a LineSource one at a time: memory is the largest section, not the input.
class SectionReader {
 public:
  explicit SectionReader(LineSource& lines) : lines_(lines) {}
  /// The next section (the same rules as split_sections()), or nullopt at the end.
  std::optional<TextSection> next();

 private:
  LineSource& lines_;
  bool done_ = false;
  std::optional<std::string> next_title_;  // a title line read ahead
  size_t next_first_line_ = 1;
};

/// Splits `text` at "###" lines (lines starting with "###" after optional blanks). A text
/// without such a line is one untitled section; a blank text gives none.
std::vector<TextSection> split_sections(std::string_view text);

}  // namespace fabdiag
