// Leaf-uplink suspects from the pairwise screen (docs/localization.md#uplinks-and-leaves): a
// leaf whose cross-leaf tests are dark while its intra-leaf tests, and each of its hosts with
// intra-leaf partners, are fine. Pure decision logic over PairSample, like triage/localize.h.
#pragma once

#include <cmath>
#include <vector>

#include "triage/leaf_map.h"
#include "triage/localize.h"

namespace fabdiag::triage {

/// One uplink suspect: a single leaf when three or more leaves let the matrix tell which one, or
/// the two leaves of a two-leaf fabric (either leaf's uplink, or the spine between them).
struct UplinkSuspect {
  std::vector<int> leaves;                  ///< Index into LeafMap::leaves.
  std::vector<int> nodes;                   ///< The hosts under those leaves.
  int dark_cells = 0;                       ///< Leaf pairs (this leaf, another) whose median is dark.
  int cells = 0;                            ///< Leaf pairs of this leaf that were measured.
  double cross_median_bytes_per_s = NAN;    ///< Median of the leaf's cross-leaf pair values.
  int cross_pairs = 0;
  double intra_median_bytes_per_s = NAN;    ///< Median of the leaf's intra-leaf pair values.
  int intra_pairs = 0;
  double others_cross_median_bytes_per_s = NAN;  ///< Cross-leaf pairs not touching it (NaN with 2 leaves).
};

/// What the uplink judge saw.
struct UplinkScreen {
  double reference_bytes_per_s = NAN;  ///< Median of every intra-leaf pair: the uplink-free reference.
  double ratio = NAN;                  ///< An intra-leaf value below ratio x reference is dark.
  double cross_ratio = NAN;            ///< A cross-leaf value below cross_ratio x reference is dark (ratio / oversubscription).
  std::vector<UplinkSuspect> suspects;
};

/// Judges leaves from the screen's samples (a pair repeated: its median). The reference R is the
/// median of all intra-leaf pairs. A leaf-pair cell (L, M) is dark when the median of its pairs is
/// below `p.node_ratio` x R / `p.oversubscription`. Leaf L is a suspect when a strict majority of
/// its cells is dark, its intra-leaf median and every host's intra-leaf upper median (the larger
/// of two values: one dip does not veto) are at least node_ratio x R (a slow node under L fails this), and at least half its hosts (and 2) have a dark
/// cross-leaf median (against the same cross-leaf limit as the cells). With two
/// leaves both are suspects together (one UplinkSuspect); with three or more, a leaf that is a
/// suspect alone. When every leaf of three or more is a suspect (the spine, or every uplink) they
/// are one UplinkSuspect with all leaves. Nothing without intra-leaf pairs or a second leaf.
UplinkScreen screen_uplinks(const std::vector<PairSample>& samples, const LeafMap& m, const LocalizeParams& p);

/// Removes the suspects' hosts from the screen's node candidates, watch list and good nodes, and
/// the link candidates between one of them and a host of another leaf (explained by the uplink);
/// returns the nodes taken out of the candidates.
std::vector<int> explain_by_uplinks(Screen& s, const UplinkScreen& u, const LeafMap& m);

}  // namespace fabdiag::triage
