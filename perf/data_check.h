// Data check of `fabdiag bench` (nccl-tests -c 1): inputs get a rank- and index-dependent
// pattern, the expected result of the collective is computed on the host, and wrong elements of
// each rank's receive buffer are counted. Pattern values are small integers, so sums over up to
// ~30000 ranks are exact in every type (float included) and a check is an exact comparison.
#pragma once

#include <cstdint>

#include "perf/collective.h"
#include "perf/dtype.h"
#include "perf/sweep.h"

namespace fabdiag::perf {

/// Input value of element `index` on `rank`: ((rank*131 + index*7) mod 1021) - 510, in
/// [-510, 510] (converted to the element type; uint8 wraps modulo 256).
int64_t pattern_value(int rank, uint64_t index);

/// Writes the pattern of `rank` into `count` elements of `buf`.
void fill_pattern(DataType dtype, void* buf, uint64_t count, int rank);

/// True when `rank`'s receive buffer holds a result of `c`: not the root of broadcast (MPI_Bcast
/// sends from the root's send buffer) and only the root of reduce and gather.
bool rank_receives_output(Collective c, int rank, int root);

/// Number of elements of `recv` (shape.recv_count elements on `rank`) that differ from the
/// expected result of `c` over `n_ranks` ranks whose send buffers hold fill_pattern(). 0 when
/// the rank receives no output. Sendrecv receives from (rank-1+n)%n; gather and hypercube
/// expect all_gather's result, scatter the root's block number `rank`.
uint64_t count_wrong_elements(Collective c, DataType dtype, const CollectiveShape& shape,
                              const void* recv, int rank, int n_ranks, int root);

}  // namespace fabdiag::perf
