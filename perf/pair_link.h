// What one pair test of perf/pairwise.cpp exchanges on: the two buffers (host memory, or the
// Comm's device memory: cudaMalloc for NCCL) and the communicator (the shared one, or one split
// off per pair with --pair-comm split).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/result.h"
#include "perf/comm.h"

namespace fabdiag::perf {

/// The send and receive buffers of one rank's pair test, freed with it: host vectors, or two
/// Comm::allocate_device buffers where Comm::uses_device_buffers() (the send buffer filled by
/// Comm::copy_to_device from a host copy).
struct PairBuffers {
  explicit PairBuffers(Comm& c) : comm(c) {}
  ~PairBuffers();
  PairBuffers(const PairBuffers&) = delete;
  PairBuffers& operator=(const PairBuffers&) = delete;

  /// Allocates `bytes` each, the send buffer filled with `fill`. Errors: kUnavailable (host
  /// allocation, naming rank and host), or the Comm's device allocation / copy error.
  Status make(uint64_t bytes, unsigned char fill);

  Comm& comm;
  std::vector<unsigned char> host_send, host_recv;
  void* send = nullptr;  ///< host_send.data() or device memory
  void* recv = nullptr;  ///< host_recv.data() or device memory
};

/// With `split` (--pair-comm split): collective over every rank of `comm`, Comm::split with
/// color = the index of this rank's pair in `pairs` (-1 for a rank that sits the round out) and
/// key = rank, so the pair's lower rank is rank 0 of its own two-rank Comm; nullptr for a rank
/// outside every pair. Without `split`: nullptr, nothing communicated (the pairs exchange on
/// `comm`). Errors: the split's (kUnsupported for a Comm that cannot split).
Result<std::unique_ptr<Comm>> pair_communicator(Comm& comm, const std::vector<RankPair>& pairs, bool split);

}  // namespace fabdiag::perf
