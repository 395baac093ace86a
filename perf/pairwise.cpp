#include "perf/pairwise.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <new>

#include "perf/iterations.h"
#include "perf/pair_link.h"

namespace fabdiag::perf {

std::vector<std::vector<RankPair>> round_robin_schedule(int n) {
  std::vector<std::vector<RankPair>> rounds;
  if (n < 2) return rounds;
  const int m = n % 2 == 0 ? n : n + 1;  // odd n: slot m-1 (== n) is the bye
  std::vector<int> ring(static_cast<size_t>(m - 1));
  for (int i = 0; i < m - 1; ++i) ring[static_cast<size_t>(i)] = i + 1;
  for (int round = 0; round < m - 1; ++round) {
    // Positions: 0 is fixed; positions 1..m-1 hold the ring rotated by `round`.
    auto at = [&](int pos) {
      return pos == 0 ? 0 : ring[static_cast<size_t>((pos - 1 + round) % (m - 1))];
    };
    std::vector<RankPair> pairs;
    for (int i = 0; i < m / 2; ++i) {
      int a = at(i), b = at(m - 1 - i);
      if (a >= n || b >= n) continue;  // paired with the bye: sits out
      pairs.emplace_back(std::min(a, b), std::max(a, b));
    }
    std::sort(pairs.begin(), pairs.end());
    rounds.push_back(std::move(pairs));
  }
  return rounds;
}

Status validate_pairwise_options(const PairwiseOptions& o) {
  if (o.size_bytes == 0 || o.size_bytes > static_cast<uint64_t>(INT_MAX))
    return make_error(ErrorCode::kInvalidArgument,
                      "pair message size (--size) must be between 1 byte and 2G-1, got " +
                          std::to_string(o.size_bytes));
  return validate_iterations(o.iters, o.warmup_iters);
}

Result<std::vector<PairMeasurement>> run_pair_round(Comm& comm, const std::vector<RankPair>& pairs,
                                                    const PairwiseOptions& o) {
  if (auto st = validate_pairwise_options(o); !st) return st.error();
  if (auto st = validate_disjoint_pairs(pairs, comm.size()); !st) return st.error();
  const int me = comm.rank();
  const int peer = peer_of(pairs, me);
  auto pair_comm = pair_communicator(comm, pairs, o.split_pairs);
  if (!pair_comm) return pair_comm.error();
  // Where this rank's exchange runs: the pair's own communicator (ranks 0 and 1), or `comm`.
  Comm& link = *pair_comm ? **pair_comm : comm;
  const int link_peer = *pair_comm ? 1 - link.rank() : peer;
  PairBuffers buf(link);
  if (peer >= 0)
    if (auto st = buf.make(o.size_bytes, static_cast<unsigned char>(me)); !st) return st.error();
  auto exchange = [&]() -> Status {
    return link.sendrecv(buf.send, o.size_bytes, link_peer, buf.recv, o.size_bytes, link_peer, DataType::kUint8);
  };
  const std::string with = peer >= 0 ? "exchange with " + comm.describe_rank(peer) : "";
  if (peer >= 0)
    for (int w = 0; w < o.warmup_iters; ++w)
      if (auto st = exchange(); !st) return st.error().with_context("warm-up " + with);
  if (auto st = comm.barrier(); !st) return st.error().with_context("barrier before a pair round");
  double my_time_s = 0;
  if (peer >= 0) {
    // The Comm's timer: wall time for MPI, CUDA events around the exchanges on the GPU's stream
    // for NCCL (whose calls return before the data has moved).
    if (auto st = link.start_timer(); !st) return st.error().with_context("timed " + with);
    for (int i = 0; i < o.iters; ++i)
      if (auto st = exchange(); !st) return st.error().with_context("timed " + with);
    auto t = link.stop_timer_s();
    if (!t) return t.error().with_context("timed " + with);
    my_time_s = *t;
  }
  auto times = comm.allgather_double(my_time_s);
  if (!times) return times.error().with_context("collecting pair times");
  const double bytes = static_cast<double>(o.size_bytes) * o.iters;
  auto rate = [&](int r) {
    double t = (*times)[static_cast<size_t>(r)];
    return t > 0 ? bytes / t : NAN;
  };
  std::vector<PairMeasurement> out;
  for (const auto& [a, b] : pairs) out.push_back({a, b, rate(a), rate(b)});
  return out;
}

PairwiseMatrix make_empty_matrix(const std::vector<std::string>& hosts, uint64_t size_bytes,
                                 int iters) {
  PairwiseMatrix m;
  m.hosts = hosts;
  m.size_bytes = size_bytes;
  m.iters = iters;
  m.matrix_bytes_per_s.assign(hosts.size(), std::vector<double>(hosts.size(), NAN));
  return m;
}

void record_pair(PairwiseMatrix& matrix, const PairMeasurement& m) {
  const size_t n = matrix.matrix_bytes_per_s.size();
  if (m.a < 0 || m.b < 0 || static_cast<size_t>(m.a) >= n || static_cast<size_t>(m.b) >= n)
    return;
  matrix.matrix_bytes_per_s[static_cast<size_t>(m.a)][static_cast<size_t>(m.b)] =
      m.a_to_b_bytes_per_s;
  matrix.matrix_bytes_per_s[static_cast<size_t>(m.b)][static_cast<size_t>(m.a)] =
      m.b_to_a_bytes_per_s;
}

Result<PairwiseMatrix> run_pairwise(Comm& comm, const PairwiseOptions& o,
                                    const Progress& progress, const PairwiseStepSink& on_step) {
  if (auto st = validate_pairwise_options(o); !st) return st.error();
  PairwiseMatrix matrix = make_empty_matrix(unique_rank_labels(comm.hosts()), o.size_bytes, o.iters);
  matrix.rounds = round_robin_schedule(comm.size());
  const size_t total = matrix.rounds.size();
  for (size_t k = 0; k < total; ++k) {
    if (on_step) on_step(matrix, k);
    const std::string label = "round " + std::to_string(k + 1) + "/" + std::to_string(total);
    if (comm.rank() == 0)
      progress(label + ": " + std::to_string(matrix.rounds[k].size()) + " pairs");
    auto measured = run_pair_round(comm, matrix.rounds[k], o);
    if (!measured) return measured.error().with_context(label);
    for (const auto& m : *measured) record_pair(matrix, m);
  }
  if (on_step) on_step(matrix, total);
  return matrix;
}

}  // namespace fabdiag::perf
