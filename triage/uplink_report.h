// An uplink suspect as the triage report has it (kind leaf_uplink or spine, subject the leaf,
// its hosts, the screen's numbers as evidence): docs/localization.md#uplinks-and-leaves.
#pragma once

#include <string>
#include <vector>

#include "triage/uplink.h"
#include "triage/walk.h"

namespace fabdiag::triage {

/// The TriageSuspect of `s`: kind "leaf_uplink" (one leaf, or the two leaves of a two-leaf
/// fabric) or "spine" (every leaf of three or more), subject the leaf ("leaf1"; "leaf1<->leaf2"
/// for two), leaves and hosts by name, layer L2; evidence: the cross-leaf median against the
/// intra-leaf reference, the leaf's intra-leaf median, the other leaves' cross-leaf median.
/// Counter evidence of the hosts is the caller's to add.
TriageSuspect uplink_suspect(const UplinkSuspect& s, const UplinkScreen& u, const LeafMap& m,
                             const std::vector<std::string>& hosts);

/// "(host) is explained by the uplink of leaf1": the cleared reason of a node candidate taken
/// out by explain_by_uplinks().
std::string uplink_cleared_reason(const UplinkScreen& u, const LeafMap& m, int node);

}  // namespace fabdiag::triage
