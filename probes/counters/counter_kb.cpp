#include "probes/counters/counter_kb.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "probes/counters/counter_classes.h"  // normalize_counter_name

namespace fabdiag {

namespace {

using nlohmann::json;

// Parse-time failure with the location in the document; caught once in parse_counter_kb.
struct KbError {
  std::string message;
};

const json& member(const json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) throw KbError{where + ": missing \"" + key + "\""};
  return *it;
}

std::string string_of(const json& v, const std::string& where, const char* key) {
  if (!v.is_string()) throw KbError{where + ": \"" + key + "\" must be a string"};
  return v.get<std::string>();
}

// A linear scan of a dozen names: cheaper than building a std::set for each of ~900 entries.
void check_keys(const json& obj, std::initializer_list<std::string_view> allowed, const std::string& where) {
  if (!obj.is_object()) throw KbError{where + ": must be an object"};
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (std::find(allowed.begin(), allowed.end(), std::string_view(it.key())) == allowed.end())
      throw KbError{where + ": unknown key \"" + it.key() + "\""};
}

std::vector<CounterGroup> groups_of(const json& obj, const std::string& where) {
  std::vector<CounterGroup> out;
  auto it = obj.find("groups");
  if (it == obj.end()) return out;
  if (!it->is_array()) throw KbError{where + ": \"groups\" must be an array"};
  for (const auto& g : *it) {
    auto parsed = parse_counter_group(string_of(g, where, "groups"));
    if (!parsed) throw KbError{where + ": unknown group \"" + g.get<std::string>() + "\""};
    out.push_back(*parsed);
  }
  return out;
}

void width_of(const json& obj, const std::string& where, std::optional<unsigned>& bits, bool& wraps) {
  if (auto it = obj.find("width_bits"); it != obj.end()) {
    if (!it->is_number_unsigned() || it->get<unsigned>() > 64)
      throw KbError{where + ": \"width_bits\" must be 0..64"};
    bits = it->get<unsigned>();
  }
  if (auto it = obj.find("overflow"); it != obj.end()) {
    std::string o = string_of(*it, where, "overflow");
    if (o != "wraps" && o != "saturates")
      throw KbError{where + ": \"overflow\" must be \"wraps\" or \"saturates\""};
    wraps = o == "wraps";
  }
}

CounterKbFamily parse_family(const json& f, size_t i) {
  std::string where = "families[" + std::to_string(i) + "]";
  check_keys(f, {"family", "groups", "drivers", "width_bits", "overflow", "source"}, where);
  CounterKbFamily fam;
  fam.family = string_of(member(f, "family", where), where, "family");
  where += " (" + fam.family + ")";
  fam.groups = groups_of(f, where);
  if (auto it = f.find("drivers"); it != f.end()) {
    if (!it->is_array()) throw KbError{where + ": \"drivers\" must be an array"};
    for (const auto& d : *it) fam.drivers.push_back(string_of(d, where, "drivers"));
  }
  width_of(f, where, fam.width_bits, fam.wraps);
  fam.source = string_of(member(f, "source", where), where, "source");
  return fam;
}

CounterKbEntry parse_entry(const json& c, size_t i, const std::vector<CounterKbFamily>& families) {
  std::string where = "counters[" + std::to_string(i) + "]";
  check_keys(c, {"name", "family", "category", "alias_of", "groups", "unit", "scale", "width_bits",
                 "overflow", "rule", "meaning", "source"},
             where);
  CounterKbEntry e;
  e.name = string_of(member(c, "name", where), where, "name");
  where += " (" + e.name + ")";
  if (e.name.empty()) throw KbError{where + ": empty name"};
  e.family = string_of(member(c, "family", where), where, "family");
  const CounterKbFamily* fam = nullptr;
  for (const auto& f : families)
    if (f.family == e.family) fam = &f;
  if (!fam) throw KbError{where + ": family \"" + e.family + "\" is not in families[]"};
  auto cat = parse_counter_category(string_of(member(c, "category", where), where, "category"));
  if (!cat || *cat == CounterCategory::kUnknown)
    throw KbError{where + ": unknown category \"" + c["category"].get<std::string>() + "\""};
  e.category = *cat;
  if (auto it = c.find("alias_of"); it != c.end()) e.alias_of = string_of(*it, where, "alias_of");
  e.groups = groups_of(c, where);
  if (e.groups.empty()) e.groups = fam->groups;
  if (auto it = c.find("unit"); it != c.end()) {
    e.unit = string_of(*it, where, "unit");
    if (e.unit != "count" && e.unit != "bytes" && e.unit != "bits" && e.unit != "us")
      throw KbError{where + ": unit must be count, bytes, bits or us"};
  }
  if (auto it = c.find("scale"); it != c.end()) {
    if (!it->is_number_unsigned() || it->get<uint64_t>() == 0)
      throw KbError{where + ": \"scale\" must be a positive integer"};
    e.scale = it->get<uint64_t>();
  }
  width_of(c, where, e.width_bits, e.wraps);
  if (e.width_bits && !c.contains("overflow")) e.wraps = false;
  if (auto it = c.find("rule"); it != c.end()) {
    auto r = parse_counter_rule(string_of(*it, where, "rule"));
    if (!r || *r == CounterRule::kUnknown)
      throw KbError{where + ": unknown rule \"" + it->get<std::string>() + "\""};
    e.rule = *r;
  } else if (e.alias_of.empty()) {
    throw KbError{where + ": missing \"rule\" (only an alias may inherit it)"};
  }
  e.meaning = string_of(member(c, "meaning", where), where, "meaning");
  if (e.meaning.empty()) throw KbError{where + ": empty meaning"};
  e.source = c.contains("source") ? string_of(c["source"], where, "source") : fam->source;
  e.is_pattern = e.name.find('#') != std::string::npos;
  return e;
}

}  // namespace

// Declared in counter_classes.h; defined here, next to the pattern index it keys, so that the
// build's generator (probes/counters/data/generate_counter_kb.cpp) links this file alone.
std::string normalize_counter_name(std::string_view name) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };  // what isdigit() takes, any locale
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size();) {
    size_t run = i;  // the text up to the next digit, copied at once
    while (run < name.size() && !digit(name[run])) ++run;
    out.append(name, i, run - i);
    if (run == name.size()) break;
    out.push_back('#');
    while (run < name.size() && digit(name[run])) ++run;
    i = run;
  }
  return out;
}

bool driver_matches(const std::vector<std::string>& prefixes, std::string_view driver) {
  if (prefixes.empty()) return true;
  for (const auto& p : prefixes)
    if (starts_with(driver, p)) return true;
  return false;
}

void CounterKnowledgeBase::build_index() {
  exact_.clear();
  pattern_.clear();
  for (size_t i = 0; i < entries_.size(); ++i)
    (entries_[i].is_pattern ? pattern_ : exact_)[entries_[i].name].push_back(i);
}

bool CounterKnowledgeBase::applies(const CounterKbEntry& e, CounterGroup group) const {
  if (e.groups.empty()) return true;
  for (auto g : e.groups)
    if (g == group) return true;
  return false;
}

const CounterKbEntry* CounterKnowledgeBase::find(CounterGroup group, std::string_view name) const {
  if (auto it = exact_.find(name); it != exact_.end())
    for (size_t i : it->second)
      if (applies(entries_[i], group)) return &entries_[i];
  bool has_digit = false;
  for (char c : name) has_digit = has_digit || std::isdigit(static_cast<unsigned char>(c));
  if (!has_digit) return nullptr;
  if (auto it = pattern_.find(normalize_counter_name(name)); it != pattern_.end())
    for (size_t i : it->second)
      if (applies(entries_[i], group)) return &entries_[i];
  return nullptr;
}

const CounterKbEntry& CounterKnowledgeBase::resolve(CounterGroup group, const CounterKbEntry& e) const {
  if (e.alias_of.empty()) return e;
  if (const auto* t = find(group, e.alias_of)) return *t;
  if (auto it = exact_.find(e.alias_of); it != exact_.end()) return entries_[it->second.front()];
  return e;
}

const CounterKbFamily* CounterKnowledgeBase::family(std::string_view name) const {
  for (const auto& f : families_)
    if (f.family == name) return &f;
  return nullptr;
}

const CounterKbFamily* CounterKnowledgeBase::width_family_for(CounterGroup group,
                                                              std::string_view driver) const {
  for (const auto& f : families_) {
    if (!f.width_bits || f.drivers.empty() || !driver_matches(f.drivers, driver)) continue;
    bool group_ok = f.groups.empty();
    for (auto g : f.groups) group_ok = group_ok || g == group;
    if (group_ok) return &f;
  }
  return nullptr;
}

Result<CounterKnowledgeBase> parse_counter_kb(std::string_view json_text, const std::string& source) {
  CounterKnowledgeBase kb;
  try {
    json doc = json::parse(json_text);
    check_keys(doc, {"schema", "about", "rules", "families", "counters"}, "document");
    if (doc.value("schema", std::string()) != "fabdiag.counter_kb/1")
      throw KbError{"document: schema must be \"fabdiag.counter_kb/1\""};
    if (auto it = doc.find("rules"); it != doc.end()) {
      if (!it->is_object()) throw KbError{"rules: must be an object"};
      for (auto r = it->begin(); r != it->end(); ++r) {
        auto parsed = parse_counter_rule(r.key());
        if (!parsed || *parsed == CounterRule::kUnknown)
          throw KbError{"rules: unknown rule \"" + r.key() + "\""};
        kb.rules_.emplace_back(r.key(), string_of(r.value(), "rules", "rules"));
      }
    }
    const json& fams = member(doc, "families", "document");
    if (!fams.is_array()) throw KbError{"families: must be an array"};
    for (size_t i = 0; i < fams.size(); ++i) kb.families_.push_back(parse_family(fams[i], i));
    const json& counters = member(doc, "counters", "document");
    if (!counters.is_array()) throw KbError{"counters: must be an array"};
    std::set<std::pair<std::string, std::string>> seen;
    for (size_t i = 0; i < counters.size(); ++i) {
      CounterKbEntry e = parse_entry(counters[i], i, kb.families_);
      if (!seen.insert({e.family, e.name}).second)
        throw KbError{"counters[" + std::to_string(i) + "] (" + e.name + "): duplicate in family " +
                      e.family};
      kb.entries_.push_back(std::move(e));
    }
    kb.build_index();
    // Aliases must point at an entry, and inherit what they do not state.
    for (size_t i = 0; i < kb.entries_.size(); ++i) {
      CounterKbEntry& e = kb.entries_[i];
      if (e.alias_of.empty()) continue;
      auto it = kb.exact_.find(e.alias_of);
      if (it == kb.exact_.end())
        throw KbError{"counters[" + std::to_string(i) + "] (" + e.name + "): alias_of \"" +
                      e.alias_of + "\" names no entry"};
      const CounterKbEntry& t = kb.entries_[it->second.front()];
      const json& raw = counters[i];
      if (!raw.contains("rule")) e.rule = t.rule;
      if (!raw.contains("unit")) e.unit = t.unit;
      if (!raw.contains("scale")) e.scale = t.scale;
      if (!raw.contains("width_bits")) {
        e.width_bits = t.width_bits;
        e.wraps = t.wraps;
      }
    }
  } catch (const KbError& e) {
    return make_error(ErrorCode::kParse, "counter knowledge base: " + e.message, source);
  } catch (const json::exception& e) {
    return make_error(ErrorCode::kParse, std::string("counter knowledge base is not valid JSON: ") + e.what(),
                      source);
  }
  return kb;
}

}  // namespace fabdiag
