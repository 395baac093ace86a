#include "fake_nccl_shm.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace fake_nccl {

struct ShmGroup::Header {
  std::atomic<uint32_t> arrived;
  std::atomic<uint32_t> generation;
};

struct ShmGroup::Box {
  std::atomic<uint32_t> full;
  uint64_t bytes;
};

namespace {

constexpr size_t kHeaderBytes = 4096;
constexpr size_t kBoxStride = 64;
static_assert(sizeof(std::atomic<uint32_t>) == 4 && std::atomic<uint32_t>::is_always_lock_free);

size_t env_bytes(const char* name, size_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  unsigned long long x = std::strtoull(v, &end, 10);
  return end && *end == '\0' && x > 0 ? static_cast<size_t>(x) : fallback;
}

// Polls `done` until it holds or the deadline passes (then `err` names `what`).
template <typename Pred>
bool poll(const std::string& what, std::string& err, Pred done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s());
  for (unsigned spins = 0; !done(); ++spins) {
    if (std::chrono::steady_clock::now() > deadline) {
      err = "fake: timed out after " + std::to_string(static_cast<int>(timeout_s())) + " s waiting for " + what +
            " (FAKE_NCCL_TIMEOUT_S)";
      return false;
    }
    if (spins < 200) sched_yield(); else usleep(100);
  }
  return true;
}

}  // namespace

double timeout_s() {
  const char* v = std::getenv("FAKE_NCCL_TIMEOUT_S");
  double t = v && *v ? std::atof(v) : 20.0;
  return t > 0 ? t : 20.0;
}

ShmGroup::ShmGroup(std::string nm, int ranks, int me, size_t slot, unsigned char* base, size_t total)
    : name(std::move(nm)), n(ranks), rank(me), slot_bytes(slot), base_(base), total_(total) {}

ShmGroup::~ShmGroup() { munmap(base_, total_); }

ShmGroup* ShmGroup::join(const std::string& name, int n, int rank, std::string& err) {
  const size_t slot = env_bytes("FAKE_NCCL_SHM_SLOT_BYTES", size_t{64} << 20);
  const size_t ranks = static_cast<size_t>(n);
  const size_t total = kHeaderBytes + ranks * ranks * kBoxStride + ranks * slot + ranks * ranks * slot;
  int fd = shm_open(name.c_str(), O_CREAT | O_RDWR, 0600);
  if (fd < 0) {
    err = "fake: shm_open(" + name + "): " + std::strerror(errno);
    return nullptr;
  }
  // Every rank sizes the segment the same; a fresh segment reads as zeros, the initial state.
  if (ftruncate(fd, static_cast<off_t>(total)) != 0) {
    err = "fake: ftruncate(" + name + "): " + std::strerror(errno);
    close(fd);
    return nullptr;
  }
  void* p = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    err = "fake: mmap(" + name + "): " + std::strerror(errno);
    return nullptr;
  }
  auto* g = new ShmGroup(name, n, rank, slot, static_cast<unsigned char*>(p), total);
  const bool all_in = g->barrier(err);
  if (rank == 0 || !all_in) shm_unlink(name.c_str());
  if (!all_in) {
    err += " (ncclCommInitRank: not every rank of " + std::to_string(n) + " joined)";
    delete g;
    return nullptr;
  }
  return g;
}

ShmGroup::Header* ShmGroup::header() const { return reinterpret_cast<Header*>(base_); }

ShmGroup::Box* ShmGroup::box(int src, int dst) const {
  return reinterpret_cast<Box*>(base_ + kHeaderBytes + (static_cast<size_t>(src) * n + dst) * kBoxStride);
}

unsigned char* ShmGroup::slot(int r) const {
  const size_t ranks = static_cast<size_t>(n);
  return base_ + kHeaderBytes + ranks * ranks * kBoxStride + static_cast<size_t>(r) * slot_bytes;
}

unsigned char* ShmGroup::box_data(int src, int dst) const {
  return slot(n) + (static_cast<size_t>(src) * n + dst) * slot_bytes;
}

bool ShmGroup::barrier(std::string& err) {
  Header* h = header();
  const uint32_t gen = h->generation.load(std::memory_order_acquire);
  if (h->arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == static_cast<uint32_t>(n)) {
    h->arrived.store(0, std::memory_order_relaxed);
    h->generation.fetch_add(1, std::memory_order_release);
    return true;
  }
  return poll("the other ranks at a barrier (rank " + std::to_string(rank) + " of " + std::to_string(n) + ")", err,
              [&] { return h->generation.load(std::memory_order_acquire) != gen; });
}

bool ShmGroup::send(int peer, const void* buf, size_t bytes, std::string& err) {
  if (bytes > slot_bytes) {
    err = "fake: ncclSend of " + std::to_string(bytes) + " bytes exceeds FAKE_NCCL_SHM_SLOT_BYTES";
    return false;
  }
  Box* b = box(rank, peer);
  if (!poll("rank " + std::to_string(peer) + " to take the previous ncclSend", err,
            [&] { return b->full.load(std::memory_order_acquire) == 0; }))
    return false;
  std::memcpy(box_data(rank, peer), buf, bytes);
  b->bytes = bytes;
  b->full.store(1, std::memory_order_release);
  return true;
}

bool ShmGroup::recv(int peer, void* buf, size_t bytes, std::string& err) {
  Box* b = box(peer, rank);
  if (!poll("an ncclSend from rank " + std::to_string(peer), err,
            [&] { return b->full.load(std::memory_order_acquire) == 1; }))
    return false;
  std::memcpy(buf, box_data(peer, rank), bytes < b->bytes ? bytes : b->bytes);
  b->full.store(0, std::memory_order_release);
  return true;
}

}  // namespace fake_nccl
