#include "perf/collective_bench.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>

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
  std::vector<unsigned char> send, recv;
  try {
    send.assign(max_send, 0);
    recv.assign(max_recv, 0);
  } catch (const std::exception&) {  // bad_alloc, or length_error past vector::max_size()
    return make_error(ErrorCode::kUnavailable,
                      "cannot allocate " + std::to_string(max_send + max_recv) +
                          " bytes of host memory for the buffers; lower the max size (-e)",
                      comm.describe_rank(me));
  }

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
    const CollectiveShape& s = shapes[k];
    const std::string what = size_label(o, s.size_bytes);
    fill_pattern(o.dtype, send.data(), s.send_count, me);
    if (!recv.empty()) std::memset(recv.data(), 0xa5, s.recv_count * ws);
    for (int w = 0; w < o.warmup_iters; ++w)
      if (auto st = run_once(comm, o, s, send.data(), recv.data()); !st)
        return st.error().with_context("warm-up of " + what);
    if (auto st = comm.barrier(); !st) return st.error().with_context("barrier before " + what);
    const double t0 = comm.wall_time_s();
    for (int i = 0; i < o.iters; ++i)
      if (auto st = run_once(comm, o, s, send.data(), recv.data()); !st)
        return st.error().with_context("timed loop of " + what);
    const double my_time_s = (comm.wall_time_s() - t0) / o.iters;
    // The receive buffer holds the last timed iteration's output: check it.
    const uint64_t my_wrong =
        count_wrong_elements(o.collective, o.dtype, s, recv.data(), me, n, o.root);

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
    row.busbw_bytes_per_s =
        busbw_bytes_per_s(o.collective, static_cast<double>(s.size_bytes), row.time_s, n);
    for (double w : *wrongs) {
      row.per_rank_wrong_elements.push_back(static_cast<uint64_t>(w));
      row.wrong_elements += static_cast<uint64_t>(w);
    }
    if (me == 0) {
      char line[160];
      std::snprintf(line, sizeof line, "%s: %.1f us, busbw %.3f GB/s, %llu wrong", what.c_str(),
                    row.time_s * 1e6, row.busbw_bytes_per_s / 1e9,
                    static_cast<unsigned long long>(row.wrong_elements));
      progress(line);
    }
    out.results.push_back(std::move(row));
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
