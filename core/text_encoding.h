// Byte-order marks at the start of a saved text: Windows editors and PowerShell redirections
// write one. A UTF-8 BOM (EF BB BF) is dropped where lines are read (core/line_source.cpp), so
// every reader and format detection see the text as the tool printed it; a UTF-16 text (BOM FF FE
// or FE FF) is refused with the iconv command that converts it.
#pragma once

#include <string>
#include <string_view>

namespace fabdiag {

/// The UTF-8 byte-order mark.
inline constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

/// True when `first_line` (an input's first bytes) starts with a UTF-16 BOM (FF FE or FE FF).
inline bool starts_with_utf16_bom(std::string_view first_line) {
  return first_line.size() >= 2 && ((first_line[0] == '\xFF' && first_line[1] == '\xFE') ||
                                    (first_line[0] == '\xFE' && first_line[1] == '\xFF'));
}

/// What a UTF-16 input is called where it is refused.
inline std::string utf16_refusal() { return "UTF-16 text (convert with iconv -f UTF-16 -t UTF-8)"; }

}  // namespace fabdiag
