// Judging a pairwise matrix (docs/localization.md#fabdiag-pairwise, after
// docs/localization.md#rules-for-deciding-under-noise): per-node median over its partners, a fleet
// reference, slow nodes, slow links, and what cannot be decided yet. Pure functions over the
// matrix; no I/O.
//
// Rules, in order:
//  1. pair value p(a,b) = mean of the measured directions matrix[a][b] and matrix[b][a].
//  2. node median m(x) = median of p(x,.) over its measured partners.
//  3. fleet median F = median of the node medians. Reference R = explicit reference (a baseline)
//     if given, else F (policy kFleetMedian) or the p90 of the pair values (kP90, for sparse
//     measurements where slow pairs may be the majority). Without an explicit reference, fewer
//     than 3 measured pairs are not a fleet: everything is inconclusive.
//  4. a pair is slow when p/R < pair_ratio, fast when p/R >= node_ratio (in between: neither).
//  5. node x with >= min_partners partners: slow when m(x)/R < node_ratio (aggregate before
//     judging), healthy otherwise.
//     node x with fewer partners: healthy when it has a fast pair; slow when all its pairs are
//     slow and >= 2 of those partners are known good *independently of x* (fast with a node that
//     is neither x nor another slow partner of x, or healthy by their own median): the
//     "re-paired with known-good nodes" confirmation; otherwise a suspect (inconclusive). With
//     3 nodes the partners can only clear each other, so a slow node stays a suspect.
//  6. a slow pair whose two ends are both healthy is a slow link; one that involves a slow node
//     is explained by the node; one whose ends are suspects or healthy with too few partners is
//     an inconclusive slow pair (its own entry, slow_pair set): a slow link or a slow end, the
//     data cannot tell which.
// The modified z-score (MAD based; core/stats.h) of each node median and pair value is reported (in
// the findings' evidence) and, when require_modified_z is set, must also be below modified_z_limit
// to flag (docs/localization.md#rules-for-deciding-under-noise, rule 2: the z test stops very noisy
// rounds from flagging). Off by default: the ratio rules above are what `fabdiag pairwise`
// promises, and with identical healthy values MAD is 0 and z is +-inf; triage can turn it on.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/finding.h"
#include "perf/pairwise.h"

namespace fabdiag::perf {

/// Where the reference bandwidth comes from when no explicit one is given.
enum class ReferencePolicy { kFleetMedian, kP90 };

/// Thresholds. Defaults are the emulated-cluster values of docs/localization.md#parameters; see
/// fabric_thresholds() for real InfiniBand/RoCE fabrics.
struct PairwiseThresholds {
  double node_ratio = 0.5;   ///< node median below this fraction of R = slow node
  double pair_ratio = 0.15;  ///< pair below this fraction of R = slow pair (tau_pair)
  int min_partners = 3;      ///< partners needed to judge a node by its median
  std::optional<double> reference_bytes_per_s;  ///< baseline; overrides the policy
  ReferencePolicy reference_policy = ReferencePolicy::kFleetMedian;
  bool require_modified_z = false;  ///< also require z < modified_z_limit to flag
  double modified_z_limit = -3.5;
};

/// Real fabrics (docs/localization.md#parameters): pair ratio 0.75 (intra-leaf), node ratio 0.75,
/// p90 reference (slow pairs may be the majority of a sparse measurement).
PairwiseThresholds fabric_thresholds();

/// Verdict on one node.
enum class NodeStatus {
  kHealthy,      ///< median fine, or delivered a fast pair
  kSlow,         ///< outlier node
  kSuspect,      ///< only slow pairs, not (yet) confirmed against known-good partners
  kNotMeasured,  ///< no measured pair, or no reference to compare with
};

/// "ok", "slow", "suspect", "not measured".
const char* to_string(NodeStatus s);

/// A slow node.
struct OutlierNode {
  int node = -1;
  std::string host;
  double median_bytes_per_s = 0;  ///< median over its partners
  double ratio = 0;               ///< median / reference
  int partners = 0;
  std::optional<double> modified_z;  ///< of the median among node medians (may be +-inf)
  std::string rule;                  ///< which rule flagged it, for people
};

/// A slow link between two otherwise healthy nodes.
struct OutlierLink {
  int a = -1;
  int b = -1;
  std::string host_a;
  std::string host_b;
  double bytes_per_s = 0;  ///< pair value
  double ratio = 0;        ///< pair value / reference
  std::optional<double> modified_z;  ///< of the pair value among all pair values
};

/// Something the data cannot decide; needs more measurements.
struct Inconclusive {
  std::vector<std::string> hosts;
  std::string reason;
  bool slow_pair = false;  ///< a pair below the pair ratio that the data cannot pin on a link or a node
};

/// Everything the analysis concluded.
struct PairwiseAnalysis {
  std::vector<double> node_median_bytes_per_s;  ///< per node; NaN without partners
  std::vector<int> partners;                    ///< per node
  std::vector<NodeStatus> status;               ///< per node
  std::vector<std::optional<double>> node_modified_z;
  double fleet_median_bytes_per_s = 0;  ///< median of node medians; NaN when none
  double reference_bytes_per_s = 0;     ///< R (NaN when there is none)
  std::string reference_source;         ///< "fleet median", "p90 of pairs", "baseline"
  double pair_ratio = 0;                ///< the thresholds judged with (PairwiseThresholds)
  double node_ratio = 0;
  std::vector<OutlierNode> outlier_nodes;
  std::vector<OutlierLink> outlier_links;
  std::vector<Inconclusive> inconclusive;
};

/// Pair value p(a,b) (rule 1); NaN when neither direction was measured.
double pair_value(const PairwiseMatrix& m, int a, int b);

/// Applies the rules above to `m`. Never fails: missing data yields kNotMeasured/inconclusive.
PairwiseAnalysis analyze_pairwise(const PairwiseMatrix& m, const PairwiseThresholds& t);

/// The `data` object of schema fabdiag.pairwise/1:
///   {hosts, size_bytes, iters, rounds, matrix_bytes_per_s (null = not measured),
///    node_median_bytes_per_s {host: v|null}, fleet_median_bytes_per_s,
///    outlier_nodes [{host, median_bytes_per_s, ratio, partners}],
///    outlier_links [{hosts [a, b], bytes_per_s, ratio}], inconclusive [{hosts, reason}],
///    reference_bytes_per_s (R, null when none), reference_source, pair_ratio, node_ratio}
void pairwise_to_json(nlohmann::json& data, const PairwiseMatrix& m, const PairwiseAnalysis& a);

/// Findings: error L2 `slow_node` per outlier node, warn L2 `slow_link` per outlier link,
/// warn L2 `slow_pair_inconclusive` per slow pair the data cannot pin (an end with too few
/// partners to judge), info L2 `pairwise_inconclusive` per other inconclusive entry.
std::vector<Finding> pairwise_findings(const PairwiseMatrix& m, const PairwiseAnalysis& a,
                                       const PairwiseThresholds& t);

}  // namespace fabdiag::perf
