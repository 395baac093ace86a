// One evidence item as one line of text, the same in every renderer (table, Markdown, JUnit,
// HTML): "metric = value unit (text); limit threshold unit (text) [source]".
#pragma once

#include <string>

#include "core/finding.h"

namespace fabdiag {

/// "symbol_error delta = 12 count; limit 0 count [/sys/class/infiniband/...]"; ">= " before a
/// saturated counter's value; "?" when there is neither a number nor a text.
std::string evidence_text(const Evidence& e);

}  // namespace fabdiag
