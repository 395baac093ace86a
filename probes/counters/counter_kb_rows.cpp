#include "probes/counters/counter_kb_rows.h"

#include <cstdio>
#include <utility>

namespace fabdiag {
namespace {

// `s` as a C++ string_view literal ("..."sv): printable ASCII as it is, every other byte
// (quote, backslash, UTF-8, NUL) as a three-digit octal escape, which no following digit extends.
std::string literal(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += ch;
      continue;
    }
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\%03o", static_cast<unsigned>(c));
    out += buf;
  }
  out += "\"sv";
  return out;
}

std::string groups_literal(const std::vector<CounterGroup>& groups) {
  std::string bytes;
  for (auto g : groups) bytes.push_back(static_cast<char>(g));
  return literal(bytes);
}

std::string width_literal(const std::optional<unsigned>& bits) {
  return bits ? std::to_string(*bits) : std::string("-1");
}

const char* bool_literal(bool b) { return b ? "true" : "false"; }

Result<std::string> family_row(const CounterKbFamily& f) {
  std::string drivers;
  for (const auto& d : f.drivers) {
    if (d.find('\0') != std::string::npos)
      return make_error(ErrorCode::kInvalidArgument, "family " + f.family + ": a driver prefix holds a NUL byte");
    drivers += d;
    drivers += '\0';
  }
  return "    {" + literal(f.family) + ", " + groups_literal(f.groups) + ", " + literal(drivers) + ", " +
         width_literal(f.width_bits) + ", " + bool_literal(f.wraps) + ", " + literal(f.source) + "},\n";
}

std::string entry_row(const CounterKbEntry& e) {
  return "    {" + literal(e.name) + ", " + literal(e.family) + ", static_cast<CounterCategory>(" +
         std::to_string(static_cast<int>(e.category)) + "), " + literal(e.alias_of) + ", " +
         groups_literal(e.groups) + ", " + literal(e.unit) + ", " + std::to_string(e.scale) + "u, " +
         width_literal(e.width_bits) + ", " + bool_literal(e.wraps) + ", static_cast<CounterRule>(" +
         std::to_string(static_cast<int>(e.rule)) + "), " + literal(e.meaning) + ", " + literal(e.source) +
         "},\n";
}

std::vector<CounterGroup> groups_of(std::string_view bytes) {
  std::vector<CounterGroup> out;
  out.reserve(bytes.size());
  for (char b : bytes) out.push_back(static_cast<CounterGroup>(static_cast<unsigned char>(b)));
  return out;
}

std::optional<unsigned> width_of(int bits) {
  if (bits < 0) return std::nullopt;
  return static_cast<unsigned>(bits);
}

CounterKbFamily family_of(const CounterKbFamilyRow& r) {
  CounterKbFamily f;
  f.family = r.family;
  f.groups = groups_of(r.groups);
  for (size_t i = 0; i < r.drivers.size();) {
    size_t end = r.drivers.find('\0', i);
    f.drivers.emplace_back(r.drivers.substr(i, end - i));
    i = end + 1;
  }
  f.width_bits = width_of(r.width_bits);
  f.wraps = r.wraps;
  f.source = r.source;
  return f;
}

CounterKbEntry entry_of(const CounterKbEntryRow& r) {
  CounterKbEntry e;
  e.name = r.name;
  e.family = r.family;
  e.category = r.category;
  e.alias_of = r.alias_of;
  e.groups = groups_of(r.groups);
  e.unit = r.unit;
  e.scale = r.scale;
  e.width_bits = width_of(r.width_bits);
  e.wraps = r.wraps;
  e.rule = r.rule;
  e.meaning = r.meaning;
  e.source = r.source;
  e.is_pattern = r.name.find('#') != std::string_view::npos;
  return e;
}

}  // namespace

Result<std::string> counter_kb_rows_source(const CounterKnowledgeBase& kb, std::string_view from,
                                           std::string_view symbol) {
  std::string out = "// Generated from " + std::string(from) +
                    " by probes/counters/data/generate_counter_kb.cpp at build time. Do not edit.\n"
                    "#include <array>\n\n#include \"probes/counters/counter_kb_rows.h\"\n\n"
                    "namespace fabdiag::embedded {\nnamespace {\nusing namespace std::string_view_literals;\n\n";
  out += "const std::array<CounterKbRuleRow, " + std::to_string(kb.rule_descriptions().size()) + "> kRules{{\n";
  for (const auto& [name, text] : kb.rule_descriptions())
    out += "    {" + literal(name) + ", " + literal(text) + "},\n";
  out += "}};\n\nconst std::array<CounterKbFamilyRow, " + std::to_string(kb.families().size()) + "> kFamilies{{\n";
  for (const auto& f : kb.families()) {
    auto row = family_row(f);
    if (!row) return row.error();
    out += *row;
  }
  out += "}};\n\nconst std::array<CounterKbEntryRow, " + std::to_string(kb.entries().size()) + "> kEntries{{\n";
  for (const auto& e : kb.entries()) out += entry_row(e);
  out += "}};\n\n}  // namespace\n\nextern const CounterKbRows " + std::string(symbol) + ";\nconst CounterKbRows " +
         std::string(symbol) + "{kRules, kFamilies, kEntries};\n\n}  // namespace fabdiag::embedded\n";
  return out;
}

CounterKnowledgeBase counter_kb_from_rows(const CounterKbRows& rows) {
  CounterKnowledgeBase kb;
  kb.rules_.reserve(rows.rules.size());
  for (const auto& r : rows.rules) kb.rules_.emplace_back(std::string(r.name), std::string(r.description));
  kb.families_.reserve(rows.families.size());
  for (const auto& f : rows.families) kb.families_.push_back(family_of(f));
  kb.entries_.reserve(rows.entries.size());
  for (const auto& e : rows.entries) kb.entries_.push_back(entry_of(e));
  kb.build_index();
  return kb;
}

}  // namespace fabdiag
