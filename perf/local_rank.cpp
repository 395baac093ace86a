// local_rank_of (perf/nccl_world.h): which GPU a rank of an MPI job drives. Compiled in every
// build (no NCCL headers needed).
#include <climits>

#include "core/text.h"
#include "perf/nccl_world.h"

namespace fabdiag::perf {

int local_rank_of(const Environment& env, const std::vector<std::string>& hosts, int rank) {
  for (const char* var : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "PMI_LOCAL_RANK"}) {
    auto v = env.get_nonempty(var);
    if (!v) continue;
    auto n = parse_u64(*v);
    if (n && *n <= static_cast<uint64_t>(INT_MAX)) return static_cast<int>(*n);
  }
  int local = 0;
  for (int r = 0; r < rank && r < static_cast<int>(hosts.size()); ++r)
    if (hosts[static_cast<size_t>(r)] == hosts[static_cast<size_t>(rank)]) ++local;
  return local;
}

}  // namespace fabdiag::perf
