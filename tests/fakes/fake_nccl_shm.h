// The cross-process half of the fake libnccl (tests/fakes/fake_nccl.cpp): the ranks of an
// ncclCommInitRank communicator are processes (one per rank, under mpirun) that meet in a POSIX
// shared-memory segment named by the ncclUniqueId. The segment holds a barrier, one slot per
// rank where a collective's send buffer is copied for the others to read, and one mailbox per
// ordered pair (src, dst) for ncclSend/ncclRecv. Every wait polls against a deadline
// ($FAKE_NCCL_TIMEOUT_S, default 20 s), so a test whose peer died fails instead of hanging.
// Slot and mailbox capacity: $FAKE_NCCL_SHM_SLOT_BYTES (default 64 MiB each; tmpfs pages are
// only used when written).
#pragma once

#include <cstddef>
#include <string>

namespace fake_nccl {

class ShmGroup {
 public:
  /// Opens (creating if needed) the segment `name` for `n` ranks and waits for all of them.
  /// Returns nullptr with `err` set when the segment cannot be made or a rank does not come
  /// within the deadline. Rank 0 unlinks the name once everybody is in.
  static ShmGroup* join(const std::string& name, int n, int rank, std::string& err);
  ~ShmGroup();
  ShmGroup(const ShmGroup&) = delete;
  ShmGroup& operator=(const ShmGroup&) = delete;

  const std::string name;
  const int n, rank;
  const size_t slot_bytes;

  /// Waits until every rank arrived. False with `err` at the deadline.
  bool barrier(std::string& err);
  /// Rank r's slot (slot_bytes long).
  unsigned char* slot(int r) const;
  /// Puts `bytes` in the mailbox to `peer` once it is empty. False with `err` (too large, deadline).
  bool send(int peer, const void* buf, size_t bytes, std::string& err);
  /// Takes the message from `peer` once there is one (at most `bytes` copied).
  bool recv(int peer, void* buf, size_t bytes, std::string& err);

 private:
  ShmGroup(std::string name, int n, int rank, size_t slot_bytes, unsigned char* base, size_t total);
  struct Header;
  struct Box;
  Header* header() const;
  Box* box(int src, int dst) const;
  unsigned char* box_data(int src, int dst) const;
  unsigned char* base_;
  size_t total_;
};

/// Seconds every wait of the fake may take ($FAKE_NCCL_TIMEOUT_S, default 20).
double timeout_s();

}  // namespace fake_nccl
