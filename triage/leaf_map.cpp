#include "triage/leaf_map.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "triage/matchings.h"

namespace fabdiag::triage {

namespace {


std::string short_name(const std::string& h) { return h.substr(0, h.find('.')); }

std::pair<int, int> ordered(int a, int b) { return {std::min(a, b), std::max(a, b)}; }

// Pairs the nodes of `rest` in order, appending to `round`.
void pair_up(const std::vector<int>& rest, std::vector<std::pair<int, int>>& round) {
  for (size_t i = 0; i + 1 < rest.size(); i += 2) round.push_back(ordered(rest[i], rest[i + 1]));
}

// A random matching whose pairs join different leaves where possible: each node in a shuffled
// order takes the next free node of another leaf; the rest pair among themselves.
std::vector<std::pair<int, int>> cross_leaf_round(const LeafMap& m, std::mt19937_64& rng) {
  const size_t n = m.leaf_of.size();
  std::vector<int> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<int>(i);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<bool> taken(n, false);
  std::vector<std::pair<int, int>> round;
  std::vector<int> rest;
  for (size_t i = 0; i < n; ++i) {
    if (taken[i]) continue;
    taken[i] = true;
    const int leaf = m.leaf_of[static_cast<size_t>(order[i])];
    size_t j = i + 1;
    while (j < n && (taken[j] || m.leaf_of[static_cast<size_t>(order[j])] == leaf)) ++j;
    if (j < n) {
      taken[j] = true;
      round.push_back(ordered(order[i], order[j]));
    } else {
      rest.push_back(order[i]);
    }
  }
  pair_up(rest, round);
  return round;
}

}  // namespace

LeafMap map_leaves(const std::vector<std::string>& hosts, const FabricTopology& topo) {
  LeafMap m;
  std::map<std::string, std::string> by_short;
  for (const auto& [h, l] : topo.leaf_of_host) by_short.emplace(short_name(h), l);
  std::map<std::string, int> index;
  for (const auto& h : hosts) {
    auto it = topo.leaf_of_host.find(h);
    const std::string* leaf = it != topo.leaf_of_host.end() ? &it->second : nullptr;
    if (!leaf) {
      auto s = by_short.find(short_name(h));
      if (s != by_short.end()) leaf = &s->second;
    }
    if (!leaf) {
      m.leaf_of.push_back(-1);
      continue;
    }
    auto [li, fresh] = index.emplace(*leaf, static_cast<int>(m.leaves.size()));
    if (fresh) m.leaves.push_back(*leaf);
    m.leaf_of.push_back(li->second);
  }
  return m;
}

std::vector<std::vector<std::pair<int, int>>> leaf_matchings(const LeafMap& m, int rounds, uint64_t seed) {
  const int n = static_cast<int>(m.leaf_of.size());
  std::vector<std::vector<int>> members(m.leaves.size());
  for (int i = 0; i < n; ++i)
    if (m.leaf_of[static_cast<size_t>(i)] >= 0) members[static_cast<size_t>(m.leaf_of[static_cast<size_t>(i)])].push_back(i);
  const bool cross = m.leaves.size() >= 2 && rounds >= 2;
  const int intra_rounds = std::max(rounds - (cross ? 1 : 0), 0);
  std::vector<std::vector<std::pair<int, int>>> out(static_cast<size_t>(intra_rounds));
  for (size_t l = 0; l < members.size(); ++l) {
    auto local = random_matchings(static_cast<int>(members[l].size()), intra_rounds, seed + l);
    for (size_t r = 0; r < local.size(); ++r)
      for (auto [a, b] : local[r]) out[r].push_back(ordered(members[l][static_cast<size_t>(a)], members[l][static_cast<size_t>(b)]));
  }
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  for (auto& round : out) {  // whoever rests in its leaf this round pairs across
    std::set<int> used;
    for (auto [a, b] : round) used.insert({a, b});
    std::vector<int> rest;
    for (int i = 0; i < n; ++i)
      if (!used.count(i)) rest.push_back(i);
    std::shuffle(rest.begin(), rest.end(), rng);
    pair_up(rest, round);
  }
  if (cross) out.push_back(cross_leaf_round(m, rng));  // every leaf meets several others
  out.erase(std::remove_if(out.begin(), out.end(), [](const auto& r) { return r.empty(); }), out.end());
  return out;
}

}  // namespace fabdiag::triage
