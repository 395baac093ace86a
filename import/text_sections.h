// "###" sections of a saved input: case files and captures hold several tool outputs, each after
// a "### <title>" line ("### ethtool -S eth0", "### lspci -vvv"). Shared by every importer
// (import/host_formats.h for `check --from`, import/common.h for counters).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fabdiag {

/// A part of an input: the text after a "### <title>" line up to the next one. Text before the
/// first "###" line (if not blank) is a section with an empty title.
struct TextSection {
  std::string title;       ///< After "###", trimmed; empty for text before the first title.
  size_t first_line = 1;   ///< 1-based line number (in the whole input) of the section's first text line.
  std::string text;
};

/// Splits `text` at "###" lines (lines starting with "###" after optional blanks). A text
/// without such a line is one untitled section; a blank text gives none.
std::vector<TextSection> split_sections(std::string_view text);

}  // namespace fabdiag
