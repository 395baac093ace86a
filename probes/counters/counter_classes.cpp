#include "probes/counters/counter_classes.h"

#include <cctype>
#include <string>
#include <unordered_map>

#include "core/text.h"
#include "probes/counters/counter_kb.h"

namespace fabdiag {
namespace {

using C = CounterCategory;

std::string lower(std::string_view s) {
  std::string o(s);
  for (auto& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return o;
}

bool has(const std::string& s, const char* word) { return s.find(word) != std::string::npos; }

// Keyword guess for names the knowledge base does not know (new firmware groups, other
// drivers): a hint for a person, never a judgement.
CounterCategory guess_category(std::string_view name) {
  std::string n = lower(name);
  if (has(n, "pause") || has(n, "pfc") || has(n, "xon") || has(n, "xoff")) return C::kPause;
  if (has(n, "ecn") || has(n, "_ce_") || has(n, "marked")) return C::kEcn;
  if (has(n, "cnp")) return C::kCnp;
  if (has(n, "crc") || has(n, "fcs") || has(n, "symbol") || has(n, "fec_") ||
      has(n, "corrected")) return C::kPhyError;
  if (has(n, "discard") || has(n, "drop") || has(n, "out_of_buffer") || has(n, "missed"))
    return C::kDiscard;
  if (has(n, "retrans") || has(n, "timeout") || has(n, "seq_err") || has(n, "retr") ||
      has(n, "nak")) return C::kRetransmit;
  if (has(n, "link_down") || has(n, "carrier") || has(n, "flap")) return C::kLink;
  if (has(n, "bytes") || has(n, "packets") || has(n, "pkts") || has(n, "octets") ||
      has(n, "octs")) return C::kTraffic;
  return C::kOther;
}

}  // namespace

namespace {

CounterClass class_of(const CounterKbEntry* e, std::string_view name) {
  CounterClass c;
  if (e) {
    c.category = e->category;
    c.guess = e->category;
    c.canonical = e->alias_of.empty() ? std::string(name) : e->alias_of;
    c.meaning = e->meaning;
    c.family = e->family;
    c.rule = e->rule;
    c.source = e->source;
    c.known = true;
    return c;
  }
  c.guess = guess_category(name);
  c.canonical = std::string(name);
  return c;
}

CounterWidth width_of(const CounterKbEntry* e, CounterGroup group, std::string_view driver) {
  const CounterKnowledgeBase& kb = counter_kb();
  if (e) {
    const CounterKbFamily* fam = kb.family(e->family);
    std::optional<unsigned> bits = e->width_bits;
    bool wraps = e->wraps;
    if (!bits && fam && fam->width_bits) {
      bits = fam->width_bits;
      wraps = fam->wraps;
    }
    if (!bits) return CounterWidth{64, false};
    // A family's widths describe its own hardware (mlx5 Q counters); other drivers that use
    // the same names (bnxt_re after the 2025 rename) count in 64 bits.
    if (fam && !driver_matches(fam->drivers, driver)) return CounterWidth{64, false};
    return CounterWidth{*bits, wraps};
  }
  if (const CounterKbFamily* fam = kb.width_family_for(group, driver))
    return CounterWidth{*fam->width_bits, fam->wraps};
  return CounterWidth{64, false};
}

std::string unit_of(const CounterKbEntry* e, std::string_view name) {
  if (e) return e->unit;
  std::string n = lower(name);
  if (has(n, "duration")) return "us";
  if (has(n, "_err_lane_") || ends_with(n, "_bits") || has(n, "_bits_") || n == "rx_bits")
    return "bits";
  if (has(n, "bytes") || has(n, "octets") || has(n, "octs")) return "bytes";
  return "count";
}

}  // namespace

CounterClass classify_counter(CounterGroup group, std::string_view name) {
  return class_of(counter_kb().find(group, name), name);
}

CounterWidth counter_width(CounterGroup group, std::string_view driver, std::string_view name) {
  return width_of(counter_kb().find(group, name), group, driver);
}

std::string counter_unit(CounterGroup group, std::string_view name) {
  return unit_of(counter_kb().find(group, name), name);
}

namespace {

CounterFacts look_up_facts(CounterGroup group, std::string_view driver, std::string_view name) {
  const CounterKbEntry* e = counter_kb().find(group, name);
  CounterFacts f;
  if (e) {
    f.category = e->category;
    f.rule = e->rule;
    f.canonical = e->alias_of.empty() ? std::string(name) : e->alias_of;
  } else {
    f.canonical = std::string(name);
  }
  f.unit = unit_of(e, name);
  f.scale = e ? e->scale : 1;
  f.width = width_of(e, group, driver);
  return f;
}

}  // namespace

// Memoised per (group, driver, name): the NICs of a node share their names (8 x 840 counters,
// 840 distinct), and a knowledge-base lookup (pattern normalisation, alias, family width) costs
// more than a hash lookup. Per thread; bounded (cleared past 64k distinct names).
CounterFacts counter_facts(CounterGroup group, std::string_view driver, std::string_view name) {
  thread_local std::unordered_map<std::string, CounterFacts> memo;
  thread_local std::string key;
  key.assign(1, static_cast<char>('0' + static_cast<int>(group)));
  key.append(driver);
  key.push_back('\0');
  key.append(name);
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  if (memo.size() >= 65536) memo.clear();
  return memo.emplace(key, look_up_facts(group, driver, name)).first->second;
}

bool counter_known(CounterGroup group, std::string_view name) {
  return counter_kb().find(group, name) != nullptr;
}

uint64_t counter_scale(CounterGroup group, std::string_view name) {
  if (const CounterKbEntry* e = counter_kb().find(group, name)) return e->scale;
  return 1;
}

std::vector<CounterKnowledgeRow> counter_knowledge_table() {
  std::vector<CounterKnowledgeRow> out;
  for (const auto& e : counter_kb().entries())
    out.push_back({e.name, e.family, e.category, e.alias_of, e.meaning, e.rule});
  return out;
}

}  // namespace fabdiag
