// Findings of a baseline diff rolled up to their cause (docs/localization.md#baselines-with-history):
//   node        when at least kNodeShare (3/4) of the compared pairs touching one host, and at
//               least kMinNodePairs of them, regressed (or drifted, or improved), that is one
//               finding about the host (`node_bandwidth_regression`, `_drift`, `_improvement`,
//               L2) with each pair's ratio as evidence; those pairs get no finding of their own.
//   link        a pair that changed and is claimed by no node: `pair_bandwidth_regression`
//               (`_drift`, `_improvement`), L2.
//   collective  every size of one collective that changed: one `busbw_regression` (`_drift`,
//               `_improvement`) finding per collective, L1, with each size's ratio as evidence.
// Severity of a rolled-up finding is the worst of its rows. Drift is info, warn when the fitted
// decline over the window (|relative slope| x (runs - 1)) reaches the tolerance.
#pragma once

#include <string>
#include <vector>

#include "baseline/diff.h"
#include "core/finding.h"

namespace fabdiag::baseline {

/// Share of a host's compared pairs that must have changed to name the host (3 of 4).
inline constexpr double kNodeShare = 0.75;
/// Fewest changed pairs that name a host (one slow pair is a link, or either end).
inline constexpr size_t kMinNodePairs = 2;
/// Pair ratios listed as evidence of a node finding; the rest are counted in one line.
inline constexpr size_t kMaxPairEvidence = 16;

/// The findings of the rows of `d` (node, link, collective; regressions, drift, improvements).
std::vector<Finding> roll_up(const BaselineDiff& d, const DiffOptions& options);

/// Orders `findings` in place: those about a host in `suspects` (a node finding of it, or a
/// pair touching it) first, then by severity, worst first; otherwise stable. The messages of
/// suspect findings get " (a triage suspect)" appended once.
void order_findings(std::vector<Finding>& findings, const std::vector<std::string>& suspects);

}  // namespace fabdiag::baseline
