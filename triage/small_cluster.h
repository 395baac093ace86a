// Verdicts for 2- and 3-node clusters, where no node has the min_partners partners the screen
// needs (docs/localization.md#small-clusters).
#pragma once

#include <vector>

#include "triage/localize.h"

namespace fabdiag::triage {

/// Judges a cluster of 2 or 3 nodes from its screen samples (every pair measured; repeats are
/// combined by median) and puts the verdict into `out`, replacing its "too few partners" lines.
/// Three nodes: a node whose two pairs are both below node_ratio x the reference while the third
/// pair is not is a node suspect; the reference is params.reference_bytes_per_s, else the fastest
/// pair. Two nodes: with an external reference, a pair below node_ratio x it is a "pair"
/// suspect (one of these two); without one, a pair whose one direction is below node_ratio x
/// the other (triage/direction.h) is a "pair" suspect too, else inconclusive. Returns false (out untouched) for
/// other sizes or when a pair was not measured.
bool judge_small_cluster(int nodes, const std::vector<PairSample>& samples, const LocalizeParams& p,
                         Localization& out);

}  // namespace fabdiag::triage
