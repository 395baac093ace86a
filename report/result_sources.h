// The readers of each schema's data into the report model (report/result_sources.cpp), and
// the JSON accessors they share; report/result_model.cpp calls them. Every reader tolerates
// missing or null members (fewer verdicts); a member of the wrong type (`hosts` a string, not a
// list) throws MalformedMember, which costs that document's verdicts: the report names the file
// and the key in errors[] (a gap, exit 4), never renders it as if it were empty.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/result_model.h"

namespace fabdiag::report_detail {

/// A member of a result document that is there with the wrong JSON type; what() is
/// "KEY: expected WHAT, got TYPE".
struct MalformedMember : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// j[key] as a number; nullopt when absent, null or not finite. Another type throws MalformedMember.
std::optional<double> number_at(const nlohmann::json& j, const char* key);
/// j[key] as a string; "" when absent or null. Another type throws MalformedMember.
std::string string_at(const nlohmann::json& j, const char* key);
/// j[key] when it is an array; an empty array when absent or null. Another type throws MalformedMember.
const nlohmann::json& array_at(const nlohmann::json& j, const char* key);
/// Strings of an array member (array_at; null items skipped, an item of another type throws MalformedMember).
std::vector<std::string> strings_at(const nlohmann::json& j, const char* key);
/// The evidence[] member as Evidence (items that are not objects skipped).
std::vector<Evidence> evidence_at(const nlohmann::json& j, const char* key);
/// "a<->b".
std::string link_name(const std::string& a, const std::string& b);
/// (measured / expected - 1) x 100 when both are known and expected is not 0, signed so that a
/// failure is never a positive margin: a failed check whose measured value is above its limit is
/// an "at most" check (6 link downs against 1 allowed: -500 %).
std::optional<double> margin_of(const std::optional<double>& measured, const std::optional<double>& expected,
                                Outcome status);

/// fabdiag.accept/1: data.nodes[] and data.checks[] as they are.
void read_accept(ReportModel& m, size_t src, const nlohmann::json& data);
/// fabdiag.pairwise/1: a node per host, a link per measured pair, the heatmap, the chains of
/// the outliers.
void read_pairwise(ReportModel& m, size_t src, const nlohmann::json& data);
/// fabdiag.triage/1 (live walk or --from files): suspects, cleared, the screen's heatmap and
/// links, the sweeps' curves.
void read_triage(ReportModel& m, size_t src, const nlohmann::json& data);
/// fabdiag.bench/1 (one sweep or tables[]): curves and a wrong-elements check per table.
void read_bench(ReportModel& m, size_t src, const nlohmann::json& data, const std::string& label);
/// fabdiag.baseline_diff/1: a check per row, the current curve and the baseline band, the
/// suspect hosts.
void read_baseline_diff(ReportModel& m, size_t src, const nlohmann::json& data, const std::string& label);

}  // namespace fabdiag::report_detail
