// A result written in pieces as it is made (report/render.h renders whole strings): for a
// document bigger than memory, such as a report listing every link of a 1500-host matrix
// (docs/report.md#memory), or one whose string would only cost page faults and copies (the
// 3 MB counter list of an 8-NIC node, docs/counters.md#benchmark).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/envelope.h"
#include "core/json_writer.h"
#include "report/render.h"

namespace fabdiag {

/// Takes a piece of a document being written: writes `text` out and clears it.
using TextDrain = std::function<void(std::string& text)>;

/// An array member of the envelope's `data` written element by element: `elements` writes
/// each element (one value) through the writer and calls `written` after each, where the
/// document may leave in a piece.
struct StreamedArray {
  std::string key;  ///< The member's name in `data`; not also in `data`.
  std::function<void(JsonWriter& w, const std::function<void()>& written)> elements;
};

/// render_json(env) with `arrays` in their sorted places in `data`, handed to `drain` in pieces
/// of about 256 KiB as it is written: the same bytes, never one string.
void render_json_to(const Envelope& env, const std::vector<StreamedArray>& arrays, const TextDrain& drain);

/// render_table(env, doc) handed to `drain` in pieces of about 256 KiB, each ending at a line:
/// the same bytes, never one string (a counter table of 6,700 rows is 600 KB). Control
/// characters are left as they are, as render_table() leaves them (render() escapes them after).
void render_table_to(const Envelope& env, const Document& doc, const TextDrain& drain);

/// render(Format::kTable, env, doc) in pieces: render_table_to() with each piece's control
/// characters but newline and tab written as \xNN (escape_controls(), core/text.h), as render()
/// writes them; the escape is per byte, so the pieces join to render()'s bytes.
void render_table_escaped_to(const Envelope& env, const Document& doc, const TextDrain& drain);

}  // namespace fabdiag
