// Which direction of a node is slow: its sends (egress), its receives (ingress) or both, from the
// pair tests' per-direction rates (docs/localization.md#direction). mpiGraph keeps a send and a
// receive matrix for the same reason: a bad transmit lane, egress shaping or TX pause frames slow
// only what leaves the host, and the bidirectional exchange would hide which side is at fault.
#pragma once

#include <string>
#include <vector>

#include "triage/localize.h"

namespace fabdiag::triage {

/// The direction verdict of one node.
struct NodeDirection {
  /// "send" (traffic out of the node is slow, into it is not), "recv" (the reverse), "both", or
  /// "" when no test of the node has both directions measured.
  std::string direction;
  double send_bytes_per_s = 0;  ///< Median rate of node -> partner over its tests (bytes/s).
  double recv_bytes_per_s = 0;  ///< Median rate of partner -> node over its tests (bytes/s).
  int tests = 0;                ///< Tests with both directions measured.
};

/// Judges `node` over every sample that involves it and has both directions finite
/// (PairSample::a_to_b_bytes_per_s / b_to_a_bytes_per_s): "send" when the median send rate is
/// below `ratio` x the median receive rate, "recv" for the reverse, else "both". `ratio` is the
/// node ratio of the decision (LocalizeParams::node_ratio): a direction that slow against the
/// node's other direction would be a slow node on its own.
NodeDirection node_direction(int node, const std::vector<PairSample>& samples, double ratio);

/// The same judgement for one pair (a, b) over its samples: "send" means a -> b is slow (a's
/// sending or b's receiving), "recv" means b -> a is slow; "both" or "" otherwise. send/recv
/// rates are a -> b and b -> a. Used for two-node clusters, where only the pair can be named.
NodeDirection pair_direction(int a, int b, const std::vector<PairSample>& samples, double ratio);

}  // namespace fabdiag::triage
