// An in-process, deterministic N-rank Comm for tests: each simulated rank runs on its own
// thread, collectives move real data between the ranks' buffers, and time is a virtual clock
// advanced by a bandwidth model (so pairwise matrices and per-rank times are exact and
// repeatable). Faults are part of the model: slow nodes, slow links, straggler ranks and
// corrupted receive buffers.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/result.h"
#include "perf/comm.h"

namespace fabdiag::perf {

/// The simulated cluster.
struct SimSpec {
  int ranks = 2;
  std::vector<std::string> hosts;            ///< Host of each rank; empty = node01, node02, ...
  double link_bytes_per_s = 1e9;             ///< Point-to-point rate per direction, unless overridden.
  std::map<RankPair, double> link_override;  ///< (src, dst) -> bytes/s for that direction only.
  std::vector<double> node_factor;           ///< Per rank: multiplies every link touching it
                                             ///< (0.01 = a node 100x slow); empty = all 1.
  double collective_bytes_per_s = 1e9;       ///< Rate of one collective call (bytes of its size).
  std::vector<double> rank_time_factor;      ///< Per rank: multiplies its collective time
                                             ///< (a straggler, e.g. 3.0); empty = all 1.
  double latency_s = 1e-6;                   ///< Added to every operation.
  int corrupt_rank = -1;                     ///< This rank's receive buffers get corrupted...
  size_t corrupt_elements = 0;               ///< ...in their first k elements after each call.
};

/// Bytes/s from `src` to `dst` in the model: link_override or link_bytes_per_s, times
/// min(node_factor[src], node_factor[dst]).
double sim_link_bytes_per_s(const SimSpec& spec, int src, int dst);

/// Runs `body` once per simulated rank, concurrently, each with its own Comm (rank 0..n-1),
/// and waits for all. A rank whose body returns while others wait in a collective makes those
/// calls fail (no hang). Returns the error of the lowest failing rank, else Ok.
/// Errors: kInvalidArgument for a bad spec (ranks < 1, vectors of the wrong length).
Status run_simulated(const SimSpec& spec, const std::function<Status(Comm&)>& body);

}  // namespace fabdiag::perf
