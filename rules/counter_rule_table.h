// The counter rule table (rules/counter_rules.h applies it): one row per symptom of a counter
// set, with the severity on growth, the escalations, the one-snapshot threshold and the source
// of each threshold (docs/thresholds.md). Data only.
#pragma once

#include <cstdint>
#include <span>

#include "core/finding.h"

namespace fabdiag {

/// One counter rule (named fields; an omitted field keeps its default).
struct CounterRuleRow {
  const char* counters = "";   ///< Space-separated canonical names ('#' = a run of digits).
  const char* code = "";       ///< The finding code.
  Layer layer = Layer::kTransport;
  Severity on_growth = Severity::kInfo;  ///< delta > 0 in a window.
  uint64_t escalate_delta_at = 0;        ///< delta >= this -> `escalated` (0 = never).
  double escalate_per_hour = 0;          ///< rate >= this with delta >= 2 -> `escalated` (0 = never).
  Severity escalated = Severity::kInfo;  ///< Used only with one of the two escalations.
  uint64_t cumulative_at = 0;            ///< One snapshot: value >= this -> cumulative_severity (0 = no rule).
  Severity cumulative_severity = Severity::kInfo;
  const char* what = "";       ///< Start of the finding's message.
  const char* action = "";
  const char* basis = "";      ///< Where the threshold comes from (evidence threshold_text).
};

/// THE rule table, in the order of the findings for one device.
std::span<const CounterRuleRow> counter_rule_rows();

}  // namespace fabdiag
