// `fabdiag bench`: one collective over a size sweep on a Comm, timed like nccl-tests (warm-up,
// timed loop, average time per iteration), with algbw/busbw (bandwidth.h), a data check of the
// last iteration's output (data_check.h) and every rank's time, so a straggler shows.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/finding.h"
#include "core/progress.h"
#include "core/result.h"
#include "perf/collective.h"
#include "perf/comm.h"
#include "perf/dtype.h"
#include "perf/iteration_stats.h"
#include "perf/sweep.h"
#include "perf/sweep_stop.h"
#include "perf/sync_skew.h"

namespace fabdiag::perf {

/// What to run (the flags of `fabdiag bench`).
struct BenchOptions {
  Collective collective = Collective::kAllReduce;
  DataType dtype = DataType::kFloat;
  SweepSpec sweep;        ///< -b/-e/-f
  int warmup_iters = 5;   ///< -w: untimed calls per size before the timed loop
  int iters = 20;         ///< -n: timed calls per size
  int root = 0;           ///< Root of broadcast, reduce, gather and scatter.
  /// -G: 0 = the calls run one by one; N > 0 = the -n calls of a size are captured once into
  /// a CUDA graph and the graph is launched N times (nccl-tests -G N; time per call =
  /// elapsed / (iters * N)). Backends without graphs (MPI) refuse it (kUnsupported).
  int graph_launches = 0;
  /// Calls of the skew probe per size (docs/localization.md#stragglers), run after the timed
  /// loop and not part of its times: each call is preceded by a host step (the send buffer
  /// rewritten with the rank's pattern until kHostStepBytes are written, as a training step
  /// writes its gradients before the collective) and stamped at entry and exit on a
  /// barrier-aligned clock (sync_skew.h). 0 = no probe. Host-memory backends only (MPI): NCCL
  /// calls return before the GPU is done, so their host stamps would not show the sync point.
  int skew_iters = 0;
  /// Early stop (perf/sweep_stop.h): off by default (`fabdiag bench` runs every size); the
  /// triage walk sets it when its screen already found the fault the sweep would show.
  SweepStop stop{};
};

/// Bytes of pattern the host step before each skew-probe call writes (16 MiB: a few
/// milliseconds of one core, so a rank with a slow or busy CPU enters the collective late).
inline constexpr uint64_t kHostStepBytes = 16ull << 20;

/// Largest max size (-e) a benchmark accepts: 1 TiB ("1T"). The buffers live in host memory,
/// and sizes near 2^64 would overflow the buffer arithmetic.
inline constexpr uint64_t kMaxBenchBytes = 1ull << 40;

/// Largest skew_iters.
inline constexpr int kMaxSkewIters = 10000;

/// Largest -G (graph launches per size).
inline constexpr int kMaxGraphLaunches = 10000;

/// Errors (kInvalidArgument): bad sweep, max size above kMaxBenchBytes, iters < 1 or
/// warmup_iters < 0 (validate_iterations()), root < 0, graph_launches < 0 or above 10000, uint8
/// with a reduction (8-bit overflow is not portable across MPI libraries), skew_iters < 0 or
/// above kMaxSkewIters, a bad stop limit (validate_sweep_stop()).
Status validate_bench_options(const BenchOptions& o);

/// One half of a row of the sweep: the calls out of place (separate send and receive buffers)
/// or in place (CollectiveShape's in-place pointers), as nccl-tests prints two halves per row.
struct PlacementResult {
  double time_s = 0;                  ///< Average seconds per iteration, max over ranks.
  double algbw_bytes_per_s = 0;       ///< size_bytes / time_s.
  double busbw_bytes_per_s = 0;       ///< algbw * busbw_factor(collective, ranks).
  uint64_t wrong_elements = 0;        ///< Sum over ranks of wrong output elements.
  /// False when the data check does not apply: in-place alltoall, which nccl-tests does not
  /// check either (src/alltoall.cu: "We don't support in-place alltoall", reportErrors = 0);
  /// wrong_elements is then 0 and printed "N/A".
  bool checked = true;
  std::vector<double> per_rank_time_s;             ///< Average seconds per iteration, per rank.
  std::vector<uint64_t> per_rank_wrong_elements;   ///< Per rank (not in the JSON contract).
  int slowest_rank = 0;               ///< argmax of per_rank_time_s.
  /// Of the iterations (with -G: of the graph launches, each divided by iters), each taken as
  /// the slowest rank's time of that iteration (iteration_stats.h).
  IterationStats iterations;
  /// Per rank, its slowest iteration (seconds): a rank with one bad iteration shows here even
  /// when its average does not.
  std::vector<double> per_rank_iteration_max_s;
  /// The skew probe's sync-point skew (sync_skew.h): per rank the median entry lateness and
  /// wait (seconds), and the median step time. Empty / 0 when no probe ran (skew_iters 0, a
  /// device-buffer backend, an import).
  SyncSkew skew;
};

/// One row of the sweep: the out-of-place half (the members inherited) and, where the Comm
/// supports_in_place() (NCCL), the in-place half.
struct SizeResult : PlacementResult {
  uint64_t size_bytes = 0;            ///< nccl-tests "size" (collective_shape()).
  uint64_t count = 0;                 ///< nccl-tests "count" (elements).
  std::optional<PlacementResult> in_place;  ///< nullopt: not measured (MPI, simulated).
};

/// A rank of the run and what it ran on (the nccl-tests "#  Rank" line).
struct BenchRankDevice {
  int64_t pid = 0;
  Comm::DeviceInfo device;
};

/// The whole run; identical on every rank after run_collective_bench().
struct BenchResult {
  Collective collective = Collective::kAllReduce;
  std::string backend = "mpi";
  DataType dtype = DataType::kFloat;
  int ranks = 0;
  std::vector<std::string> hosts;  ///< Per rank.
  int warmup_iters = 0;
  int iters = 0;
  int root = 0;
  int graph_launches = 0;                ///< -G (0 = no CUDA graph).
  std::vector<BenchRankDevice> devices;  ///< Per rank.
  std::vector<SizeResult> results;
  /// Set when BenchOptions::stop ended the sweep before its largest size: `results` then ends
  /// at the size that showed the fault.
  std::optional<EarlyStop> stopped_early;
};

/// Called on every rank before each size and once after the last: the rows of the sizes that
/// finished so far (`so_far.results`) and the sizes still to run, the next one first (empty at
/// the end). What a cut run delivers and what --checkpoint writes.
using BenchStepSink = std::function<void(const BenchResult& so_far, const std::vector<uint64_t>& sizes_left)>;

/// Collective over `comm`: runs the sweep, telling `on_step` (may be empty) where it stands. Sizes that round to 0 elements (smaller than one
/// element per rank) are skipped. With options.stop, the sweep ends after the first size that
/// stops_sweep() accepts (BenchResult::stopped_early). Buffers (send + receive at the largest size) are host memory,
/// allocated once and paged in before timing; when comm.uses_device_buffers() (NCCL) device
/// buffers of the same sizes too, the pattern copied in before each size and the result
/// copied back for the data check. The timed loop is timed by comm.start_timer() /
/// stop_timer_s() (MPI: wall clock; NCCL: CUDA events). Where comm.supports_in_place(), each
/// size is measured a second time in place (nccl-tests' TimeTest: BenchTime(in_place = 0),
/// then BenchTime(in_place = 1)), with the receive buffer sized max(send, recv) for it.
/// Progress lines go to `progress` on rank 0 only. Cost: (warmup + iters + 1) calls per size
/// and placement; sends real traffic between the ranks.
/// Errors: kInvalidArgument (options, root >= ranks), kUnavailable (allocation, MPI, CUDA or
/// NCCL failure, naming the rank and host).
Result<BenchResult> run_collective_bench(Comm& comm, const BenchOptions& options,
                                         const Progress& progress, const BenchStepSink& on_step = {});

/// The `data` object of schema fabdiag.bench/1:
///   {collective, backend, dtype, ranks, hosts[], warmup, iters, root, graph_launches,
///    busbw_factor, algbw_factor, devices: [{rank, pid, device, bus_id, name}],
///    results: [{size_bytes, count, time_s, algbw_bytes_per_s, busbw_bytes_per_s,
///               wrong_elements, per_rank_time_s[], per_rank_iteration_max_s[],
///               with a skew probe: entry_lateness_s[], wait_s[], skew_iteration_s,
///               iteration_stats: {samples, min_s, max_s, p50_s, p99_s, mean_s, cv},
///               in_place: {the same members but size_bytes and count; wrong_elements null
///                          when not checked}  (absent when not measured)}],
///    stopped_early: {size_bytes, busbw_bytes_per_s, threshold_bytes_per_s, sizes_not_run[],
///                    reason}  (only when BenchOptions::stop ended the sweep)}
void to_json(nlohmann::json& j, const BenchResult& r);

/// Findings of a run: one critical L1 `data_corruption` per rank that received wrong elements,
/// with the wrong count per size and placement (out of place, in place) as evidence. Empty when every check passed.
std::vector<Finding> bench_findings(const BenchResult& r);

}  // namespace fabdiag::perf
