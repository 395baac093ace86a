// ClusterRunner: what the triage walk needs from a cluster, as one small interface, so the walk
// runs the same over MPI ranks on real nodes (triage/mpi_cluster.cpp), on the emulated cluster,
// and over a fake in tests and simulations.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/finding.h"
#include "core/result.h"
#include "perf/sweep_stop.h"
#include "triage/localize.h"

namespace fabdiag::triage {

/// Parameters of one collective sweep (nccl-tests style).
struct CollectiveSpec {
  std::string collective = "all_reduce";  ///< all_reduce, alltoall, ...
  uint64_t min_bytes = 1 << 20;
  uint64_t max_bytes = 4 << 20;
  double factor = 2;
  int warmup = 1;
  int iters = 5;
  /// Skew-probe calls per size (perf::BenchOptions::skew_iters): the per-rank entry lateness
  /// and wait the straggler rule judges (triage/straggler.h).
  int skew_iters = 5;
  /// Early stop (triage/sweep_early_stop.h): set by the walk from its screen; off by default.
  perf::SweepStop stop{};
};

/// A cluster the walk can measure. All calls are collective over the cluster's nodes; results
/// are returned where the walk runs (rank 0). Implementations name the host in every error.
class ClusterRunner {
 public:
  virtual ~ClusterRunner() = default;
  /// Node host names, index = node id used in PairSample.
  virtual const std::vector<std::string>& hosts() const = 0;
  /// Counter snapshot of every node (index = node id), each the JSON of a fabdiag.counters/1
  /// `data` object or an error for that node.
  virtual std::vector<Result<nlohmann::json>> snapshot_counters() = 0;
  /// Runs a collective sweep on all nodes; returns fabdiag.bench/1 `data` (with
  /// `stopped_early` when spec.stop ended it before its largest size).
  virtual Result<nlohmann::json> run_collective(const CollectiveSpec& spec) = 0;
  /// Runs one round of concurrent node-disjoint bidirectional pair tests of `size_bytes`,
  /// `iters` times each; returns one sample per pair (NaN bytes_per_s when a pair failed).
  virtual Result<std::vector<PairSample>> run_round(const std::vector<std::pair<int, int>>& pairs,
                                                    int round_id, uint64_t size_bytes, int iters) = 0;
};

/// Judges one node's counters over the window: `before` and `after` are fabdiag.counters/1
/// `data` objects of the same node; returns findings whose subject names the device.
using CounterJudge = std::function<std::vector<Finding>(const nlohmann::json& before,
                                                        const nlohmann::json& after, double window_s)>;

}  // namespace fabdiag::triage
