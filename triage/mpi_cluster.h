// ClusterRunner over MPI ranks (one rank per node): rank 0 runs the triage walk and broadcasts
// each step as a small JSON command; every other rank executes the same command in
// serve_followers(), so decisions live in one place and all ranks stay in step.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/fs_root.h"
#include "core/progress.h"
#include "triage/cluster.h"

namespace fabdiag::perf {
class Comm;
}

namespace fabdiag::triage {

/// How each rank reads its own node.
struct NodeReadOptions {
  FsRoot fs;                 ///< This rank's /sys and /proc (already resolved for its host).
  bool read_ethtool = true;  ///< Driver stats via SIOCETHTOOL (live) or fixture files.
  const Clock* clock = nullptr;  ///< Stamps this rank's snapshots; nullptr = real_clock(). Not owned.
};

/// Rank 0's side. Every call is collective: the followers must be inside serve_followers().
class MpiCluster : public ClusterRunner {
 public:
  /// `comm` must outlive this object; call only on rank 0.
  MpiCluster(perf::Comm& comm, NodeReadOptions node, Progress progress);
  const std::vector<std::string>& hosts() const override;
  std::vector<Result<nlohmann::json>> snapshot_counters() override;
  Result<nlohmann::json> run_collective(const CollectiveSpec& spec) override;
  Result<std::vector<PairSample>> run_round(const std::vector<std::pair<int, int>>& pairs, int round_id,
                                            uint64_t size_bytes, int iters) override;
  /// Pair tests of later rounds give up after `give_up_after_s` (0 = never; the pair is then
  /// returned with PairSample::no_completion_s set) and their waiting ranks print a heartbeat
  /// line on stderr every `heartbeat_s`. Default: never give up, heartbeat every 10 s.
  void set_pair_limits(double give_up_after_s, double heartbeat_s);
  /// Releases the followers (they return from serve_followers). Call exactly once at the end.
  Status finish();

 private:
  perf::Comm& comm_;
  NodeReadOptions node_;
  Progress progress_;
  double give_up_after_s_ = 0;
  double heartbeat_s_ = 10;
};

/// Ranks other than 0: executes broadcast commands until rank 0 calls finish(). Errors: a
/// failed broadcast (rank 0 died); local failures travel to rank 0 inside the results.
Status serve_followers(perf::Comm& comm, const NodeReadOptions& node);

/// The CounterJudge of real snapshots (fabdiag.counters snapshot JSON as produced by the
/// followers): delta over the window, then the interpretation of rules/counter_interpret.h
/// (one finding per symptom and link, as `fabdiag counters` gives them).
std::vector<Finding> judge_counter_snapshots(const nlohmann::json& before, const nlohmann::json& after,
                                             double window_s);

/// Replaces "{host}" in a --sysfs-root/--procfs-root value with this rank's host name, so each
/// emulated node reads its own fixture copy (/tmp/fabdiag-emucluster/{host}/sys). A path
/// without "{host}" is returned as is. Errors: kInvalidArgument naming the host when the path
/// has "{host}" and `host` is not is_valid_hostname() (a '/', "..", a control character or
/// more than 253 characters would lead the path elsewhere).
Result<std::string> expand_host_placeholder(const std::string& path, const std::string& host);

}  // namespace fabdiag::triage
