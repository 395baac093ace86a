// Screen schedules that scale: k random perfect matchings instead of the N-1 rounds of a full
// round-robin (docs/localization.md#the-screen). Each node meets k distinct
// partners, enough for a per-node median when k >= LocalizeParams::min_partners.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace fabdiag::triage {

/// `rounds` node-disjoint rounds over nodes 0..n-1 in which no pair repeats; every node is in
/// every round except, for odd n, one node per round that rests (a different one each round
/// while possible). Deterministic for a given `seed`. Fewer rounds come back when n is too small
/// for that many distinct partners (at most n-1 rounds).
std::vector<std::vector<std::pair<int, int>>> random_matchings(int n, int rounds, uint64_t seed);

}  // namespace fabdiag::triage
