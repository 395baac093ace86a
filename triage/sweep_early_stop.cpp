// When the triage walk lets its collective sweeps stop early (triage/sweep_early_stop.h).
#include "triage/sweep_early_stop.h"

#include <cmath>
#include <cstdio>

#include "core/text.h"
#include "perf/sweep.h"

namespace fabdiag::triage {

namespace {

std::string name_of(const std::vector<std::string>& hosts, int node) {
  return node >= 0 && static_cast<size_t>(node) < hosts.size() ? hosts[static_cast<size_t>(node)] : "node " + std::to_string(node);
}

// "node node03, link node02<->node06": what the screen named.
std::string candidates_text(const Screen& s, const std::vector<std::string>& hosts) {
  std::vector<std::string> parts;
  for (int n : s.node_candidates) parts.push_back("node " + name_of(hosts, n));
  for (const auto& [a, b] : s.link_candidates) parts.push_back("link " + name_of(hosts, a) + "<->" + name_of(hosts, b));
  return join(parts);
}

}  // namespace

perf::SweepStop sweep_stop_after(const Screen& s, const std::vector<std::string>& hosts, const SweepStopParams& p) {
  perf::SweepStop stop;
  if (!p.on || (s.node_candidates.empty() && s.link_candidates.empty())) return stop;
  if (!std::isfinite(s.pair_ref_bytes_per_s) || s.pair_ref_bytes_per_s <= 0 || !(p.ratio > 0)) return stop;
  stop.below_busbw_bytes_per_s = p.ratio * s.pair_ref_bytes_per_s;
  stop.min_bytes = p.min_bytes;
  char numbers[160];
  std::snprintf(numbers, sizeof numbers, "busbw below %.2f x the screen's pair reference %.1f MB/s = %.1f MB/s",
                p.ratio, s.pair_ref_bytes_per_s / 1e6, stop.below_busbw_bytes_per_s / 1e6);
  stop.why = "the screen names " + candidates_text(s, hosts) + " slow, and from " +
             perf::format_size_bytes(p.min_bytes) + " on a size with " + numbers + " already shows it";
  return stop;
}

}  // namespace fabdiag::triage
