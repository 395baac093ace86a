// The size sweep of `fabdiag bench` (nccl-tests -b/-e/-f) and the per-collective rounding of a
// requested size into element counts, as nccl-tests does it (setupArgs + <Coll>GetCollByteCount).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "perf/collective.h"
#include "perf/dtype.h"

namespace fabdiag::perf {

/// Parses a size in bytes: a decimal integer with an optional binary suffix K, M, G or T
/// (case-insensitive, optionally followed by "B" or "iB"): "8" -> 8, "1K" -> 1024,
/// "4M" -> 4194304, "1G" -> 1073741824. Errors: kInvalidArgument naming the text (empty,
/// negative, fractional, unknown suffix, overflow).
Result<uint64_t> parse_size_bytes(std::string_view text);

/// Formats bytes back with the largest exact binary suffix: 4194304 -> "4M", 1000 -> "1000".
std::string format_size_bytes(uint64_t bytes);

/// -b/-e/-f: sizes min_bytes, min_bytes*factor, ... up to and including max_bytes.
struct SweepSpec {
  uint64_t min_bytes = 8;              ///< -b
  uint64_t max_bytes = 64ull << 20;    ///< -e
  uint64_t factor = 2;                 ///< -f, multiplication factor between sizes (>= 2)
};

/// Errors (kInvalidArgument): min_bytes == 0, min_bytes > max_bytes, factor < 2.
Status validate_sweep(const SweepSpec& spec);

/// The requested sizes in bytes, ascending. Empty when `spec` is invalid.
std::vector<uint64_t> sweep_sizes(const SweepSpec& spec);

/// Buffer shape of one collective call at one requested size, as nccl-tests computes it:
/// count = requested / dtype size, then all_gather, reduce_scatter, alltoall, gather, scatter
/// and hypercube round count down to a multiple of the rank count (each rank owns count/n
/// elements; hypercube's block is also rounded down to a multiple of 4 elements, as
/// hypercube_perf does).
struct CollectiveShape {
  uint64_t size_bytes = 0;   ///< nccl-tests "size" column: max(send, recv) bytes of one rank.
  uint64_t count = 0;        ///< nccl-tests "count" column: the element count passed to the
                             ///< collective (per-rank block for all_gather, reduce_scatter,
                             ///< gather, scatter, hypercube; per-peer block for alltoall;
                             ///< whole buffer otherwise).
  uint64_t send_count = 0;   ///< Elements in each rank's send buffer.
  uint64_t recv_count = 0;   ///< Elements in each rank's receive buffer.
  /// In-place call (nccl-tests' <Coll>GetCollByteCount sendInplaceOffset/recvInplaceOffset,
  /// used by common.cu startColl): the send pointer is recvbuff + rank*send_in_place_offset
  /// elements and the receive pointer recvbuff + rank*recv_in_place_offset. all_gather, gather
  /// and hypercube send from the rank's block of the output (send offset = count); reduce_scatter
  /// and scatter read the whole buffer and write the rank's block (recv offset = count); the
  /// others pass the same pointer twice (both 0). NCCL's "In-place Operations" page defines
  /// the same pointers as in place.
  uint64_t send_in_place_offset = 0;
  uint64_t recv_in_place_offset = 0;
};

/// Shape of `c` for a requested size (bytes) at `n_ranks` ranks. A size smaller than one element
/// per rank gives count 0 (callers skip it).
CollectiveShape collective_shape(Collective c, uint64_t requested_bytes, DataType dtype,
                                 int n_ranks);

}  // namespace fabdiag::perf
