#include "perf/sync_skew.h"

#include <algorithm>
#include <limits>

#include "core/stats.h"

namespace fabdiag::perf {

SyncSkew sync_skew(const std::vector<std::vector<double>>& entry_s, const std::vector<std::vector<double>>& exit_s) {
  SyncSkew out;
  const size_t ranks = std::min(entry_s.size(), exit_s.size());
  if (ranks == 0) return out;
  size_t calls = std::numeric_limits<size_t>::max();
  for (size_t r = 0; r < ranks; ++r) calls = std::min({calls, entry_s[r].size(), exit_s[r].size()});
  if (calls == 0) return out;
  std::vector<std::vector<double>> lateness(ranks), wait(ranks);
  std::vector<double> iteration;
  for (size_t i = 0; i < calls; ++i) {
    double first_entry = entry_s[0][i], last_exit = exit_s[0][i];
    for (size_t r = 1; r < ranks; ++r) {
      first_entry = std::min(first_entry, entry_s[r][i]);
      last_exit = std::max(last_exit, exit_s[r][i]);
    }
    iteration.push_back(last_exit - first_entry);
    for (size_t r = 0; r < ranks; ++r) {
      lateness[r].push_back(entry_s[r][i] - first_entry);
      wait[r].push_back(exit_s[r][i] - entry_s[r][i]);
    }
  }
  for (size_t r = 0; r < ranks; ++r) {
    out.entry_lateness_s.push_back(median(lateness[r]).value_or(0.0));
    out.wait_s.push_back(median(wait[r]).value_or(0.0));
  }
  out.iteration_s = median(iteration).value_or(0.0);
  return out;
}

}  // namespace fabdiag::perf
