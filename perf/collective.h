// The collectives `fabdiag bench` measures, named as nccl-tests names its binaries
// (all_reduce_perf -> "all_reduce").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabdiag::perf {

/// A collective operation. Reductions are sums; rooted operations use root 0 by default.
enum class Collective {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAlltoall,
  kBroadcast,
  kReduce,
  kSendrecv,  ///< Each rank sends to (rank+1)%n and receives from (rank-1+n)%n (nccl-tests).
  kGather,    ///< The root receives every rank's block (nccl-tests gather_perf).
  kScatter,   ///< Every rank receives its block of the root's buffer (scatter_perf).
  kHypercube, ///< An all-gather in log2(n) rounds of pairwise exchanges with rank^mask
              ///< (hypercube_perf); the rank count must be a power of two.
};

/// "all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", "reduce", "sendrecv",
/// "gather", "scatter", "hypercube".
const char* to_string(Collective c);
/// Parses the names above; nullopt otherwise.
std::optional<Collective> parse_collective(std::string_view s);
/// All names in the order above (for --help, CLI validation and error messages).
std::vector<std::string> collective_names();
/// True for broadcast, reduce, gather and scatter, which have a root rank.
bool has_root(Collective c);

}  // namespace fabdiag::perf
