// Algorithm and bus bandwidth exactly as nccl-tests defines them (nccl-tests doc/PERFORMANCE.md
// and the *GetBw functions in nccl-tests src/*.cu).
//
//   algbw_bytes_per_s = size_bytes / time_s * algbw_factor(collective, n)
//   busbw_bytes_per_s = algbw_bytes_per_s * factor(collective, n)
//
// algbw_factor is 1 for every collective but hypercube, whose HyperCubeGetBw counts the
// (n-1) blocks a rank receives, not the n blocks of the "size" column: (n-1)/n.
//
// `size_bytes` is the size nccl-tests prints in its "size" column: max(send, receive) bytes of
// one rank, i.e. the total across ranks for all_gather, reduce_scatter and alltoall (see
// sweep.h, collective_shape()). busbw is the per-link rate a ring/optimal algorithm needs, so it
// is comparable to the hardware's link bandwidth whatever the rank count.
//
// Factors, each checked against NVIDIA/nccl-tests src/<coll>.cu <Coll>GetBw():
//   all_reduce      2(n-1)/n   AllReduceGetBw:     baseBw = count*typesize/sec; factor 2(n-1)/n
//   reduce_scatter   (n-1)/n   ReduceScatterGetBw: baseBw = count*typesize*nranks/sec
//   all_gather       (n-1)/n   AllGatherGetBw:     baseBw = count*typesize*nranks/sec (count is
//                                                  the per-rank send count)
//   alltoall         (n-1)/n   AlltoAllGetBw:      baseBw = count*nranks*typesize/sec
//   broadcast        1         BroadcastGetBw
//   reduce           1         ReduceGetBw
//   sendrecv         1         SendRecvGetBw:      baseBw = count*typesize/sec
//   gather           (n-1)/n   GatherGetBw:        baseBw = count*nranks*typesize/sec
//   scatter          (n-1)/n   ScatterGetBw:       baseBw = count*nranks*typesize/sec
//   hypercube        1         HyperCubeGetBw:     baseBw = count*typesize*(nranks-1)/sec
// The same table serves `fabdiag bench` and imported nccl-tests outputs (import/nccl_tests.h).
// At n = 1 the (n-1) factors are 0: a single rank moves nothing over the bus.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "perf/collective.h"

namespace fabdiag::perf {

/// busbw / algbw for `c` at `n_ranks` (table above). n_ranks < 1 is treated as 1.
double busbw_factor(Collective c, int n_ranks);

/// algbw / (size / time) for `c` at `n_ranks`: (n-1)/n for hypercube, 1 otherwise.
double algbw_factor(Collective c, int n_ranks);

/// The algbw factor as a formula: "(n-1)/n" for hypercube, "1" otherwise.
const char* algbw_factor_formula(Collective c);

/// The factor as nccl-tests documents it: "2(n-1)/n", "(n-1)/n" or "1".
const char* busbw_factor_formula(Collective c);

/// The factor of a collective named as nccl_tests_collective_names() spells it ("all_reduce",
/// "gather"); nullptr for any other name.
const char* busbw_factor_formula(std::string_view collective);

/// Every collective of the table above by its fabdiag name, in nccl-tests' order: all_reduce,
/// all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv, gather, scatter, hypercube.
const std::vector<std::string>& nccl_tests_collective_names();

/// size_bytes / time_s in bytes/s; 0 when time_s <= 0 (nothing measured).
double algbw_bytes_per_s(double size_bytes, double time_s);

/// algbw of `c` as nccl-tests computes it: algbw_bytes_per_s(size_bytes, time_s) *
/// algbw_factor(c, n_ranks), in bytes/s.
double algbw_bytes_per_s(Collective c, double size_bytes, double time_s, int n_ranks);

/// algbw_bytes_per_s(c, size_bytes, time_s, n_ranks) * busbw_factor(c, n_ranks), in bytes/s.
double busbw_bytes_per_s(Collective c, double size_bytes, double time_s, int n_ranks);

}  // namespace fabdiag::perf
