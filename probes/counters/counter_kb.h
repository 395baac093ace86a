// The counter knowledge base: what every known NIC/RDMA counter name means, as DATA
// (probes/counters/data/counters.json). The build parses the file with parse_counter_kb() and
// compiles the result into the binary as constant rows (counter_kb_rows.h); counter_kb() builds
// the base from them on first use. counter_classes.h answers questions about one name from it;
// this header exposes the base itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/result.h"
#include "probes/counters/counter_model.h"

namespace fabdiag {

struct CounterKbRows;

/// A family of counter names: a driver or a standard (ib_pma, mlx5, bnxt_re, irdma, mlx5e,
/// bnxt_en, ice, i40e, netdev, ibta, ethtool_std, syslog).
struct CounterKbFamily {
  std::string family;
  std::vector<CounterGroup> groups;  ///< Its names apply only to these groups; empty = any group.
  /// Kernel drivers (prefixes: "mlx5" matches mlx5_core and an ibdev name mlx5_0) whose
  /// hardware has the widths given here and in the entries; empty = any driver.
  std::vector<std::string> drivers;
  std::optional<unsigned> width_bits;  ///< Default hardware width of the family's counters.
  bool wraps = false;                  ///< Default overflow: wraps (true) or saturates.
  std::string source;                  ///< Where the names and meanings come from.
};

/// One entry of the knowledge base: a counter name or a pattern ('#' = a run of digits).
struct CounterKbEntry {
  std::string name;
  std::string family;
  CounterCategory category = CounterCategory::kOther;
  std::string alias_of;              ///< Meaning-level name this one is another spelling of; "" = none.
  std::vector<CounterGroup> groups;  ///< Applies only to these groups; empty = any (after the family's).
  std::string unit = "count";        ///< "count", "bytes", "bits" or "us"; inherited by aliases.
  uint64_t scale = 1;                ///< value = raw x scale (4 for IB data counters: 4-octet words).
  std::optional<unsigned> width_bits;  ///< Hardware width; 0 = 32 or 64 by the port's PMA capability.
  bool wraps = false;                ///< With width_bits: wraps (true) or saturates.
  CounterRule rule = CounterRule::kInfo;
  std::string meaning;               ///< One sentence.
  std::string source;                ///< The entry's own, else its family's.
  bool is_pattern = false;           ///< The name holds '#'.
};

/// The parsed knowledge base with name indexes.
class CounterKnowledgeBase {
 public:
  /// The entry for `name` read from `group`: exact names first, then the name with every run of
  /// digits replaced by '#'; among several, the first (file order) whose groups apply. Aliases
  /// come back as themselves (see resolve()). nullptr when the name is not known.
  const CounterKbEntry* find(CounterGroup group, std::string_view name) const;
  /// The entry an alias points at (alias_of looked up in the same group, then any group), or
  /// `e` itself when it is no alias or the target is missing.
  const CounterKbEntry& resolve(CounterGroup group, const CounterKbEntry& e) const;
  /// The family named `name`, or nullptr.
  const CounterKbFamily* family(std::string_view name) const;
  /// The first family with a default width whose drivers match `driver` and whose groups
  /// include `group` (the width of a counter the base does not know, e.g. a new mlx5 Q
  /// counter), or nullptr.
  const CounterKbFamily* width_family_for(CounterGroup group, std::string_view driver) const;

  const std::vector<CounterKbEntry>& entries() const { return entries_; }
  const std::vector<CounterKbFamily>& families() const { return families_; }
  /// Descriptions of the rule names ("any_growth" -> "any increase in a window ...").
  const std::vector<std::pair<std::string, std::string>>& rule_descriptions() const { return rules_; }

 private:
  friend Result<CounterKnowledgeBase> parse_counter_kb(std::string_view, const std::string&);
  friend CounterKnowledgeBase counter_kb_from_rows(const CounterKbRows&);
  void build_index();
  bool applies(const CounterKbEntry& e, CounterGroup group) const;

  std::vector<CounterKbEntry> entries_;
  std::vector<CounterKbFamily> families_;
  std::vector<std::pair<std::string, std::string>> rules_;
  // Lookups by string_view without a temporary string (C++20 heterogeneous lookup).
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using Index = std::unordered_map<std::string, std::vector<size_t>, Hash, std::equal_to<>>;
  Index exact_;    // name -> entries
  Index pattern_;  // '#'-pattern -> entries
};

/// True when `driver` (a kernel driver such as "mlx5_core", or an ibdev name such as "mlx5_0")
/// starts with one of `prefixes`, or `prefixes` is empty.
bool driver_matches(const std::vector<std::string>& prefixes, std::string_view driver);

/// Parses a knowledge base document (the format of probes/counters/data/counters.json: {schema
/// "fabdiag.counter_kb/1", about, rules{}, families[], counters[]}). Strict: an unknown key,
/// category, rule, group, family or overflow, a missing name/family/category/meaning, a
/// duplicate (family, name) or an alias_of naming no entry is an error.
/// Errors: kParse naming `source` and the entry ("counters[12] (rx_prio#_pause): ...").
Result<CounterKnowledgeBase> parse_counter_kb(std::string_view json_text, const std::string& source);

/// The base compiled into the binary (probes/counters/data/counters.json, parsed by the build),
/// built from its rows on first use (thread-safe) and kept for the life of the process.
const CounterKnowledgeBase& counter_kb();
/// Why the built-in base could not be loaded; always nullptr: a counters.json that does not parse
/// fails the build (probes/counters/data/generate_counter_kb.cpp) instead.
const Error* counter_kb_error();
/// The embedded text of probes/counters/data/counters.json (the source of the built-in rows).
std::string_view embedded_counter_kb_json();

}  // namespace fabdiag
