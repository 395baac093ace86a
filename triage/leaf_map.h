// The fabric topology as the walk uses it: the leaf of every node of the cluster, and screen
// schedules that prefer intra-leaf pairs (docs/localization.md#uplinks-and-leaves).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "import/fabric_topology.h"

namespace fabdiag::triage {

/// Leaf of each node of a cluster.
struct LeafMap {
  std::vector<int> leaf_of;         ///< [node] index into `leaves`, -1 when the topology does not name the host.
  std::vector<std::string> leaves;  ///< Leaf names, in order of first use by a node.
  /// Whether any node has a leaf.
  bool empty() const { return leaves.empty(); }
};

/// Places each of `hosts` (node id = index) under its leaf: an exact name match, else the short
/// names (up to the first '.') of both sides, so node03 matches node03.cluster.local.
LeafMap map_leaves(const std::vector<std::string>& hosts, const FabricTopology& topo);

/// The screen schedule with a topology, for clusters past the round-robin size: `rounds` rounds in
/// all, as many as without a topology (so the walk's round count and its deadline do not change):
/// `rounds` - 1 random matchings inside each leaf (nodes a leaf cannot pair, and nodes of no leaf,
/// are paired among themselves), then one random cross-leaf round pairing each node with a node of
/// another leaf where possible, so a leaf of k hosts meets up to k others and an uplink fault darkens
/// 1 of a node's `rounds` partners. Node-disjoint rounds; deterministic for `seed`. With fewer than
/// 2 leaves all `rounds` stay inside the leaves (no cross-leaf round).
std::vector<std::vector<std::pair<int, int>>> leaf_matchings(const LeafMap& m, int rounds, uint64_t seed);

}  // namespace fabdiag::triage
