#include "triage/dead_pairs.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace fabdiag::triage {

std::vector<DeadSuspect> judge_dead(int nodes, const std::vector<PairSample>& samples) {
  std::map<std::pair<int, int>, DeadSuspect> links;
  std::vector<int> dead_tests(static_cast<size_t>(std::max(nodes, 0)), 0), completed(dead_tests.size(), 0);
  std::vector<double> longest_s(dead_tests.size(), 0);
  for (const auto& s : samples) {
    if (s.a == s.b || s.a < 0 || s.b < 0 || s.a >= nodes || s.b >= nodes) continue;
    for (int x : {s.a, s.b}) {
      if (s.no_completion_s > 0) {
        ++dead_tests[static_cast<size_t>(x)];
        longest_s[static_cast<size_t>(x)] = std::max(longest_s[static_cast<size_t>(x)], s.no_completion_s);
      } else if (std::isfinite(s.bytes_per_s)) {
        ++completed[static_cast<size_t>(x)];
      }
    }
    if (s.no_completion_s <= 0) continue;
    auto& d = links[{std::min(s.a, s.b), std::max(s.a, s.b)}];
    d.kind = "link";
    d.nodes = {std::min(s.a, s.b), std::max(s.a, s.b)};
    d.no_completion_s = std::max(d.no_completion_s, s.no_completion_s);
    ++d.dead_tests;
  }
  std::vector<DeadSuspect> out;
  std::vector<bool> dead_node(dead_tests.size(), false);
  for (int x = 0; x < nodes; ++x) {
    const auto i = static_cast<size_t>(x);
    if (dead_tests[i] < 2 || completed[i] > 0) continue;
    dead_node[i] = true;
    out.push_back(DeadSuspect{"node", {x}, longest_s[i], dead_tests[i]});
  }
  for (const auto& [k, d] : links)
    if (!dead_node[static_cast<size_t>(k.first)] && !dead_node[static_cast<size_t>(k.second)]) out.push_back(d);
  return out;
}

bool known_dead(int a, int b, const std::vector<DeadSuspect>& dead) {
  for (const auto& d : dead) {
    if (d.kind == "node" && (d.nodes[0] == a || d.nodes[0] == b)) return true;
    if (d.kind == "link" && d.nodes[0] == std::min(a, b) && d.nodes[1] == std::max(a, b)) return true;
  }
  return false;
}

std::string dead_text(const DeadSuspect& d, const std::vector<std::string>& hosts) {
  auto host = [&](int x) { return x >= 0 && static_cast<size_t>(x) < hosts.size() ? hosts[static_cast<size_t>(x)] : std::to_string(x); };
  const std::string secs = std::to_string(static_cast<long>(std::lround(d.no_completion_s))) + " s";
  if (d.kind == "node")
    return "dead host " + host(d.nodes[0]) + ": no completion with any of its " + std::to_string(d.dead_tests) +
           " partners in " + secs;
  return "dead link " + host(d.nodes[0]) + "<->" + host(d.nodes[1]) + ": no completion in " + secs;
}

}  // namespace fabdiag::triage
