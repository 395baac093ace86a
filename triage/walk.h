// The triage walk (docs/ARCHITECTURE.md#the-layered-walk): counters before, collective sweeps,
// pairwise screen, confirmation rounds, counters after, then suspects with their evidence chain.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/envelope.h"
#include "core/progress.h"
#include "import/fabric_topology.h"
#include "triage/cluster.h"
#include "triage/link_bisection.h"
#include "triage/localize.h"
#include "triage/pair_sizing.h"
#include "triage/sweep_early_stop.h"

namespace fabdiag::triage {

/// What to run.
struct WalkParams {
  std::vector<CollectiveSpec> sweeps = {CollectiveSpec{"all_reduce"}, CollectiveSpec{"alltoall"}};
  uint64_t pair_size_bytes = 1 << 20;  ///< Message size of pair tests (per direction), unless pair_sizing.
  /// Set: the size adapts to the link (triage/pair_sizing.h): the screen's first round runs at
  /// growing sizes until the rates settle and that size serves the rest of the walk
  /// (`fabdiag triage` without --pair-size). Unset: pair_size_bytes throughout.
  std::optional<PairSizingParams> pair_sizing;
  int pair_iters = 3;                  ///< Sendrecv repetitions per pair test.
  LocalizeParams localize;
  int round_robin_max_nodes = 16;  ///< Up to this many nodes the screen measures every pair.
  int matching_rounds = 3;         ///< Beyond it: this many random matchings (>= min_partners).
  uint64_t seed = 1;               ///< Seed of the random matchings.
  /// Seconds after which a pair test that has not completed is given up and named dead
  /// (`--dead-after`); its value reaches the walk through PairSample::no_completion_s. The
  /// ClusterRunner keeps the limit (MpiCluster::set_pair_limits); here for the report's params.
  double dead_after_s = 30;
  /// `--topology`: host -> leaf -> spine. With it the matchings prefer intra-leaf pairs (plus one
  /// cross-leaf round) and leaf-uplink suspects are judged (triage/uplink.h). Empty: none.
  std::optional<FabricTopology> topology;
  /// Stage 3 (triage/link_bisection.h): when the all_reduce sweep is sick and the screen (random
  /// matchings, past round_robin_max_nodes) and its confirmation name nothing, probe its ring.
  RingProbeParams ring_probe;
  /// The sweeps stop at the first size that shows the fault the screen named
  /// (triage/sweep_early_stop.h); `--full-sweeps` turns it off.
  SweepStopParams sweep_stop;
};

/// One named suspect, as the JSON contract has it: data.suspects[] {kind, hosts, layer,
/// evidence[], action}.
struct TriageSuspect {
  std::string kind;                ///< "node", "link", "pair", "cluster", "leaf_uplink", "spine" or "straggler".
  std::vector<std::string> hosts;  ///< One host, the two ends of a link, or the hosts under a leaf.
  std::string subject;             ///< leaf_uplink/spine: the leaf ("leaf1"; "leaf1<->leaf2" for two); else empty.
  std::vector<std::string> leaves; ///< leaf_uplink/spine: the leaves named.
  /// node/pair: which direction is slow (triage/direction.h): "send" (out of the host; for a
  /// pair, hosts[0] -> hosts[1], written slow end first), "recv" (into the host), "both"; empty
  /// when not measured.
  std::string direction;
  /// node/link: > 0 when it is dead: its pair tests did not complete in this many seconds
  /// (triage/dead_pairs.h); 0 for a slow suspect.
  double no_completion_s = 0;
  Layer layer = Layer::kLocalization;  ///< Deepest layer with evidence (L4 when counters show it).
  std::vector<Evidence> evidence;  ///< Slow pairs with numbers, counter deltas, port state.
  std::string action;
};

/// The result of a walk.
struct TriageReport {
  std::vector<std::string> hosts;
  std::vector<TriageSuspect> suspects;
  std::vector<std::pair<std::string, std::string>> cleared;  ///< (host or link, reason).
  std::vector<std::string> inconclusive;
  std::vector<std::pair<std::string, double>> watch;  ///< (host, ratio to reference): near misses, not suspects.
  std::vector<nlohmann::json> bench;  ///< fabdiag.bench/1 data per sweep.
  nlohmann::json pairwise;            ///< fabdiag.pairwise/1-shaped data of the screen.
  nlohmann::json confirmation;        ///< Planned rounds and their samples.
  std::vector<Finding> findings;      ///< Suspect findings plus counter findings (subject has host).
  std::vector<Error> errors;          ///< What could not be measured or read.
  int rounds = 0;                     ///< Pair rounds run (screen + confirmation + ring probe).
  /// Stage 3 when it ran: {rounds, dark_edges, needed_retests, links}; null otherwise.
  nlohmann::json ring_probe;
  double window_s = 0;                ///< Counter window: first to last snapshot.
  /// Per host, what its final counter snapshot says of its links, in host order:
  /// {host, links[] (ethtool link facts), optics[] (module diagnostics)}, the same facts
  /// `fabdiag counters` shows for that node (collect/counter_pipeline.h). A host whose
  /// snapshot could not be read is absent (its error is in `errors`).
  nlohmann::json nodes = nlohmann::json::array();
};

/// Called before each step of the walk (each counter snapshot, each sweep, each pair round):
/// the report of the steps that finished (bench[], the screen's samples so far in `pairwise`,
/// the confirmation rounds run so far, rounds, errors; no suspects: nothing is decided before
/// the end), the step now starting ("pairwise round 3 of 7") and what comes after it.
using WalkStepSink =
    std::function<void(const TriageReport& so_far, const std::string& during, const std::string& not_run)>;

/// Runs the walk on `cluster`, telling `on_step` (may be empty) where it stands. `judge` turns
/// a node's counter snapshots into findings (may be empty: no counter evidence). Never throws;
/// what fails lands in report.errors.
TriageReport run_walk(ClusterRunner& cluster, const WalkParams& params, const CounterJudge& judge,
                      const Progress& progress, const WalkStepSink& on_step = {});

/// data object of a fabdiag.triage/1 envelope.
nlohmann::json to_json(const TriageReport& r);

}  // namespace fabdiag::triage
