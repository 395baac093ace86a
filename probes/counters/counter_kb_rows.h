// The counter knowledge base as constant rows compiled into the binary. At build time
// probes/counters/data/generate_counter_kb.cpp parses probes/counters/data/counters.json with the
// strict parser (counter_kb.h) and writes the parsed base as C++ rows
// (counter_kb_rows_source()); at run time counter_kb() builds the base from them
// (counter_kb_from_rows()) instead of parsing 63 KB of JSON at every start.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/result.h"
#include "probes/counters/counter_kb.h"

namespace fabdiag {

/// One rule description: "any_growth" -> "any increase in a window ...".
struct CounterKbRuleRow {
  std::string_view name;
  std::string_view description;
};

/// A CounterKbFamily as constants. `groups`: one byte per group, the CounterGroup's value, in
/// file order. `drivers`: each prefix followed by a NUL byte ("mlx5\0"; "" = any driver).
/// `width_bits`: -1 = none.
struct CounterKbFamilyRow {
  std::string_view family;
  std::string_view groups;
  std::string_view drivers;
  int width_bits;
  bool wraps;
  std::string_view source;
};

/// A CounterKbEntry as constants, after the parser resolved aliases (rule, unit, scale and width
/// inherited from the target). `groups` as in CounterKbFamilyRow; `width_bits`: -1 = none.
struct CounterKbEntryRow {
  std::string_view name;
  std::string_view family;
  CounterCategory category;
  std::string_view alias_of;
  std::string_view groups;
  std::string_view unit;
  uint64_t scale;
  int width_bits;
  bool wraps;
  CounterRule rule;
  std::string_view meaning;
  std::string_view source;
};

/// A whole base: its rule descriptions, families and entries, in file order.
struct CounterKbRows {
  std::span<const CounterKbRuleRow> rules;
  std::span<const CounterKbFamilyRow> families;
  std::span<const CounterKbEntryRow> entries;
};

/// C++ source text that defines `const CounterKbRows fabdiag::embedded::<symbol>` holding `kb`
/// (what the build compiles into fabdiag); `from` names the input in the file's header comment.
/// Errors: kInvalidArgument when a driver prefix holds a NUL byte (the rows could not carry it).
Result<std::string> counter_kb_rows_source(const CounterKnowledgeBase& kb, std::string_view from,
                                           std::string_view symbol);

/// The base the rows describe, with its name indexes; equal, entry by entry, to the base the
/// rows were written from. Never fails.
CounterKnowledgeBase counter_kb_from_rows(const CounterKbRows& rows);

}  // namespace fabdiag
