// JSON round trip of a counter Snapshot, so a node's snapshot can travel to rank 0 (triage
// gathers every node's counters over MPI) and be judged there with the same delta and rules.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "core/result.h"
#include "probes/counters/counter_model.h"

namespace fabdiag {

/// {taken_at, monotonic_s, ports[], samples[{device, group, name, canonical, category, rule,
/// unit, raw, scale, value, width_bits, wraps, saturated, source}], gaps[{code, message,
/// source}]}. The knowledge-base facts travel with each sample (rank 0 does not look them up
/// again), so the interpretation there judges exactly what the node read.
nlohmann::json snapshot_to_json(const Snapshot& s);

/// Inverse of snapshot_to_json. Errors: kParse naming the first bad member.
Result<Snapshot> snapshot_from_json(const nlohmann::json& j);

}  // namespace fabdiag
