#include "perf/comm.h"

#include <cstring>
#include <map>

namespace fabdiag::perf {

std::string Comm::describe_rank(int r) const {
  const auto& h = hosts();
  std::string out = "rank " + std::to_string(r);
  if (r >= 0 && static_cast<size_t>(r) < h.size()) out += " (" + h[static_cast<size_t>(r)] + ")";
  return out;
}

Result<Comm::ExchangeTimes> Comm::exchange_timed(const void* send, void* recv, size_t count, int peer,
                                                DataType dtype, double, double, const WaitHeartbeat&) {
  const double t0 = wall_time_s();
  // A null buffer is a direction not taken (a one-way test), as in the MPI backend.
  if (auto st = sendrecv(send, send ? count : 0, peer, recv, recv ? count : 0, peer, dtype); !st) return st.error();
  const double t = wall_time_s() - t0;
  return ExchangeTimes{t, t, true};
}

Result<void*> Comm::allocate_device(size_t) {
  return make_error(ErrorCode::kUnsupported, "this backend has no device memory", describe_rank(rank()));
}

void Comm::free_device(void*) {}

Status Comm::copy_to_device(void*, const void*, size_t) {
  return make_error(ErrorCode::kUnsupported, "this backend has no device memory", describe_rank(rank()));
}

Status Comm::copy_from_device(void*, const void*, size_t) {
  return make_error(ErrorCode::kUnsupported, "this backend has no device memory", describe_rank(rank()));
}

Result<std::unique_ptr<Comm>> Comm::split(int, int) {
  return make_error(ErrorCode::kUnsupported, "this backend cannot split its ranks into groups", describe_rank(rank()));
}

Status Comm::start_timer() {
  timer_start_s_ = wall_time_s();
  return Ok{};
}

Result<double> Comm::stop_timer_s() { return wall_time_s() - timer_start_s_; }

Status Comm::prepare_laps(int laps) {
  lap_marks_s_.clear();
  lap_marks_s_.reserve(static_cast<size_t>(laps > 0 ? laps : 0));
  return Ok{};
}

Status Comm::lap_timer() {
  lap_marks_s_.push_back(wall_time_s());
  return Ok{};
}

Result<std::vector<double>> Comm::lap_times_s() {
  std::vector<double> out;
  double prev = timer_start_s_;
  for (double m : lap_marks_s_) {
    out.push_back(m - prev);
    prev = m;
  }
  lap_marks_s_.clear();
  return out;
}

namespace {
Error unsupported(const Comm& c, const std::string& what) {
  return make_error(ErrorCode::kUnsupported, what + " is not available on this backend", c.describe_rank(c.rank()));
}
}  // namespace

Status Comm::gather(const void*, void*, size_t, DataType, int) { return unsupported(*this, "gather"); }

Status Comm::scatter(const void*, void*, size_t, DataType, int) { return unsupported(*this, "scatter"); }

Status Comm::hypercube(const void* send, void* recv, size_t count, DataType dtype) {
  const int n = size(), me = rank();
  if (n < 1 || (n & (n - 1)) != 0)
    return make_error(ErrorCode::kInvalidArgument,
                      "hypercube needs a power-of-two rank count, not " + std::to_string(n), describe_rank(me));
  if (uses_device_buffers()) return unsupported(*this, "hypercube on device memory");
  const size_t block = count * dtype_size_bytes(dtype);
  auto* out = static_cast<unsigned char*>(recv);
  if (block) std::memmove(out + static_cast<size_t>(me) * block, send, block);
  for (int mask = 1; mask < n; mask <<= 1) {
    const int mine = me & ~(mask - 1), theirs = mine ^ mask;
    const size_t elems = count * static_cast<size_t>(mask);
    if (auto st = sendrecv(out + static_cast<size_t>(mine) * block, elems, me ^ mask,
                           out + static_cast<size_t>(theirs) * block, elems, me ^ mask, dtype);
        !st)
      return st;
  }
  return Ok{};
}

Status Comm::begin_graph_capture() { return unsupported(*this, "CUDA graph capture (-G)"); }

Status Comm::end_graph_capture() { return unsupported(*this, "CUDA graph capture (-G)"); }

Status Comm::launch_graph() { return unsupported(*this, "CUDA graph capture (-G)"); }

Comm::DeviceInfo Comm::device_info() { return {-1, "", "host memory"}; }

int peer_of(const std::vector<RankPair>& pairs, int rank) {
  for (const auto& [a, b] : pairs) {
    if (a == rank) return b;
    if (b == rank) return a;
  }
  return -1;
}

Status validate_disjoint_pairs(const std::vector<RankPair>& pairs, int n_ranks) {
  std::vector<bool> used(static_cast<size_t>(n_ranks > 0 ? n_ranks : 0), false);
  for (const auto& [a, b] : pairs) {
    for (int r : {a, b}) {
      if (r < 0 || r >= n_ranks)
        return make_error(ErrorCode::kInvalidArgument,
                          "pair (" + std::to_string(a) + "," + std::to_string(b) + ") names rank " +
                              std::to_string(r) + ", outside 0.." + std::to_string(n_ranks - 1));
    }
    if (a == b)
      return make_error(ErrorCode::kInvalidArgument,
                        "pair (" + std::to_string(a) + "," + std::to_string(b) +
                            ") pairs a rank with itself");
    for (int r : {a, b}) {
      if (used[static_cast<size_t>(r)])
        return make_error(ErrorCode::kInvalidArgument,
                          "rank " + std::to_string(r) + " is in more than one pair of the round");
      used[static_cast<size_t>(r)] = true;
    }
  }
  return Ok{};
}

std::vector<std::string> unique_rank_labels(const std::vector<std::string>& hosts) {
  std::map<std::string, int> seen;
  for (const auto& h : hosts) ++seen[h];
  std::vector<std::string> out;
  out.reserve(hosts.size());
  for (size_t r = 0; r < hosts.size(); ++r)
    out.push_back(seen[hosts[r]] > 1 ? hosts[r] + "#" + std::to_string(r) : hosts[r]);
  return out;
}

}  // namespace fabdiag::perf
