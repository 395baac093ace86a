// Renderers: table (aligned text for a terminal), Markdown, JSON. Input: core types and the
// Document only. Output: one string for stdout or --output.
#pragma once

#include <optional>
#include <string>

#include "core/envelope.h"
#include "report/document.h"

namespace fabdiag {

enum class Format { kTable, kJson, kMarkdown };

/// Parses "table", "json", "md"/"markdown". nullopt otherwise.
std::optional<Format> parse_format(const std::string& s);

/// Aligned plain text: the document's sections and tables, then findings (worst first) with
/// their evidence and action, then the gaps (envelope errors). Fits 80 columns where the data
/// allows; wide matrices keep their alignment instead of wrapping.
std::string render_table(const Envelope& env, const Document& doc);

/// GitHub-flavoured Markdown of the same content.
std::string render_markdown(const Envelope& env, const Document& doc);

/// The envelope as one pretty-printed JSON document with a trailing newline.
std::string render_json(const Envelope& env);

/// The envelope as one line of compact JSON with a trailing newline (a stream of results, one
/// per line: what a triage rank sends its launcher).
std::string render_json_line(const Envelope& env);

/// Table and Markdown open with "PARTIAL: <cut_text>" when the envelope is partial.
/// Dispatches on `format`.
std::string render(Format format, const Envelope& env, const Document& doc);

}  // namespace fabdiag
