#include "perf/comm.h"

#include <map>

namespace fabdiag::perf {

std::string Comm::describe_rank(int r) const {
  const auto& h = hosts();
  std::string out = "rank " + std::to_string(r);
  if (r >= 0 && static_cast<size_t>(r) < h.size()) out += " (" + h[static_cast<size_t>(r)] + ")";
  return out;
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
