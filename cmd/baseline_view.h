// What `fabdiag baseline` prints: the baseline listing fields, the diff's comparison fields and
// tables, the fleet build's outliers (cmd/baseline.cpp builds the envelopes).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "baseline/diff.h"
#include "baseline/fleet.h"
#include "baseline/store.h"
#include "report/document.h"

namespace fabdiag::cmd {

/// JSON of one listed baseline (fabdiag.baseline_show/1 baselines[]), plus history_runs when
/// `history_runs` is set (>= 0).
nlohmann::json baseline_info_json(const baseline::BaselineInfo& i, long history_runs = -1);

/// Field lines of one baseline ("name", "file", "schema", ...).
std::vector<std::pair<std::string, std::string>> baseline_info_fields(const baseline::BaselineInfo& i);

/// The table of `baseline show` without NAME: one row per baseline.
Table baseline_listing_table(const std::vector<baseline::BaselineInfo>& baselines);

/// The "comparison" section of a diff: files, rule, reference and counts. `current_*` describe
/// the current file.
Section diff_comparison_section(const baseline::BaselineDiff& d, const baseline::BaselineInfo& bi,
                                const std::string& current_file, const std::string& current_schema,
                                const std::string& current_started);

/// The collective and pair tables of a diff, one section each (empty ones left out).
std::vector<Section> diff_table_sections(const baseline::BaselineDiff& d);

/// The outliers a fleet build left out, as a table section (none: a line saying so).
Section fleet_outlier_section(const baseline::FleetBaseline& fb);

}  // namespace fabdiag::cmd
