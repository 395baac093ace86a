// Buffers and communicator of one pair test (perf/pair_link.h).
#include "perf/pair_link.h"

#include <new>
#include <string>

namespace fabdiag::perf {

PairBuffers::~PairBuffers() {
  if (!comm.uses_device_buffers()) return;
  comm.free_device(send);
  comm.free_device(recv);
}

Status PairBuffers::make(uint64_t bytes, unsigned char fill) {
  try {
    host_send.assign(bytes, fill);
    if (!comm.uses_device_buffers()) host_recv.assign(bytes, 0);
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::kUnavailable,
                      "cannot allocate 2 x " + std::to_string(bytes) + " bytes for the pair test; lower --size",
                      comm.describe_rank(comm.rank()));
  }
  if (!comm.uses_device_buffers()) {
    send = host_send.data();
    recv = host_recv.data();
    return Ok{};
  }
  auto s = comm.allocate_device(bytes);
  if (!s) return s.error().with_context("pair test send buffer");
  send = *s;
  auto r = comm.allocate_device(bytes);
  if (!r) return r.error().with_context("pair test receive buffer");
  recv = *r;
  return comm.copy_to_device(send, host_send.data(), bytes);
}

Result<std::unique_ptr<Comm>> pair_communicator(Comm& comm, const std::vector<RankPair>& pairs, bool split) {
  if (!split) return std::unique_ptr<Comm>();
  int color = -1;
  for (size_t i = 0; i < pairs.size(); ++i)
    if (pairs[i].first == comm.rank() || pairs[i].second == comm.rank()) color = static_cast<int>(i);
  auto sub = comm.split(color, comm.rank());
  if (!sub) return sub.error().with_context("one communicator per pair (--pair-comm split)");
  return sub;
}

}  // namespace fabdiag::perf
