// The node threshold of the screen and the confirmation (docs/localization.md#the-node-threshold):
// a fixed ratio (--node-ratio, or LocalizeParams::node_ratio) or one adapted to the spread the
// broad round measured, so a quiet fabric gets a tight threshold and a noisy one a loose one.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace fabdiag::triage {

/// The adaptive rule's parameters (LocalizeParams::adaptive). Off: the fixed node ratio decides.
struct AdaptiveThreshold {
  bool on = false;         ///< `fabdiag triage` turns it on unless --node-ratio is given.
  double k_sigma = 4;      ///< tau = 1 - k_sigma x sigma_log ...
  double min_ratio = 0.5;  ///< ... clamped to [min_ratio, max_ratio]: never looser than the
  double max_ratio = 0.88; ///< emulated cluster's 0.5, never tighter than the real-fabric 0.88.
};

/// The node threshold tau in use and why.
struct NodeThreshold {
  double ratio = NAN;      ///< tau: a node median / reference below it is slow (with the z test).
  std::string source;      ///< "fixed" (LocalizeParams::node_ratio, e.g. --node-ratio) or "adaptive".
  double sigma_log = NAN;  ///< Robust sigma of the log node medians (1.4826 x MAD); NaN when fixed
                           ///< or fewer than 3 nodes were judged.
  int judged = 0;          ///< Node medians the spread was measured on (>= min_partners partners).
  std::string why;         ///< One sentence: the rule and its numbers.
};

/// tau = clamp(1 - k_sigma x sigma_log, min_ratio, max_ratio) with sigma_log = 1.4826 x MAD of
/// log(node medians), when `adaptive.on` and at least 3 medians are finite and positive; else
/// `fixed_ratio` (LocalizeParams::node_ratio, --node-ratio: "fixed"). The MAD is robust: a slow minority of nodes
/// does not widen it. Multiplicative noise: 1 - k sigma is about exp(-k sigma) below the
/// typical node, the ratio at which the modified z test (-3.5) would flag a node of that spread
/// too, so the two tests of rule 2 agree on where "slow" begins. `node_medians` in bytes/s, one
/// per judged node (NaN/<= 0 ignored).
NodeThreshold node_threshold(const std::vector<double>& node_medians, double fixed_ratio, const AdaptiveThreshold& adaptive);

/// {ratio, source, sigma_log, judged, why}, NaN as null.
void to_json(nlohmann::json& j, const NodeThreshold& t);

}  // namespace fabdiag::triage
