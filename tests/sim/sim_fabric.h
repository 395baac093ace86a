// A simulated two-tier fabric for the localization simulation (docs/localization.md#simulation):
// hosts under leaf switches, leaves joined through spines, as a ClusterRunner, so the real triage
// walk (triage/walk.h: screen, uplink judge, confirmation, decision) runs against it unchanged.
//
// Model of one pair test a<->b (bytes/s per direction):
//   40 GB/s x min(node factor a, node factor b) x link factor(a,b)
//     x [cross-leaf] min(uplink share of a's leaf, of b's leaf) x [ECMP collision] 0.5
//     x log-normal noise (sigma) / [deep dip, probability dip_prob] 2..dip_max
// where a leaf's uplink share in a round is min(1, capacity / cross-leaf flows of that leaf that
// round), capacity = hosts per leaf / oversubscription x the leaf's uplink factor (a degraded
// uplink bundle: every cross-leaf flow of the leaf slows, as on the emulated fabric), and an ECMP
// collision halves a random share of the cross-leaf flows, drawn anew each round.
//
// The all_reduce sweep (run_collective): a ring in rank order, as fast as its slowest edge
// (i, i+1 mod N) without the per-test dips and collisions (a sweep's iterations average them out),
// times one log-normal draw: busbw bytes/s at the sweep's largest size. Other collectives: no rows.
#pragma once

#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "import/fabric_topology.h"
#include "triage/cluster.h"

namespace fabdiag::sim {

/// Noise and fabric shape.
struct FabricModel {
  double sigma = 0.03;     ///< Log-normal sigma of one test (3 %: a real fabric).
  double dip_prob = 0.002; ///< Probability of a deep dip (a descheduled or congested test).
  double dip_max = 4;      ///< Dips divide by 2..dip_max.
  int leaf_size = 32;      ///< Hosts per leaf; >= the node count: one leaf.
  double oversub = 1;      ///< Host bandwidth under a leaf / its uplink bandwidth (1: non-blocking).
  /// Share of cross-leaf pair tests halved by an ECMP collision each round (drawn anew per round).
  /// 1 %: a pair test spreads over several QPs, so a whole test halved is rarer than one flow
  /// colliding; scripts/bench-localization.sh also runs 5 %, where node verdicts start to fail.
  double ecmp_share = 0.01;
};

/// The simulated cluster: hosts n0..n{N-1}, host i under leaf i / leaf_size.
class SimFabric : public triage::ClusterRunner {
 public:
  SimFabric(int nodes, const FabricModel& m, unsigned seed);
  const std::vector<std::string>& hosts() const override { return hosts_; }
  std::vector<Result<nlohmann::json>> snapshot_counters() override;
  Result<nlohmann::json> run_collective(const triage::CollectiveSpec&) override;
  Result<std::vector<triage::PairSample>> run_round(const std::vector<std::pair<int, int>>& pairs, int round_id,
                                                    uint64_t size_bytes, int iters) override;

  /// host -> leaf -> spine, as `fabdiag triage --topology FILE` would give it.
  FabricTopology topology() const;
  int leaf_of(int node) const { return node / model_.leaf_size; }
  int leaves() const;
  /// Hosts under leaf `leaf`.
  std::vector<int> hosts_of_leaf(int leaf) const;

  std::vector<double> node_factor;       ///< [node] 1 = healthy.
  std::vector<double> uplink_factor;     ///< [leaf] 1 = healthy uplinks.
  std::set<std::pair<int, int>> slow_links;  ///< (a < b) pairs slowed by link_fault.
  double link_fault = 0.5;
  int rounds = 0;  ///< Pair rounds run.

 private:
  std::vector<double> uplink_shares(const std::vector<std::pair<int, int>>& pairs) const;
  /// One test's rate without noise, dips and collisions, `share` from uplink_shares().
  double steady_rate(int a, int b, const std::vector<double>& share) const;
  std::vector<std::string> hosts_;
  FabricModel model_;
  std::mt19937 rng_;
};

}  // namespace fabdiag::sim
