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

namespace {

// Buffers of exchanges given up on: their requests stay posted, so MPI may still write or read
// them until the process ends.
std::vector<std::vector<unsigned char>>& given_up_buffers() {
  static auto* kept = new std::vector<std::vector<unsigned char>>();
  return *kept;
}

// This rank's part of a pair test with `peer`: each exchange is two one-way transfers, the lower
// rank's send first, each timed on its receiver and answered by a 1-byte token from the receiver,
// so the sender cannot start the next transfer before its data arrived. One direction at a time,
// because at once the acknowledgements of the incoming flow queue behind a slow egress and the
// receive direction looks slow too (measured on the emulated cluster: 9 MB/s in and 12 MB/s out
// of a node whose egress alone was at 100 Mbit/s; without the token, 12.5 MB/s both ways: the
// receive timer ran while the node's own send was still draining). Returns the sum of this
// rank's timed receive times (s), or minus the seconds waited when the test was given up.
Result<double> run_my_pair_test(Comm& comm, int peer, const PairwiseOptions& o) {
  const int me = comm.rank();
  std::vector<unsigned char> send, recv;
  try {
    send.assign(o.size_bytes, static_cast<unsigned char>(me));
    recv.assign(o.size_bytes, 0);
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::kUnavailable,
                      "cannot allocate 2 x " + std::to_string(o.size_bytes) + " bytes for the pair test; lower --size",
                      comm.describe_rank(me));
  }
  const std::string with = "exchange with " + comm.describe_rank(peer);
  const double t0 = comm.wall_time_s();
  double recv_s = 0;
  for (int i = 0; i < 4 * (o.warmup_iters + o.iters); ++i) {
    const bool is_token = i % 2 == 1;
    const bool i_send = ((i / 2) % 2 == 0) == (me < peer) ? !is_token : is_token;  // even transfers: the lower rank sends
    const double spent_s = comm.wall_time_s() - t0;
    double left_s = 0;
    if (o.give_up_after_s > 0) left_s = std::max(1e-3, o.give_up_after_s - spent_s);
    auto beat = [&](double waited_s) {
      if (o.on_wait)
        o.on_wait(comm.describe_rank(me) + ": " + with + " not complete after " +
                  std::to_string(static_cast<int>(spent_s + waited_s)) + " s" +
                  (o.give_up_after_s > 0 ? " (gives up at " + std::to_string(static_cast<int>(o.give_up_after_s)) + " s)" : ""));
    };
    // The token is the first byte of the buffers, which outlive a given-up request.
    auto t = comm.exchange_timed(i_send ? send.data() : nullptr, i_send ? nullptr : recv.data(), is_token ? 1 : o.size_bytes, peer,
                                 DataType::kUint8, left_s, o.heartbeat_s, beat);
    if (!t.ok()) return t.error().with_context(i < 4 * o.warmup_iters ? "warm-up " + with : "timed " + with);
    if (!t->completed) {
      given_up_buffers().push_back(std::move(send));
      given_up_buffers().push_back(std::move(recv));
      return -std::max(1e-3, comm.wall_time_s() - t0);
    }
    if (i >= 4 * o.warmup_iters && !i_send && !is_token) recv_s += t->recv_done_s;
  }
  return recv_s;
}

// The pair test on a Comm whose buffers live on the device (NCCL): both directions at once
// (ncclSend + ncclRecv in one group), timed by the Comm's timer (CUDA events on the GPU's
// stream: NCCL's calls return before the data has moved), so both directions get the same
// rate and no direction is told apart; no give-up (the walk's deadline bounds it). Returns the
// seconds of the timed exchanges.
Result<double> run_my_device_pair_test(Comm& link, int link_peer, const std::string& peer_name,
                                       const PairwiseOptions& o) {
  PairBuffers buf(link);
  if (auto st = buf.make(o.size_bytes, static_cast<unsigned char>(link.rank())); !st) return st.error();
  auto exchange = [&]() -> Status {
    return link.sendrecv(buf.send, o.size_bytes, link_peer, buf.recv, o.size_bytes, link_peer, DataType::kUint8);
  };
  const std::string with = "exchange with " + peer_name;
  for (int w = 0; w < o.warmup_iters; ++w)
    if (auto st = exchange(); !st) return st.error().with_context("warm-up " + with);
  if (auto st = link.start_timer(); !st) return st.error().with_context("timed " + with);
  for (int i = 0; i < o.iters; ++i)
    if (auto st = exchange(); !st) return st.error().with_context("timed " + with);
  auto t = link.stop_timer_s();
  if (!t) return t.error().with_context("timed " + with);
  return *t;
}

}  // namespace

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
  if (auto st = comm.barrier(); !st) return st.error().with_context("barrier before a pair round");
  double mine = 0;  // receive time (s); < 0: given up after -mine s
  if (peer >= 0) {
    auto r = link.uses_device_buffers() ? run_my_device_pair_test(link, link_peer, comm.describe_rank(peer), o)
                                        : run_my_pair_test(link, link_peer, o);
    if (!r.ok()) return r.error();
    mine = *r;
  }
  auto times = comm.allgather_double(mine);
  if (!times) return times.error().with_context("collecting pair times");
  const double bytes = static_cast<double>(o.size_bytes) * o.iters;
  auto t = [&](int r) { return (*times)[static_cast<size_t>(r)]; };
  std::vector<PairMeasurement> out;
  for (const auto& [a, b] : pairs) {
    PairMeasurement m{a, b, t(b) > 0 ? bytes / t(b) : NAN, t(a) > 0 ? bytes / t(a) : NAN, 0};
    if (t(a) < 0 || t(b) < 0) {
      m.no_completion_s = std::max(-t(a), -t(b));
      m.a_to_b_bytes_per_s = m.b_to_a_bytes_per_s = NAN;
    }
    out.push_back(m);
  }
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
