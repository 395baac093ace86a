// The result envelope: every run produces one JSON document of this shape.
//   {schema: "fabdiag.<kind>/<n>", tool_version, hosts, started_at, duration_s, params, data,
//    findings[], errors[]}
// `errors[]` lists what could not be read (the partial-result gaps); the rest survives. A run cut
// before its end (Ctrl-C, a deadline, a failed step) also carries `partial: true` and `cut`.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/finding.h"
#include "core/result.h"

namespace fabdiag {

/// Where a run was cut before its end: JSON `cut` {reason, during, not_run}.
struct Cut {
  std::string reason;   ///< "interrupted by SIGINT", "deadline of 600 s (--timeout) passed", a failure.
  std::string during;   ///< The step that was running: "pair round 3 of 5"; empty between steps.
  std::string not_run;  ///< What never started: "sizes 1M..64M of all_reduce"; empty when nothing.
};

/// A run's result as written to stdout/--output and stored by `baseline save`.
struct Envelope {
  std::string schema;              ///< "fabdiag.topo/1", "fabdiag.counters/1", ...
  std::string tool_version;        ///< FABDIAG_VERSION.
  std::vector<std::string> hosts;  ///< Host names the data comes from.
  std::string started_at;          ///< UTC, ISO 8601 with 'Z'.
  double duration_s = 0;           ///< Wall time of the run, seconds.
  nlohmann::json params = nlohmann::json::object();  ///< Effective parameters.
  nlohmann::json data = nlohmann::json::object();    ///< Command-specific payload.
  std::vector<Finding> findings;
  std::vector<Error> errors;       ///< Gaps: what could not be read; the result is partial.
  /// Set when the run stopped before its end: `data` holds the steps that finished, `cut` says
  /// why and what did not run (and errors[] has the same as one entry, see core/run_cut.h).
  /// JSON: "partial": true and "cut", both absent for a whole run.
  bool partial = false;
  Cut cut;
};

/// New envelope with schema, tool version, this host's name and started_at = now.
Envelope make_envelope(const std::string& schema);

/// Sets duration_s from `started` to now.
void finish_envelope(Envelope& env, std::chrono::steady_clock::time_point started);

void to_json(nlohmann::json& j, const Envelope& e);
/// The JSON of `e` with "data": null in data's place: for writers that serialise e.data where
/// it stands instead of copying it (report/render.cpp).
nlohmann::json envelope_json_without_data(const Envelope& e);
/// Errors: kParse when required keys (schema, data) are missing or of the wrong type.
Result<Envelope> envelope_from_json(const nlohmann::json& j);

void to_json(nlohmann::json& j, const Error& e);

/// Current UTC time as "2026-11-30T08:00:00Z".
std::string utc_now_iso8601();
/// gethostname(), or "localhost" when it fails.
std::string local_hostname();

}  // namespace fabdiag
