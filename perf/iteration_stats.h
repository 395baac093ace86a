// Statistics of the iterations of one size of `fabdiag bench`, defined as nccl-tests -I defines
// them (computeIterStats in nccl-tests src/util.cu): sort the samples, min = first, max = last,
// p50 = sorted[n/2], p99 = sorted[min(n-1, ceil(n*99/100)-1)], mean, population standard
// deviation, cv = stdev / mean.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace fabdiag::perf {

/// Statistics of iteration times in seconds (cv is a ratio: 0.05 = 5%).
struct IterationStats {
  size_t samples = 0;
  double min_s = 0, max_s = 0, p50_s = 0, p99_s = 0, mean_s = 0, cv = 0;
};

/// The statistics of `samples_s` (seconds; any order). All zero when empty; cv 0 when the
/// mean is 0.
IterationStats iteration_stats(std::vector<double> samples_s);

/// Per iteration, the slowest rank's time: out[i] = max over ranks of per_rank[r][i], over the
/// iterations every rank has (the shortest list). nccl-tests -I takes the same max over GPUs.
std::vector<double> max_over_ranks(const std::vector<std::vector<double>>& per_rank);

/// Packs seconds into bytes (their in-memory representation) and back, to exchange a list of
/// numbers through Comm::allgather_strings. unpack ignores a trailing partial number.
std::string pack_doubles(const std::vector<double>& values);
std::vector<double> unpack_doubles(const std::string& bytes);

}  // namespace fabdiag::perf
