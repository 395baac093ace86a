// `fabdiag pairwise`: a node x node bandwidth matrix from rounds of concurrent, bidirectional
// MPI_Sendrecv exchanges between disjoint pairs (SuperBench-style round robin;
// docs/localization.md#slow-nodes-and-slow-links: "concurrent pairs (a matching)"). One rank per
// node. Also the single-round primitive that triage uses to re-pair suspects with known-good nodes
// and to re-measure a pair alone.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/progress.h"
#include "core/result.h"
#include "perf/comm.h"

namespace fabdiag::perf {

/// Round-robin schedule by the circle method: rank 0 stays, the others rotate. Even n: n-1
/// rounds of n/2 pairs. Odd n: a "bye" is added (n rounds of (n-1)/2 pairs; each rank sits out
/// exactly one round) rather than a triple, so every test stays a two-node test. Over the whole
/// schedule every unordered pair appears exactly once. Pairs are written (lower, higher).
/// n < 2 gives no rounds.
std::vector<std::vector<RankPair>> round_robin_schedule(int n);

/// Message size and repetitions of each pair test.
struct PairwiseOptions {
  uint64_t size_bytes = 4ull << 20;  ///< --size: bytes sent each way per exchange
  int iters = 5;                     ///< -n: timed exchanges per pair
  int warmup_iters = 1;              ///< -w: untimed exchanges per pair before timing
  /// A pair whose exchanges (warm-up and timed) have not all completed after this many seconds
  /// is given up: a dead link or host (PairMeasurement::no_completion_s). 0 = wait forever.
  double give_up_after_s = 0;
  double heartbeat_s = 10;  ///< While a rank waits on its peer, `on_wait` about this often.
  /// Called on a waiting rank ("node05: exchange with rank 7 (node08) not complete after 10 s"):
  /// the heartbeat on stderr of a step that waits. May be empty.
  Progress on_wait;
  /// --pair-comm split: each round first splits the Comm into one communicator per pair
  /// (Comm::split: MPI_Comm_split; for NCCL ncclCommSplit), and each pair exchanges on its own
  /// (NCCL then sets up channels for that pair alone). Default: the pairs exchange on the
  /// shared Comm (NCCL: ncclSend/ncclRecv between the two ranks of the world communicator).
  bool split_pairs = false;
};

/// Errors (kInvalidArgument): size_bytes 0 or > 2^31-1 (MPI int count), iters < 1 or
/// warmup_iters < 0 (validate_iterations()).
Status validate_pairwise_options(const PairwiseOptions& o);

/// One measured pair: bytes/s per direction of the bidirectional exchange, each direction timed
/// on its receiving rank (size_bytes * iters / the sum of that rank's receive completion times,
/// Comm::exchange_timed), so an egress-only fault shows in one direction only, as in mpiGraph's
/// separate send and receive matrices. NaN when not measured.
struct PairMeasurement {
  int a = -1;
  int b = -1;
  double a_to_b_bytes_per_s = 0;
  double b_to_a_bytes_per_s = 0;
  /// > 0: the exchange did not complete within this many seconds (give_up_after_s) on at least
  /// one end: a dead link or host; both rates are then NaN.
  double no_completion_s = 0;
};

/// Collective over `comm`: every rank in `pairs` exchanges with its peer at the same time
/// (warm-up, barrier, timed loop of Comm::sendrecv between Comm::start_timer and stop_timer_s,
/// in host or device memory as the Comm takes it), ranks not in a pair only take part in the
/// barriers (and in the split, with options.split_pairs); then the times are gathered, so every rank returns every pair's result, in the
/// order of `pairs`. Errors: kInvalidArgument (pairs not disjoint / out of range, options),
/// kUnavailable (allocation or MPI failure, naming rank and host).
Result<std::vector<PairMeasurement>> run_pair_round(Comm& comm, const std::vector<RankPair>& pairs,
                                                    const PairwiseOptions& options);

/// The full measurement.
struct PairwiseMatrix {
  std::vector<std::string> hosts;  ///< Per rank; unique_rank_labels() of the host names.
  uint64_t size_bytes = 0;
  int iters = 0;
  std::vector<std::vector<RankPair>> rounds;
  /// matrix_bytes_per_s[src][dst]: bytes/s from src to dst during the bidirectional exchange,
  /// timed on src; NaN on the diagonal and where not measured.
  std::vector<std::vector<double>> matrix_bytes_per_s;
};

/// An n x n matrix of NaN with the given labels and parameters, no rounds.
PairwiseMatrix make_empty_matrix(const std::vector<std::string>& hosts, uint64_t size_bytes,
                                 int iters);

/// Writes both directions of `m` into `matrix`.
void record_pair(PairwiseMatrix& matrix, const PairMeasurement& m);

/// Called on every rank before each round and once after the last: the matrix so far (all of
/// `so_far.rounds` planned, the first `rounds_done` measured). What a cut run delivers and what
/// --checkpoint writes.
using PairwiseStepSink = std::function<void(const PairwiseMatrix& so_far, size_t rounds_done)>;

/// Collective over `comm`: runs round_robin_schedule(size) with a barrier between rounds,
/// telling `on_step` (may be empty) where it stands.
/// Progress (rank 0 only): one line per round. Cost: (n-1 or n) rounds x (warmup + iters)
/// exchanges of size_bytes each way. Errors as run_pair_round, with the round named.
Result<PairwiseMatrix> run_pairwise(Comm& comm, const PairwiseOptions& options,
                                    const Progress& progress, const PairwiseStepSink& on_step = {});

}  // namespace fabdiag::perf
