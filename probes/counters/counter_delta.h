// Deltas and rates between two counter snapshots, with the overflow rules of each counter:
// 32-bit wrap (mlx5 Q counters), saturation (IBTA PortCounters), counters that appeared or
// vanished between the snapshots (reported as such, never as zero) and counter resets.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/json_writer.h"
#include "probes/counters/counter_model.h"

namespace fabdiag {

/// How a counter's delta was obtained.
enum class DeltaStatus {
  kSnapshot,   ///< Single snapshot: no delta (cumulative value only).
  kOk,         ///< after - before.
  kWrapped,    ///< A wrapping counter went down by a plausible wrap: delta = (after - before) mod 2^width.
  kSaturated,  ///< The counter is saturated: delta is "at least" (after saturated) or unknown (before saturated).
  kAppeared,   ///< Only in the second snapshot: no delta.
  kVanished,   ///< Only in the first snapshot: no delta; value is the last one seen.
  kReset,      ///< Went down and no wrap is plausible (driver reload, perfquery -R): delta unknown.
  kMissing,    ///< Absent from a truncated second snapshot (Snapshot::truncated): unknown, not zero.
};

/// "snapshot", "ok", "wrapped", "saturated", "appeared", "vanished", "reset", "missing".
const char* to_string(DeltaStatus s);

/// One counter across a window (or one reading of a single snapshot).
struct CounterChange {
  Counter counter;                  ///< The later sample (the earlier one for kVanished).
  std::optional<uint64_t> delta;    ///< In counter.unit; nullopt when unknown (see status).
  std::optional<double> rate_per_s; ///< delta / window_s; nullopt without a delta or window.
  bool at_least = false;            ///< delta (or, for a single snapshot, value) is a lower bound.
  DeltaStatus status = DeltaStatus::kSnapshot;
};

/// The changes of all counters between two snapshots.
struct SnapshotDelta {
  double window_s = 0;  ///< Seconds between the snapshots.
  std::vector<CounterChange> changes;  ///< Order of `after`, then vanished counters.
};

/// Deltas from `before` to `after` over `window_s` seconds (> 0; rates are omitted when it is
/// not). Counters are matched by (device, group, name). Wrap: a wrapping counter of width w < 64
/// whose value went down gives (after + 2^w - before) (raw units, then scaled) when that is at
/// most 2^(w-1), i.e. it went from near the top to near the bottom; any other decrease (a
/// hw_counter from 500 to 0, any 64-bit counter) is kReset with no delta. More than one wrap
/// per window cannot be seen, so poll faster than 2^(w-1) events. Saturation: after saturated
/// -> delta = after - before, at_least; before saturated -> delta unknown, at_least. A counter
/// only in `before` is kVanished, or kMissing when `after` is truncated (a cut capture).
/// `window_s` <= 0 means the time between the snapshots is unknown: deltas, but no rates.
SnapshotDelta compute_delta(const Snapshot& before, const Snapshot& after, double window_s);

/// The readings of a single snapshot as changes (status kSnapshot, no delta, no rate;
/// at_least = saturated).
std::vector<CounterChange> snapshot_readings(const Snapshot& snap);
/// The same, moving the samples out of `snap` (its samples are left empty): no string copies.
std::vector<CounterChange> snapshot_readings(Snapshot&& snap);

/// True when the counter moved or its movement is unknown: delta > 0, or status other than
/// kOk/kSnapshot. For a single snapshot: value > 0 or saturated.
bool is_interesting(const CounterChange& c);

/// JSON: {device, group, name, canonical, category, rule, unit, value, delta, rate_per_s,
/// at_least, status, width_bits, source}; delta and rate_per_s are null when unknown; for
/// status "missing" value is null and last_seen_value holds the earlier reading.
void to_json(nlohmann::json& j, const CounterChange& c);

/// The same object as to_json(CounterChange) written straight to `w` (one value, members in
/// nlohmann's sorted order): the same bytes as w.tree() of to_json's tree, without the tree.
void write_json(JsonWriter& w, const CounterChange& c);

}  // namespace fabdiag
