#include "perf/collective_bench.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "perf/bandwidth.h"
#include "perf/data_check.h"
#include "perf/iterations.h"

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
  }
  return Ok{};
}

std::string size_label(const BenchOptions& o, uint64_t size_bytes) {
  return std::string(to_string(o.collective)) + " at " + std::to_string(size_bytes) + " bytes";
}

// The send and receive buffers of a run: host memory, and device memory as well when the
// Comm's collectives take it (the host buffers then stage the pattern in and the result out).
class BenchBuffers {
 public:
  explicit BenchBuffers(Comm& comm) : comm_(comm) {}
  ~BenchBuffers() {
    comm_.free_device(dev_send_);
    comm_.free_device(dev_recv_);
  }
  BenchBuffers(const BenchBuffers&) = delete;
  BenchBuffers& operator=(const BenchBuffers&) = delete;

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

  // The pattern of `rank` into the send buffer, a poison value (0xa5) into the receive buffer.
  Status prepare(DataType dtype, const CollectiveShape& s, int rank) {
    const size_t ws = dtype_size_bytes(dtype);
    fill_pattern(dtype, send_.data(), s.send_count, rank);
    if (!recv_.empty()) std::memset(recv_.data(), 0xa5, s.recv_count * ws);
    if (!comm_.uses_device_buffers()) return Ok{};
    if (auto st = comm_.copy_to_device(dev_send_, send_.data(), s.send_count * ws); !st) return st;
    return comm_.copy_to_device(dev_recv_, recv_.data(), s.recv_count * ws);
  }

  // The receive buffer as the last call left it, in host memory.
  Result<const unsigned char*> result(DataType dtype, const CollectiveShape& s) {
    if (comm_.uses_device_buffers())
      if (auto st = comm_.copy_from_device(recv_.data(), dev_recv_, s.recv_count * dtype_size_bytes(dtype)); !st)
        return st.error();
    return recv_.data();
  }

  const void* send() const { return comm_.uses_device_buffers() ? dev_send_ : send_.data(); }
  void* recv() { return comm_.uses_device_buffers() ? dev_recv_ : recv_.data(); }

 private:
  Comm& comm_;
  std::vector<unsigned char> send_, recv_;
  void* dev_send_ = nullptr;
  void* dev_recv_ = nullptr;
};

// One size: warm-up, barrier, timed loop, data check; every rank's time and wrong count.
Result<SizeResult> measure_size(Comm& comm, const BenchOptions& o, const CollectiveShape& s,
                                BenchBuffers& bufs) {
  const int n = comm.size(), me = comm.rank();
  const std::string what = size_label(o, s.size_bytes);
  if (auto st = bufs.prepare(o.dtype, s, me); !st) return st.error().with_context("buffers of " + what);
  for (int w = 0; w < o.warmup_iters; ++w)
    if (auto st = run_once(comm, o, s, bufs.send(), bufs.recv()); !st)
      return st.error().with_context("warm-up of " + what);
  if (auto st = comm.barrier(); !st) return st.error().with_context("barrier before " + what);
  if (auto st = comm.start_timer(); !st) return st.error().with_context("timer of " + what);
  for (int i = 0; i < o.iters; ++i)
    if (auto st = run_once(comm, o, s, bufs.send(), bufs.recv()); !st)
      return st.error().with_context("timed loop of " + what);
  auto elapsed_s = comm.stop_timer_s();
  if (!elapsed_s) return elapsed_s.error().with_context("timer of " + what);
  const double my_time_s = *elapsed_s / o.iters;
  // The receive buffer holds the last timed iteration's output: check it.
  auto recv = bufs.result(o.dtype, s);
  if (!recv) return recv.error().with_context("copying back the result of " + what);
  const uint64_t my_wrong = count_wrong_elements(o.collective, o.dtype, s, *recv, me, n, o.root);

  auto times = comm.allgather_double(my_time_s);
  if (!times) return times.error().with_context("collecting per-rank times of " + what);
  auto wrongs = comm.allgather_double(static_cast<double>(my_wrong));
  if (!wrongs) return wrongs.error().with_context("collecting data-check results of " + what);

  SizeResult row;
  row.size_bytes = s.size_bytes;
  row.count = s.count;
  row.per_rank_time_s = std::move(*times);
  auto slowest = std::max_element(row.per_rank_time_s.begin(), row.per_rank_time_s.end());
  row.slowest_rank = static_cast<int>(slowest - row.per_rank_time_s.begin());
  row.time_s = *slowest;
  row.algbw_bytes_per_s = algbw_bytes_per_s(static_cast<double>(s.size_bytes), row.time_s);
  row.busbw_bytes_per_s = busbw_bytes_per_s(o.collective, static_cast<double>(s.size_bytes), row.time_s, n);
  for (double w : *wrongs) {
    row.per_rank_wrong_elements.push_back(static_cast<uint64_t>(w));
    row.wrong_elements += static_cast<uint64_t>(w);
  }
  return row;
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
  const size_t ws = dtype_size_bytes(o.dtype);

  std::vector<CollectiveShape> shapes;
  for (uint64_t requested : sweep_sizes(o.sweep)) {
    CollectiveShape s = collective_shape(o.collective, requested, o.dtype, n);
    if (s.count > 0) shapes.push_back(s);
  }
  uint64_t max_send = 0, max_recv = 0;
  for (const auto& s : shapes) {
    max_send = std::max(max_send, s.send_count * ws);
    max_recv = std::max(max_recv, s.recv_count * ws);
  }
  BenchBuffers bufs(comm);
  if (auto st = bufs.allocate(max_send, max_recv); !st) return st.error();

  BenchResult out;
  out.collective = o.collective;
  out.dtype = o.dtype;
  out.ranks = n;
  out.hosts = comm.hosts();
  out.warmup_iters = o.warmup_iters;
  out.iters = o.iters;
  out.root = o.root;

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
    if (me == 0) {
      char line[160];
      std::snprintf(line, sizeof line, "%s: %.1f us, busbw %.3f GB/s, %llu wrong",
                    size_label(o, row->size_bytes).c_str(), row->time_s * 1e6,
                    row->busbw_bytes_per_s / 1e9, static_cast<unsigned long long>(row->wrong_elements));
      progress(line);
    }
    out.results.push_back(std::move(*row));
  }
  step(shapes.size());
  return out;
}

void to_json(nlohmann::json& j, const BenchResult& r) {
  j = nlohmann::json::object();
  j["collective"] = to_string(r.collective);
  j["backend"] = r.backend;
  j["dtype"] = to_string(r.dtype);
  j["ranks"] = r.ranks;
  j["hosts"] = r.hosts;
  j["warmup"] = r.warmup_iters;
  j["iters"] = r.iters;
  j["busbw_factor"] = busbw_factor_formula(r.collective);
  j["results"] = nlohmann::json::array();
  for (const auto& row : r.results) {
    j["results"].push_back({{"size_bytes", row.size_bytes},
                            {"count", row.count},
                            {"time_s", row.time_s},
                            {"algbw_bytes_per_s", row.algbw_bytes_per_s},
                            {"busbw_bytes_per_s", row.busbw_bytes_per_s},
                            {"wrong_elements", row.wrong_elements},
                            {"per_rank_time_s", row.per_rank_time_s}});
  }
}

std::vector<Finding> bench_findings(const BenchResult& r) {
  std::vector<Finding> out;
  for (int rank = 0; rank < r.ranks; ++rank) {
    Finding f;
    uint64_t total = 0;
    for (const auto& row : r.results) {
      uint64_t w = static_cast<size_t>(rank) < row.per_rank_wrong_elements.size()
                       ? row.per_rank_wrong_elements[static_cast<size_t>(rank)]
                       : 0;
      if (w == 0) continue;
      total += w;
      f.evidence.push_back(Evidence::number("wrong elements at " + std::to_string(row.size_bytes) + " bytes",
                                            static_cast<double>(w), "count",
                                            std::string(to_string(r.collective)) + " data check of rank " +
                                                std::to_string(rank) + " (" + std::to_string(row.count) +
                                                " elements)")
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
