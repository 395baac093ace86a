#include "tests/sim/sim_fabric.h"

#include <algorithm>
#include <cmath>

#include "triage/link_bisection.h"

namespace fabdiag::sim {

SimFabric::SimFabric(int nodes, const FabricModel& m, unsigned seed)
    : node_factor(static_cast<size_t>(nodes), 1.0), model_(m), rng_(seed) {
  model_.leaf_size = std::max(1, model_.leaf_size);
  for (int i = 0; i < nodes; ++i) hosts_.push_back("n" + std::to_string(i));
  uplink_factor.assign(static_cast<size_t>(leaves()), 1.0);
}

int SimFabric::leaves() const {
  return (static_cast<int>(hosts_.size()) + model_.leaf_size - 1) / model_.leaf_size;
}

std::vector<int> SimFabric::hosts_of_leaf(int leaf) const {
  std::vector<int> out;
  for (int i = leaf * model_.leaf_size; i < std::min<int>((leaf + 1) * model_.leaf_size, static_cast<int>(hosts_.size())); ++i)
    out.push_back(i);
  return out;
}

FabricTopology SimFabric::topology() const {
  FabricTopology t;
  t.source = "simulation";
  t.format = "text";
  for (size_t i = 0; i < hosts_.size(); ++i) t.leaf_of_host[hosts_[i]] = "leaf" + std::to_string(leaf_of(static_cast<int>(i)));
  for (int l = 0; l < leaves(); ++l) t.spines_of_leaf["leaf" + std::to_string(l)] = {"spine0"};
  return t;
}

std::vector<Result<nlohmann::json>> SimFabric::snapshot_counters() {
  return std::vector<Result<nlohmann::json>>(hosts_.size(), nlohmann::json::object());
}

Result<nlohmann::json> SimFabric::run_collective(const triage::CollectiveSpec& spec) {
  if (spec.collective != "all_reduce") return nlohmann::json::object();
  const auto ring = triage::ring_edges(static_cast<int>(hosts_.size()));
  const std::vector<double> share = uplink_shares(ring);
  double slowest = 4e10;
  for (auto [a, b] : ring) slowest = std::min(slowest, steady_rate(a, b, share));
  std::lognormal_distribution<double> noise(0.0, model_.sigma);
  nlohmann::json row = {{"size_bytes", spec.max_bytes}, {"busbw_bytes_per_s", slowest * noise(rng_)}};
  return nlohmann::json{{"collective", "all_reduce"}, {"results", nlohmann::json::array({row})}};
}

double SimFabric::steady_rate(int a, int b, const std::vector<double>& share) const {
  double v = 4e10 * std::min(node_factor[static_cast<size_t>(a)], node_factor[static_cast<size_t>(b)]);
  if (slow_links.count({std::min(a, b), std::max(a, b)})) v *= link_fault;
  if (leaf_of(a) != leaf_of(b)) v *= std::min(share[static_cast<size_t>(leaf_of(a))], share[static_cast<size_t>(leaf_of(b))]);
  return v;
}

// [leaf] share of its uplink capacity each cross-leaf flow of this round gets (<= 1).
std::vector<double> SimFabric::uplink_shares(const std::vector<std::pair<int, int>>& pairs) const {
  std::vector<int> flows(static_cast<size_t>(leaves()), 0);
  for (auto [a, b] : pairs)
    if (leaf_of(a) != leaf_of(b)) {
      ++flows[static_cast<size_t>(leaf_of(a))];
      ++flows[static_cast<size_t>(leaf_of(b))];
    }
  std::vector<double> share(flows.size(), 1.0);
  for (size_t l = 0; l < flows.size(); ++l) {
    double capacity = model_.leaf_size / model_.oversub * uplink_factor[l];
    if (flows[l] > 0) share[l] = std::min(1.0, capacity / flows[l]);
  }
  return share;
}

Result<std::vector<triage::PairSample>> SimFabric::run_round(const std::vector<std::pair<int, int>>& pairs,
                                                             int round_id, uint64_t, int) {
  ++rounds;
  std::lognormal_distribution<double> noise(0.0, model_.sigma);
  std::uniform_real_distribution<double> u(0, 1);
  const std::vector<double> share = uplink_shares(pairs);
  std::vector<triage::PairSample> out;
  out.reserve(pairs.size());
  for (auto [a, b] : pairs) {
    double v = steady_rate(a, b, share);
    if (leaf_of(a) != leaf_of(b) && u(rng_) < model_.ecmp_share) v *= 0.5;  // two flows hashed onto one uplink
    v *= noise(rng_);
    if (u(rng_) < model_.dip_prob) v /= 2 + (model_.dip_max - 2) * u(rng_);
    out.push_back(triage::PairSample{a, b, v, round_id});
  }
  return out;
}

}  // namespace fabdiag::sim
