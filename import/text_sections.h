// "###" sections of a saved input: case files and captures hold several tool outputs, each after
// a "### <title>" line ("### ethtool -S eth0", "### lspci -vvv"). Shared by every importer
// (import/host_formats.h for `check --from`, import/common.h for counters).
#pragma once

#include <cstddef>
#include <functional>
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
  size_t title_line = 0;  ///< Line of its "###" title; 0 for none.
};

/// True for a "###" title line (starting with "###" after optional blanks); `title` gets the
/// text after the "###", trimmed.
bool is_section_title(std::string_view line, std::string* title = nullptr);

/// Sections of a LineSource one at a time: memory is the largest section, not the input.
class SectionReader {
 public:
  explicit SectionReader(LineSource& lines) : lines_(lines) {}
  /// For readers whose records stand alone (an ibstat CA, an ibv_devinfo hca_id): a section
  /// holding at least `min_bytes` of text ends before its next line for which `record_start` is
  /// true, and the rest is read as the next section, under the same title and title_line (its
  /// first_line the cut line's). Memory is then about `min_bytes` plus one record, also for an
  /// input without "###" lines. Off (0) by default.
  void cut_at_records(size_t min_bytes, std::function<bool(std::string_view)> record_start) {
    cut_bytes_ = min_bytes;
    record_start_ = std::move(record_start);
  }
  /// The next section (the same rules as split_sections()), or nullopt at the end.
  std::optional<TextSection> next();

 private:
  // Starts `rest_` with `line`, the first of a record that ends `cur`.
  void cut_before(const TextSection& cur, std::string_view line);

  LineSource& lines_;
  bool done_ = false;
  std::optional<std::string> next_title_;  // a title line read ahead
  size_t next_first_line_ = 1;
  size_t cut_bytes_ = 0;
  std::function<bool(std::string_view)> record_start_;
  std::optional<TextSection> rest_;  // the part after a cut, its first line read
};

/// Splits `text` at "###" lines (lines starting with "###" after optional blanks). A text
/// without such a line is one untitled section; a blank text gives none.
std::vector<TextSection> split_sections(std::string_view text);

}  // namespace fabdiag
