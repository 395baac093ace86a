#include "perf/collective_bench.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <unistd.h>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "perf/bandwidth.h"
#include "perf/data_check.h"
#include "perf/iterations.h"
#include "core/text.h"

namespace fabdiag::perf {

namespace {

Status run_once(Comm& comm, const BenchOptions& o, const CollectiveShape& s, const void* send,
                void* recv) {
  switch (o.collective) {
    case Collective::kAllReduce: return comm.all_reduce(send, recv, s.count, o.dtype);
    case Collective::kAllGather: return comm.all_gather(send, recv, s.count, o.dtype);
    case Collective::kReduceScatter: return comm.reduce_scatter(send, recv, s.count, o.dtype);
    case Collective::kAlltoall: return comm.alltoall(send, recv, s.count, o.dtype);
    case Collective::kBroadcast: return comm.broadcast(send, recv, s.count, o.dtype, o.root);
    case Collective::kReduce: return comm.reduce(send, recv, s.count, o.dtype, o.root);
    case Collective::kSendrecv: {
      const int n = comm.size(), r = comm.rank();
      return comm.sendrecv(send, s.count, (r + 1) % n, recv, s.count, (r - 1 + n) % n, o.dtype);
    }
    case Collective::kGather: return comm.gather(send, recv, s.count, o.dtype, o.root);
    case Collective::kScatter: return comm.scatter(send, recv, s.count, o.dtype, o.root);
    case Collective::kHypercube: return comm.hypercube(send, recv, s.count, o.dtype);
  }
  return Ok{};
}

std::string size_label(const BenchOptions& o, uint64_t size_bytes) {
  return std::string(to_string(o.collective)) + " at " + std::to_string(size_bytes) + " bytes";
}

// The send and receive buffers of a run: host memory, and device memory as well when the
// Comm's collectives take it (the host buffers then stage the pattern in and the result out).
// place() picks the pointers of the next calls: the two buffers (out of place), or both inside
// the receive buffer at CollectiveShape's in-place offsets (in place; nccl-tests common.cu
// startColl: recvBuff + sendInplaceOffset*rank, recvBuff + recvInplaceOffset*rank).
class BenchBuffers {
 public:
  explicit BenchBuffers(Comm& comm) : comm_(comm) {}
  ~BenchBuffers() {
    comm_.free_device(dev_send_);
    comm_.free_device(dev_recv_);
  }
  BenchBuffers(const BenchBuffers&) = delete;
  BenchBuffers& operator=(const BenchBuffers&) = delete;

  // `recv_bytes` must hold max(send, recv) of every size when in-place calls follow.
  Status allocate(uint64_t send_bytes, uint64_t recv_bytes) {
    try {
      send_.assign(send_bytes, 0);
      recv_.assign(recv_bytes, 0);
    } catch (const std::exception&) {  // bad_alloc, or length_error past vector::max_size()
      return make_error(ErrorCode::kUnavailable,
                        "cannot allocate " + std::to_string(send_bytes + recv_bytes) +
                            " bytes of host memory for the buffers; lower the max size (-e)",
                        comm_.describe_rank(comm_.rank()));
    }
    if (!comm_.uses_device_buffers()) return Ok{};
    for (auto [bytes, slot] : {std::pair{send_bytes, &dev_send_}, std::pair{recv_bytes, &dev_recv_}}) {
      auto buf = comm_.allocate_device(bytes > 0 ? bytes : 1);
      if (!buf) return buf.error().with_context("allocating " + std::to_string(bytes) + " bytes of device memory");
      *slot = *buf;
    }
    return Ok{};
  }

  // The pattern of `rank` into the host send buffer only (the host step's extra passes).
  void refill(DataType dtype, const CollectiveShape& s, int rank) { fill_pattern(dtype, send_.data(), s.send_count, rank); }

  // The next calls' pointers at shape `s` on `rank`, out of place or in place.
  void place(DataType dtype, const CollectiveShape& s, int rank, bool in_place) {
    const size_t ws = dtype_size_bytes(dtype), r = static_cast<size_t>(rank);
    in_place_ = in_place;
    send_off_ = in_place ? s.send_in_place_offset * r * ws : 0;
    recv_off_ = in_place ? s.recv_in_place_offset * r * ws : 0;
  }

  // A poison value (0xa5) into the receive buffer, then the pattern of `rank` where the calls
  // read their input (the send buffer, or its place inside the receive buffer).
  Status prepare(DataType dtype, const CollectiveShape& s, int rank) {
    const size_t ws = dtype_size_bytes(dtype);
    const size_t recv_bytes = (in_place_ ? std::max(s.send_count, s.recv_count) : s.recv_count) * ws;
    if (!recv_.empty()) std::memset(recv_.data(), 0xa5, recv_bytes);
    unsigned char* input = in_place_ ? recv_.data() + send_off_ : send_.data();
    fill_pattern(dtype, input, s.send_count, rank);
    if (!comm_.uses_device_buffers()) return Ok{};
    if (!in_place_)
      if (auto st = comm_.copy_to_device(dev_send_, send_.data(), s.send_count * ws); !st) return st;
    return comm_.copy_to_device(dev_recv_, recv_.data(), recv_bytes);
  }

  // The output as the last call left it (recv_count elements at the receive pointer), in host memory.
  Result<const unsigned char*> result(DataType dtype, const CollectiveShape& s) {
    if (comm_.uses_device_buffers()) {
      const auto* from = static_cast<const unsigned char*>(dev_recv_) + recv_off_;
      if (auto st = comm_.copy_from_device(recv_.data(), from, s.recv_count * dtype_size_bytes(dtype)); !st)
        return st.error();
      return recv_.data();
    }
    return recv_.data() + recv_off_;
  }

  const void* send() {
    if (in_place_) return base_recv() + send_off_;
    return comm_.uses_device_buffers() ? dev_send_ : send_.data();
  }
  void* recv() { return base_recv() + recv_off_; }

 private:
  unsigned char* base_recv() {
    return comm_.uses_device_buffers() ? static_cast<unsigned char*>(dev_recv_) : recv_.data();
  }
  Comm& comm_;
  std::vector<unsigned char> send_, recv_;
  void* dev_send_ = nullptr;
  void* dev_recv_ = nullptr;
  bool in_place_ = false;
  size_t send_off_ = 0, recv_off_ = 0;  // bytes into the receive buffer (in place)
};

// What one rank measured at one size: the timed loop's seconds and its laps (one per call, or
// one per graph launch with -G).
struct RankTiming {
  double elapsed_s = 0;
  std::vector<double> laps_s;
};

// The timed loop: -n calls one by one, or (-G N) -n calls captured into a graph that is then
// launched N times. With a graph the buffers are prepared again after the capture, so the data
// check sees what the graph's launches wrote, not what the warm-up left.
Result<RankTiming> timed_loop(Comm& comm, const BenchOptions& o, const CollectiveShape& s, BenchBuffers& bufs) {
  const bool graph = o.graph_launches > 0;
  if (graph) {
    if (auto st = comm.begin_graph_capture(); !st) return st.error().with_context("capturing the CUDA graph");
    for (int i = 0; i < o.iters; ++i)
      if (auto st = run_once(comm, o, s, bufs.send(), bufs.recv()); !st)
        return st.error().with_context("capturing the CUDA graph");
    if (auto st = comm.end_graph_capture(); !st) return st.error().with_context("capturing the CUDA graph");
    if (auto st = bufs.prepare(o.dtype, s, comm.rank()); !st) return st.error();
  }
  const int laps = graph ? o.graph_launches : o.iters;
  if (auto st = comm.prepare_laps(laps); !st) return st.error();
  if (auto st = comm.barrier(); !st) return st.error().with_context("barrier");
  if (auto st = comm.start_timer(); !st) return st.error().with_context("timer");
  for (int i = 0; i < laps; ++i) {
    auto st = graph ? comm.launch_graph() : run_once(comm, o, s, bufs.send(), bufs.recv());
    if (!st) return st.error().with_context(graph ? "launching the CUDA graph" : "timed loop");
    if (auto lap = comm.lap_timer(); !lap) return lap.error().with_context("timer");
  }
  RankTiming t;
  auto elapsed_s = comm.stop_timer_s();
  if (!elapsed_s) return elapsed_s.error().with_context("timer");
  auto laps_s = comm.lap_times_s();
  if (!laps_s) return laps_s.error().with_context("timer");
  t.elapsed_s = *elapsed_s;
  t.laps_s = std::move(*laps_s);
  if (graph)
    for (double& l : t.laps_s) l /= o.iters;
  return t;
}

// The host step of a skew-probe call: the send buffer rewritten with the pattern until
// kHostStepBytes are written (at least once), the last pass through prepare() (which also
// poisons the receive buffer), so the data check still sees a freshly prepared call.
Status host_step(const BenchOptions& o, const CollectiveShape& s, BenchBuffers& bufs, int rank) {
  const uint64_t bytes = std::max<uint64_t>(1, s.send_count * dtype_size_bytes(o.dtype));
  for (uint64_t written = bytes; written < kHostStepBytes; written += bytes) bufs.refill(o.dtype, s, rank);
  return bufs.prepare(o.dtype, s, rank);
}

// The skew probe (BenchOptions::skew_iters): after a barrier, per call a host step, then the
// collective stamped at entry and exit in seconds since this rank left the barrier; every
// rank's stamps gathered into sync_skew().
Result<SyncSkew> skew_probe(Comm& comm, const BenchOptions& o, const CollectiveShape& s, BenchBuffers& bufs) {
  std::vector<double> entry_s, exit_s;
  if (auto st = comm.barrier(); !st) return st.error().with_context("barrier");
  const double t0 = comm.wall_time_s();
  for (int i = 0; i < o.skew_iters; ++i) {
    if (auto st = host_step(o, s, bufs, comm.rank()); !st) return st.error();
    entry_s.push_back(comm.wall_time_s() - t0);
    if (auto st = run_once(comm, o, s, bufs.send(), bufs.recv()); !st) return st.error().with_context("skew probe");
    exit_s.push_back(comm.wall_time_s() - t0);
  }
  auto entries = comm.allgather_strings(pack_doubles(entry_s));
  if (!entries) return entries.error();
  auto exits = comm.allgather_strings(pack_doubles(exit_s));
  if (!exits) return exits.error();
  std::vector<std::vector<double>> all_entry, all_exit;
  for (const auto& packed : *entries) all_entry.push_back(unpack_doubles(packed));
  for (const auto& packed : *exits) all_exit.push_back(unpack_doubles(packed));
  return sync_skew(all_entry, all_exit);
}

// The skew probe after the timed loop, out of place on host memory only (NCCL returns before
// the GPU finishes: host stamps would mean nothing). Its last call leaves a freshly prepared
// output, so the data check that follows still checks one call on fresh input.
Status probe_skew(Comm& comm, const BenchOptions& o, const CollectiveShape& s, BenchBuffers& bufs, bool in_place,
                  PlacementResult& row) {
  if (o.skew_iters <= 0 || in_place || comm.uses_device_buffers()) return Ok{};
  auto probed = skew_probe(comm, o, s, bufs);
  if (!probed) return probed.error();
  row.skew = std::move(*probed);
  return Ok{};
}

// Every rank's times into the row: average per call, the slowest rank, per-iteration statistics.
Status collect_times(Comm& comm, const BenchOptions& o, const RankTiming& mine, PlacementResult& row) {
  const double calls = static_cast<double>(o.iters) * (o.graph_launches > 0 ? o.graph_launches : 1);
  auto times = comm.allgather_double(mine.elapsed_s / calls);
  if (!times) return times.error();
  auto laps = comm.allgather_strings(pack_doubles(mine.laps_s));
  if (!laps) return laps.error();
  row.per_rank_time_s = std::move(*times);
  auto slowest = std::max_element(row.per_rank_time_s.begin(), row.per_rank_time_s.end());
  row.slowest_rank = static_cast<int>(slowest - row.per_rank_time_s.begin());
  row.time_s = *slowest;
  std::vector<std::vector<double>> per_rank_laps;
  for (const auto& packed : *laps) {
    per_rank_laps.push_back(unpack_doubles(packed));
    const auto& l = per_rank_laps.back();
    row.per_rank_iteration_max_s.push_back(l.empty() ? 0.0 : *std::max_element(l.begin(), l.end()));
  }
  row.iterations = iteration_stats(max_over_ranks(per_rank_laps));
  return Ok{};
}

// The call the in-place data check reads: the pattern in again, one call (with -G captured into
// a graph and launched once, so a graph that does not replay shows as wrong data).
Status checked_call(Comm& comm, const BenchOptions& o, const CollectiveShape& s, BenchBuffers& bufs) {
  if (auto st = bufs.prepare(o.dtype, s, comm.rank()); !st) return st;
  if (o.graph_launches == 0) return run_once(comm, o, s, bufs.send(), bufs.recv());
  if (auto st = comm.begin_graph_capture(); !st) return st;
  if (auto st = run_once(comm, o, s, bufs.send(), bufs.recv()); !st) return st;
  if (auto st = comm.end_graph_capture(); !st) return st;
  return comm.launch_graph();
}

// In-place alltoall is timed but not checked, as nccl-tests does (src/alltoall.cu).
bool checks_placement(Collective c, bool in_place) { return !(in_place && c == Collective::kAlltoall); }

// One size in one placement: warm-up, barrier, timed loop, data check; every rank's time and
// wrong count.
Result<PlacementResult> measure_placement(Comm& comm, const BenchOptions& o, const CollectiveShape& s,
                                          BenchBuffers& bufs, bool in_place) {
  const int n = comm.size(), me = comm.rank();
  const std::string what = size_label(o, s.size_bytes) + (in_place ? " (in place)" : "");
  bufs.place(o.dtype, s, me, in_place);
  if (auto st = bufs.prepare(o.dtype, s, me); !st) return st.error().with_context("buffers of " + what);
  for (int w = 0; w < o.warmup_iters; ++w)
    if (auto st = run_once(comm, o, s, bufs.send(), bufs.recv()); !st)
      return st.error().with_context("warm-up of " + what);
  auto timing = timed_loop(comm, o, s, bufs);
  if (!timing) return timing.error().with_context(what);
  // Out of place the receive buffer holds the last timed iteration's output: check it. In
  // place each call consumed the last one's output (an all_reduce summed the sums), so the
  // pattern goes in again and one more call is checked, as nccl-tests' BenchTime does
  // (initData, then one startColl, then CheckData; with -G that call is a graph too).
  PlacementResult row;
  if (auto st = probe_skew(comm, o, s, bufs, in_place, row); !st) return st.error().with_context(what);
  if (in_place)
    if (auto st = checked_call(comm, o, s, bufs); !st) return st.error().with_context("data check of " + what);
  auto recv = bufs.result(o.dtype, s);
  if (!recv) return recv.error().with_context("copying back the result of " + what);
  row.checked = checks_placement(o.collective, in_place);
  const uint64_t my_wrong = row.checked ? count_wrong_elements(o.collective, o.dtype, s, *recv, me, n, o.root) : 0;
  if (auto st = collect_times(comm, o, *timing, row); !st)
    return st.error().with_context("collecting per-rank times of " + what);
  auto wrongs = comm.allgather_double(static_cast<double>(my_wrong));
  if (!wrongs) return wrongs.error().with_context("collecting data-check results of " + what);
  const double size = static_cast<double>(s.size_bytes);
  row.algbw_bytes_per_s = algbw_bytes_per_s(o.collective, size, row.time_s, n);
  row.busbw_bytes_per_s = busbw_bytes_per_s(o.collective, size, row.time_s, n);
  for (double w : *wrongs) {
    row.per_rank_wrong_elements.push_back(static_cast<uint64_t>(w));
    row.wrong_elements += static_cast<uint64_t>(w);
  }
  return row;
}

// One size: out of place, then in place where the Comm supports it (nccl-tests TimeTest order).
Result<SizeResult> measure_size(Comm& comm, const BenchOptions& o, const CollectiveShape& s, BenchBuffers& bufs) {
  auto out_of_place = measure_placement(comm, o, s, bufs, false);
  if (!out_of_place) return out_of_place.error();
  SizeResult row;
  static_cast<PlacementResult&>(row) = std::move(*out_of_place);
  row.size_bytes = s.size_bytes;
  row.count = s.count;
  if (comm.supports_in_place()) {
    auto in_place = measure_placement(comm, o, s, bufs, true);
    if (!in_place) return in_place.error();
    row.in_place = std::move(*in_place);
  }
  return row;
}

// Every rank's process id and device, gathered once.
Result<std::vector<BenchRankDevice>> gather_devices(Comm& comm) {
  const Comm::DeviceInfo mine = comm.device_info();
  const std::string packed = std::to_string(static_cast<long long>(getpid())) + "\n" +
                             std::to_string(mine.index) + "\n" + mine.bus_id + "\n" + mine.name;
  auto all = comm.allgather_strings(packed);
  if (!all) return all.error().with_context("collecting the ranks' devices");
  std::vector<BenchRankDevice> out;
  for (const auto& text : *all) {
    std::vector<std::string> f;
    size_t from = 0;
    for (int k = 0; k < 3; ++k) {
      size_t nl = text.find('\n', from);
      if (nl == std::string::npos) nl = text.size();
      f.push_back(text.substr(from, nl - from));
      from = std::min(text.size(), nl + 1);
    }
    f.push_back(text.substr(from));
    BenchRankDevice d;
    d.pid = parse_i64(f[0]).value_or(0);
    d.device.index = static_cast<int>(parse_i64(f[1]).value_or(-1));
    d.device.bus_id = f[2];
    d.device.name = f[3];
    out.push_back(std::move(d));
  }
  return out;
}

// Rank 0's progress line of a finished size.
std::string size_line(const BenchOptions& o, const SizeResult& row) {
  char line[256];
  int at = std::snprintf(line, sizeof line, "%s: %.1f us, busbw %.3f GB/s, %llu wrong", size_label(o, row.size_bytes).c_str(),
                         row.time_s * 1e6, row.busbw_bytes_per_s / 1e9, static_cast<unsigned long long>(row.wrong_elements));
  if (row.in_place && at > 0 && static_cast<size_t>(at) < sizeof line)
    std::snprintf(line + at, sizeof line - static_cast<size_t>(at), "; in place %.1f us, busbw %.3f GB/s",
                  row.in_place->time_s * 1e6, row.in_place->busbw_bytes_per_s / 1e9);
  return line;
}

// Rank 0's progress line of a sweep that stopped early.
std::string stop_line(const BenchOptions& o, const EarlyStop& e) {
  char line[160];
  std::snprintf(line, sizeof line, "%s: stopped early, busbw %.3f GB/s below %.3f GB/s, %zu larger size(s) not run: ",
                size_label(o, e.size_bytes).c_str(), e.busbw_bytes_per_s / 1e9, e.threshold_bytes_per_s / 1e9,
                e.sizes_not_run.size());
  return line + e.why;
}

// What a sweep stopped after shapes[next - 1] records.
EarlyStop early_stop(const SweepStop& stop, const SizeResult& row, const std::vector<CollectiveShape>& shapes,
                     size_t next) {
  EarlyStop e{row.size_bytes, row.busbw_bytes_per_s, stop.below_busbw_bytes_per_s, {}, stop.why};
  for (size_t k = next; k < shapes.size(); ++k) e.sizes_not_run.push_back(shapes[k].size_bytes);
  return e;
}

}  // namespace

Status validate_bench_options(const BenchOptions& o) {
  if (auto st = validate_sweep(o.sweep); !st) return st;
  if (o.sweep.max_bytes > kMaxBenchBytes)
    return make_error(ErrorCode::kInvalidArgument,
                      "max size (-e) " + std::to_string(o.sweep.max_bytes) + " bytes is above the largest benchmark size " +
                          format_size_bytes(kMaxBenchBytes) + " (the buffers live in host memory)");
  if (auto st = validate_iterations(o.iters, o.warmup_iters); !st) return st;
  if (o.root < 0)
    return make_error(ErrorCode::kInvalidArgument, "root must be >= 0");
  if (o.graph_launches < 0 || o.graph_launches > kMaxGraphLaunches)
    return make_error(ErrorCode::kInvalidArgument,
                      "-G " + std::to_string(o.graph_launches) + ": graph launches must be 0.." +
                          std::to_string(kMaxGraphLaunches));
  if (o.skew_iters < 0 || o.skew_iters > kMaxSkewIters)
    return make_error(ErrorCode::kInvalidArgument, "skew iterations " + std::to_string(o.skew_iters) +
                                                       " must be 0.." + std::to_string(kMaxSkewIters));
  if (auto st = validate_sweep_stop(o.stop); !st) return st;
  const bool reduces = o.collective == Collective::kAllReduce ||
                       o.collective == Collective::kReduceScatter ||
                       o.collective == Collective::kReduce;
  if (reduces && o.dtype == DataType::kUint8)
    return make_error(ErrorCode::kInvalidArgument,
                      std::string(to_string(o.collective)) +
                          " with uint8: 8-bit sums overflow and MPI libraries disagree on what "
                          "overflow gives (Open MPI's AVX op saturates, open-mpi/ompi#8045), so "
                          "the data check would report false corruption; use int32 or float");
  return Ok{};
}

Result<BenchResult> run_collective_bench(Comm& comm, const BenchOptions& o,
                                         const Progress& progress, const BenchStepSink& on_step) {
  if (auto st = validate_bench_options(o); !st) return st.error();
  const int n = comm.size(), me = comm.rank();
  if (o.root >= n)
    return make_error(ErrorCode::kInvalidArgument,
                      "root " + std::to_string(o.root) + " is not a rank (" + std::to_string(n) +
                          " ranks)");
  if (o.collective == Collective::kHypercube && (n & (n - 1)) != 0)
    return make_error(ErrorCode::kInvalidArgument,
                      "hypercube needs a power-of-two rank count (nccl-tests skips it otherwise), not " +
                          std::to_string(n));
  const size_t ws = dtype_size_bytes(o.dtype);

  std::vector<CollectiveShape> shapes;
  for (uint64_t requested : sweep_sizes(o.sweep)) {
    CollectiveShape s = collective_shape(o.collective, requested, o.dtype, n);
    if (s.count > 0) shapes.push_back(s);
  }
  uint64_t max_send = 0, max_recv = 0;
  const bool in_place = comm.supports_in_place();
  for (const auto& s : shapes) {
    max_send = std::max(max_send, s.send_count * ws);
    max_recv = std::max(max_recv, (in_place ? std::max(s.send_count, s.recv_count) : s.recv_count) * ws);
  }
  BenchBuffers bufs(comm);
  if (auto st = bufs.allocate(max_send, max_recv); !st) return st.error();
  auto devices = gather_devices(comm);
  if (!devices) return devices.error();

  BenchResult out;
  out.collective = o.collective;
  out.dtype = o.dtype;
  out.ranks = n;
  out.hosts = comm.hosts();
  out.warmup_iters = o.warmup_iters;
  out.iters = o.iters;
  out.root = o.root;
  out.graph_launches = o.graph_launches;
  out.devices = std::move(*devices);

  auto step = [&](size_t next) {
    if (!on_step) return;
    std::vector<uint64_t> left;
    for (size_t k = next; k < shapes.size(); ++k) left.push_back(shapes[k].size_bytes);
    on_step(out, left);
  };
  for (size_t k = 0; k < shapes.size(); ++k) {
    step(k);
    auto row = measure_size(comm, o, shapes[k], bufs);
    if (!row) return row.error();
    if (me == 0) progress(size_line(o, *row));
    const bool probe_expected = o.skew_iters > 0 && !comm.uses_device_buffers();
    const bool stop = stops_sweep(o.stop, row->size_bytes, row->busbw_bytes_per_s, probe_expected,
                                  !row->skew.entry_lateness_s.empty());
    out.results.push_back(std::move(*row));
    if (stop) {
      out.stopped_early = early_stop(o.stop, out.results.back(), shapes, k + 1);
      if (me == 0) progress(stop_line(o, *out.stopped_early));
      break;
    }
  }
  step(shapes.size());
  return out;
}

namespace {

// The members of one placement in a results[] row (wrong_elements null when not checked).
nlohmann::json placement_json(const PlacementResult& p) {
  const IterationStats& it = p.iterations;
  nlohmann::json j = {{"time_s", p.time_s},
          {"algbw_bytes_per_s", p.algbw_bytes_per_s},
          {"busbw_bytes_per_s", p.busbw_bytes_per_s},
          {"wrong_elements", p.checked ? nlohmann::json(p.wrong_elements) : nlohmann::json(nullptr)},
          {"per_rank_time_s", p.per_rank_time_s},
          {"per_rank_iteration_max_s", p.per_rank_iteration_max_s},
          {"iteration_stats", {{"samples", it.samples}, {"min_s", it.min_s}, {"max_s", it.max_s}, {"p50_s", it.p50_s},
                               {"p99_s", it.p99_s}, {"mean_s", it.mean_s}, {"cv", it.cv}}}};
  if (!p.skew.entry_lateness_s.empty()) {
    j["entry_lateness_s"] = p.skew.entry_lateness_s;
    j["wait_s"] = p.skew.wait_s;
    j["skew_iteration_s"] = p.skew.iteration_s;
  }
  return j;
}

}  // namespace

void to_json(nlohmann::json& j, const BenchResult& r) {
  j = nlohmann::json::object();
  j["collective"] = to_string(r.collective);
  j["backend"] = r.backend;
  j["dtype"] = to_string(r.dtype);
  j["ranks"] = r.ranks;
  j["hosts"] = r.hosts;
  j["warmup"] = r.warmup_iters;
  j["iters"] = r.iters;
  j["root"] = r.root;
  j["graph_launches"] = r.graph_launches;
  j["busbw_factor"] = busbw_factor_formula(r.collective);
  j["algbw_factor"] = algbw_factor_formula(r.collective);
  j["devices"] = nlohmann::json::array();
  for (size_t k = 0; k < r.devices.size(); ++k) {
    const auto& d = r.devices[k];
    j["devices"].push_back({{"rank", k}, {"pid", d.pid}, {"device", d.device.index},
                            {"bus_id", d.device.bus_id}, {"name", d.device.name}});
  }
  j["results"] = nlohmann::json::array();
  for (const auto& row : r.results) {
    nlohmann::json out = {{"size_bytes", row.size_bytes}, {"count", row.count}};
    out.update(placement_json(row));
    if (row.in_place) out["in_place"] = placement_json(*row.in_place);
    j["results"].push_back(std::move(out));
  }
  if (const auto& e = r.stopped_early)
    j["stopped_early"] = {{"size_bytes", e->size_bytes}, {"busbw_bytes_per_s", e->busbw_bytes_per_s},
                          {"threshold_bytes_per_s", e->threshold_bytes_per_s}, {"sizes_not_run", e->sizes_not_run},
                          {"reason", e->why}};
}

std::vector<Finding> bench_findings(const BenchResult& r) {
  std::vector<Finding> out;
  for (int rank = 0; rank < r.ranks; ++rank) {
    Finding f;
    uint64_t total = 0;
    for (const auto& row : r.results)
      for (const PlacementResult* half : {static_cast<const PlacementResult*>(&row),
                                          row.in_place ? &*row.in_place : nullptr}) {
        if (!half) continue;
        const size_t k = static_cast<size_t>(rank);
        const uint64_t w = k < half->per_rank_wrong_elements.size() ? half->per_rank_wrong_elements[k] : 0;
        if (w == 0) continue;
        total += w;
        const std::string where = half == &row ? "" : " in place";
        f.evidence.push_back(Evidence::number("wrong elements at " + std::to_string(row.size_bytes) + " bytes" + where,
                                              static_cast<double>(w), "count",
                                              std::string(to_string(r.collective)) + " data check of rank " +
                                                  std::to_string(rank) + " (" + std::to_string(row.count) +
                                                  " elements" + where + ")")
                                 .expect(0, ""));
      }
    if (total == 0) continue;
    const std::string host =
        static_cast<size_t>(rank) < r.hosts.size() ? r.hosts[static_cast<size_t>(rank)] : "?";
    f.severity = Severity::kCritical;
    f.layer = Layer::kCollective;
    f.code = "data_corruption";
    f.subject = host;
    f.message = "rank " + std::to_string(rank) + " (" + host + ") received " +
                std::to_string(total) + " wrong elements in " + to_string(r.collective) +
                " (" + r.backend + " backend): data was corrupted in flight or in memory";
    f.action = "Rerun to confirm; then check " + host +
               "'s memory (EDAC/ECC errors in dmesg), NIC and PCIe error counters "
               "(fabdiag counters, fabdiag check) and take it out of service if it repeats";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace fabdiag::perf
