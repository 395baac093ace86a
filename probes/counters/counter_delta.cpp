#include "probes/counters/counter_delta.h"

#include <limits>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

namespace fabdiag {
namespace {

using Key = std::tuple<std::string, CounterGroup, std::string>;

Key key_of(const Counter& c) { return {c.device, c.group, c.name}; }

uint64_t scaled(uint64_t raw, uint64_t scale) {
  if (scale > 1 && raw > std::numeric_limits<uint64_t>::max() / scale)
    return std::numeric_limits<uint64_t>::max();
  return raw * scale;
}

// A decrease read as one wrap of a `width_bits` counter: plausible only for a counter that
// wraps, narrower than 64 bits (a 64-bit counter never wraps within any window), whose implied
// delta (2^w - before + after) is at most half its range, i.e. it was near the top and is now
// near the bottom (serial-number arithmetic, RFC 1982 section 3.2). Anything else went down
// because it was reset (driver reload, `perfquery -R`, a port re-created): nullopt.
std::optional<uint64_t> wrap_delta(uint64_t before_raw, const Counter& after) {
  if (!after.wraps || after.width_bits == 0 || after.width_bits >= 64) return std::nullopt;
  const uint64_t modulus = uint64_t{1} << after.width_bits;
  if (before_raw >= modulus || after.raw >= modulus) return std::nullopt;
  const uint64_t implied = after.raw + (modulus - before_raw);
  if (implied > modulus / 2) return std::nullopt;
  return implied;
}

CounterChange change_of(const Counter& old_c, const Counter& new_c, double window_s) {
  CounterChange ch;
  ch.counter = new_c;
  if (old_c.saturated) {
    ch.status = DeltaStatus::kSaturated;  // it may have counted any number of events
    ch.at_least = true;
  } else if (new_c.raw >= old_c.raw) {
    ch.delta = scaled(new_c.raw - old_c.raw, new_c.scale);
    ch.status = new_c.saturated ? DeltaStatus::kSaturated : DeltaStatus::kOk;
    ch.at_least = new_c.saturated;
  } else if (auto wrapped = wrap_delta(old_c.raw, new_c)) {
    ch.delta = scaled(*wrapped, new_c.scale);
    ch.status = DeltaStatus::kWrapped;
  } else {
    ch.status = DeltaStatus::kReset;
  }
  if (ch.delta && window_s > 0) ch.rate_per_s = static_cast<double>(*ch.delta) / window_s;
  return ch;
}

}  // namespace

const char* to_string(DeltaStatus s) {
  switch (s) {
    case DeltaStatus::kSnapshot: return "snapshot";
    case DeltaStatus::kOk: return "ok";
    case DeltaStatus::kWrapped: return "wrapped";
    case DeltaStatus::kSaturated: return "saturated";
    case DeltaStatus::kAppeared: return "appeared";
    case DeltaStatus::kVanished: return "vanished";
    case DeltaStatus::kReset: return "reset";
    case DeltaStatus::kMissing: return "missing";
  }
  return "ok";
}

SnapshotDelta compute_delta(const Snapshot& before, const Snapshot& after, double window_s) {
  SnapshotDelta d;
  d.window_s = window_s;
  std::map<Key, const Counter*> old_by_key;
  for (const auto& c : before.samples) old_by_key.emplace(key_of(c), &c);
  std::set<Key> seen;
  for (const auto& c : after.samples) {
    Key k = key_of(c);
    seen.insert(k);
    auto it = old_by_key.find(k);
    if (it == old_by_key.end()) {
      CounterChange ch;
      ch.counter = c;
      ch.status = DeltaStatus::kAppeared;
      ch.at_least = c.saturated;
      d.changes.push_back(ch);
      continue;
    }
    d.changes.push_back(change_of(*it->second, c, window_s));
  }
  for (const auto& c : before.samples) {
    if (seen.count(key_of(c))) continue;
    CounterChange ch;
    ch.counter = c;
    ch.status = after.truncated ? DeltaStatus::kMissing : DeltaStatus::kVanished;
    d.changes.push_back(ch);
  }
  return d;
}

std::vector<CounterChange> snapshot_readings(const Snapshot& snap) {
  std::vector<CounterChange> out;
  out.reserve(snap.samples.size());
  for (const auto& c : snap.samples) out.push_back(CounterChange{c, std::nullopt, std::nullopt, c.saturated});
  return out;
}

std::vector<CounterChange> snapshot_readings(Snapshot&& snap) {
  std::vector<CounterChange> out;
  out.reserve(snap.samples.size());
  for (auto& c : snap.samples) {
    const bool at_least = c.saturated;
    out.push_back(CounterChange{std::move(c), std::nullopt, std::nullopt, at_least});  // status kSnapshot
  }
  snap.samples.clear();
  return out;
}

bool is_interesting(const CounterChange& c) {
  switch (c.status) {
    case DeltaStatus::kSnapshot: return c.counter.value > 0 || c.counter.saturated;
    case DeltaStatus::kOk: return c.delta && *c.delta > 0;
    default: return true;
  }
}

void to_json(nlohmann::json& j, const CounterChange& c) {
  const Counter& k = c.counter;
  j = nlohmann::json::object();
  j["device"] = k.device;
  j["group"] = to_string(k.group);
  j["name"] = k.name;
  if (k.canonical != k.name) j["canonical"] = k.canonical;
  j["category"] = to_string(k.category);
  j["rule"] = to_string(k.rule);
  j["unit"] = k.unit;
  if (c.status == DeltaStatus::kMissing) {  // unknown now: never print the old value as current
    j["value"] = nullptr;
    j["last_seen_value"] = k.value;
  } else {
    j["value"] = k.value;
  }
  j["delta"] = c.delta ? nlohmann::json(*c.delta) : nlohmann::json(nullptr);
  j["rate_per_s"] = c.rate_per_s ? nlohmann::json(*c.rate_per_s) : nlohmann::json(nullptr);
  j["at_least"] = c.at_least;
  j["status"] = to_string(c.status);
  j["width_bits"] = k.width_bits;
  j["source"] = k.source;
}

void write_json(JsonWriter& w, const CounterChange& c) {
  const Counter& k = c.counter;
  w.begin_object();  // keys in byte order, as nlohmann's std::map holds them
  w.key_literal("at_least");
  w.boolean(c.at_least);
  if (k.canonical != k.name) {
    w.key_literal("canonical");
    w.string(k.canonical);
  }
  w.key_literal("category");
  w.plain_string(to_string(k.category));
  w.key_literal("delta");
  if (c.delta)
    w.unsigned_number(*c.delta);
  else
    w.null();
  w.key_literal("device");
  w.string(k.device);
  w.key_literal("group");
  w.plain_string(to_string(k.group));
  const bool missing = c.status == DeltaStatus::kMissing;  // unknown now: the old value apart
  if (missing) {
    w.key_literal("last_seen_value");
    w.unsigned_number(k.value);
  }
  w.key_literal("name");
  w.string(k.name);
  w.key_literal("rate_per_s");
  if (c.rate_per_s)
    w.float_number(*c.rate_per_s);
  else
    w.null();
  w.key_literal("rule");
  w.plain_string(to_string(k.rule));
  w.key_literal("source");
  w.string(k.source);
  w.key_literal("status");
  w.plain_string(to_string(c.status));
  w.key_literal("unit");
  w.string(k.unit);
  w.key_literal("value");
  if (missing)
    w.null();
  else
    w.unsigned_number(k.value);
  w.key_literal("width_bits");
  w.unsigned_number(k.width_bits);
  w.end_object();
}

}  // namespace fabdiag
