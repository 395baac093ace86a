// `--format nccl-tests`: a fabdiag.bench/1 result as the text nccl-tests prints
// (NVIDIA/nccl-tests src/util.cu writeDeviceReport, writeResultHeader,
// writeBenchmarkLinePreamble/Body, writeResultFooter), so it can be pasted where nccl-tests
// output is pasted and read back by `fabdiag import nccl-tests` (import/nccl_tests.h).
//
// Layout (widths as nccl-tests prints them):
//   # Collective test starting: <coll>_perf
//   # nThread 1 nGpus N minBytes B maxBytes E step: F(factor) warmup iters: W iters: I agg iters: 1 validation: 1 graph: G unalign: 0
//   # fabdiag: backend mpi|nccl
//   #
//   # Using devices
//   #  Rank  0 Group  0 Pid   1234 on     node01 device  0 [0000:0f:00] NVIDIA H200
//   #
//   #                                                              out-of-place                       in-place
//   #       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
//   #        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
//              8             2     float     sum      -1     9.10    0.00    0.00       0     8.95    0.00    0.00       0
//   # Out of bounds values : 0 OK
//   # Avg bus bandwidth    : 12.3456
//   #
//   # Collective test concluded: <coll>_perf
// The in-place half is a row's `in_place` member (the NCCL backend measures it); without one
// (MPI) it is "N/A" (nccl-tests' spelling of "not measured", which the importer reads as
// absent), as is the #wrong of a half not checked (in-place alltoall, JSON null). time = the
// slowest rank's average per call (nccl-tests averages over ranks), algbw/busbw in GB/s = 1e9
// bytes/s. The average bus bandwidth is over the printed halves, and "Out of bounds values"
// counts the halves whose check failed (nccl-tests sums both per BenchTime call). W, I and G are the run's settings (params) when no size
// finished. The backend line is fabdiag's own: the importer reads it back, as it reads the
// PARTIAL line as a gap of a partial table (kept even with no row). A cut run ends with
// "# fabdiag: PARTIAL: <reason>", and
// findings follow the footer as "# fabdiag: <severity> <code>: <message>" lines (comments to
// nccl-tests readers).
#pragma once

#include <string>

#include "core/envelope.h"

namespace fabdiag {

/// The nccl-tests text of a fabdiag.bench/1 envelope: `data` as perf/collective_bench.h
/// to_json() writes it (collective, dtype, ranks, hosts, warmup, iters, root, graph_launches,
/// devices[], results[]), `params` min_bytes, max_bytes, step_factor and gpus (-g; absent
/// under MPI: 1 GPU per process). Missing members print as 0 or "-"; never fails.
std::string render_nccl_tests(const Envelope& env);

/// nccl-tests' getFloatStr: `value` in `width` characters with 2, 1 or 0 decimals, whichever
/// fits first, else in exponent form.
std::string nccl_tests_float(double value, int width);

}  // namespace fabdiag
