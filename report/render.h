// Renderers: table (aligned text for a terminal), Markdown, JSON, and through the report model
// (report/result_model.h) a self-contained HTML page and JUnit XML. Input: core types and the
// Document only. Output: one string for stdout or --output.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/envelope.h"
#include "core/json_writer.h"
#include "report/document.h"

namespace fabdiag {

enum class Format {
  kTable,
  kJson,
  kMarkdown,
  kHtml,       ///< One self-contained page (report/html.h).
  kJunit,      ///< JUnit XML (report/junit.h).
  kNcclTests,  ///< The nccl-tests result table (report/nccl_tests_table.h): fabdiag.bench/1 only.
};

/// Parses "table", "json", "md"/"markdown", "html", "junit", "nccl-tests". nullopt otherwise.
std::optional<Format> parse_format(const std::string& s);

/// Aligned plain text: the document's sections and tables, then findings (worst first) with
/// their evidence and action, then the gaps (envelope errors). Fits 80 columns where the data
/// allows; wide matrices keep their alignment instead of wrapping.
std::string render_table(const Envelope& env, const Document& doc);

/// GitHub-flavoured Markdown of the same content.
std::string render_markdown(const Envelope& env, const Document& doc);

/// The envelope as one pretty-printed JSON document with a trailing newline.
std::string render_json(const Envelope& env);

/// A member of the envelope's `data` that is written straight to the output by `write` (one
/// value through the JsonWriter) instead of being stored in `data` as a tree: for a big list
/// (the counters of a node), whose tree would cost more than the rest of the run.
struct StreamedMember {
  std::string key;                         ///< The member's name in `data`; not also in `data`.
  std::function<void(JsonWriter&)> write;  ///< Writes the member's value (exactly one).
  /// About how many bytes `write` writes (0 = unknown): the document's buffer is reserved for
  /// them at once instead of growing by doubling (each growth copies and touches new pages).
  size_t size_hint = 0;
};

/// render_json() of `env` whose `data` also has the `streamed` members (in their sorted place;
/// one that `data` has too replaces it): the same bytes as render_json() of an envelope with
/// those members stored in `data`.
std::string render_json(const Envelope& env, const std::vector<StreamedMember>& streamed);

/// The envelope as one line of compact JSON with a trailing newline (a stream of results, one
/// per line: what a triage rank sends its launcher).
std::string render_json_line(const Envelope& env);

/// Table and Markdown open with "PARTIAL: <cut_text>" when the envelope is partial.
/// Dispatches on `format`. HTML and JUnit draw model_of(env) (report/html.h, report/junit.h);
/// the HTML page also shows `doc`'s sections under "Details"; kNcclTests of an envelope that is
/// not fabdiag.bench/1 gives the table.
std::string render(Format format, const Envelope& env, const Document& doc);

}  // namespace fabdiag
