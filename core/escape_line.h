// Text of one stderr line: what escape_controls() (core/text.h) escapes, and newlines too.
// Kept apart from core/text.h so the few writers of stderr lines include it (core/text.cpp
// defines it beside the other escapes).
#pragma once

#include <string>
#include <string_view>

namespace fabdiag {

/// One line for stderr: control characters (ESC, CR, NUL, DEL...) and newlines as \xNN, tabs
/// and UTF-8 kept, so a file name or a value holding '\n' cannot break the one-line-per-error
/// rule ("a\nb.log" -> "a\x0ab.log").
std::string escape_line(std::string_view s);

}  // namespace fabdiag
