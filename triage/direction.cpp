#include "triage/direction.h"

#include <cmath>

#include "core/stats.h"

namespace fabdiag::triage {

namespace {

// The verdict from the two medians.
NodeDirection verdict(std::vector<double>& send, std::vector<double>& recv, double ratio) {
  NodeDirection d;
  d.tests = static_cast<int>(send.size());
  if (send.empty()) return d;
  d.send_bytes_per_s = median(send).value_or(NAN);
  d.recv_bytes_per_s = median(recv).value_or(NAN);
  if (d.send_bytes_per_s < ratio * d.recv_bytes_per_s) d.direction = "send";
  else if (d.recv_bytes_per_s < ratio * d.send_bytes_per_s) d.direction = "recv";
  else d.direction = "both";
  return d;
}

bool both_directions(const PairSample& s) {
  return std::isfinite(s.a_to_b_bytes_per_s) && std::isfinite(s.b_to_a_bytes_per_s);
}

}  // namespace

NodeDirection node_direction(int node, const std::vector<PairSample>& samples, double ratio) {
  std::vector<double> send, recv;
  for (const auto& s : samples) {
    if (s.a == s.b || !both_directions(s)) continue;
    if (s.a == node) {
      send.push_back(s.a_to_b_bytes_per_s);
      recv.push_back(s.b_to_a_bytes_per_s);
    } else if (s.b == node) {
      send.push_back(s.b_to_a_bytes_per_s);
      recv.push_back(s.a_to_b_bytes_per_s);
    }
  }
  return verdict(send, recv, ratio);
}

NodeDirection pair_direction(int a, int b, const std::vector<PairSample>& samples, double ratio) {
  std::vector<double> send, recv;
  for (const auto& s : samples) {
    if (!both_directions(s)) continue;
    if (s.a == a && s.b == b) {
      send.push_back(s.a_to_b_bytes_per_s);
      recv.push_back(s.b_to_a_bytes_per_s);
    } else if (s.a == b && s.b == a) {
      send.push_back(s.b_to_a_bytes_per_s);
      recv.push_back(s.a_to_b_bytes_per_s);
    }
  }
  return verdict(send, recv, ratio);
}

}  // namespace fabdiag::triage
