// A libnccl stand-in for the NCCL backend's tests (tests/cli/nccl_fake_bench_test.sh,
// nccl_fake_mpi_test.sh): the N "GPUs" of ncclCommInitAll are N threads of one process sharing
// host memory; the ranks of ncclGetUniqueId + ncclCommInitRank (+ ncclCommSplit) are processes
// meeting in shared memory (fake_nccl_shm.h). Every call runs to completion before it returns
// (the ranks meet in a barrier), so a stream holds no pending work; each rank's send buffer is
// copied before the others read it, so in-place calls (send == recv, or the rank's block of
// recv) are exact. Built with the real nccl.h, so the signatures are NCCL's.
// FAKE_NCCL_NO_ALLTOALL (compile definition) leaves out ncclAlltoAll, ncclGather and
// ncclScatter, as NCCL before 2.28 lacks them, so the backend's grouped ncclSend/ncclRecv paths
// run, and ncclCommSplit (NCCL before 2.18), so sub-groups come from ncclCommInitRank over a new
// unique id. On a stream that the fake libcudart is capturing into a CUDA graph
// (cudaStreamIsCapturing, found in whichever loaded library exports it: the fake the backend
// loaded), a call is not run but handed to cudaLaunchHostFunc, so the graph's launches replay
// it; a replayed call that fails is reported by ncclCommGetAsyncError.
//
// Environment:
//   FAKE_CUDA_DEVICES=N      GPUs that exist (as the fake libcudart; default 8).
//   FAKE_NCCL_INIT_FAIL=1    ncclCommInitAll returns ncclSystemError.
//   FAKE_NCCL_CORRUPT_RANK=r after every call, rank r's first received byte is flipped, so the
//                            benchmark's data check must count wrong elements on rank r.
//   FAKE_NCCL_INIT_FAIL_RANK=k  ncclCommInitRank fails (ncclSystemError) on rank k.
//   FAKE_NCCL_ASYNC_ERROR_RANK=k  after its first collective, ncclCommGetAsyncError on rank k
//                            reports ncclRemoteError (a peer or the network failed).
//   FAKE_NCCL_HANG_RANK=k    rank k's first collective never returns (it sleeps for an hour).
//   FAKE_NCCL_TIMEOUT_S, FAKE_NCCL_SHM_SLOT_BYTES: see fake_nccl_shm.h.
//   NCCL_DEBUG=INFO + NCCL_DEBUG_FILE, FAKE_NCCL_NET, FAKE_NCCL_GDR: the INFO lines of each
//                            communicator's init (fake_nccl_log.h).
#include <dlfcn.h>
#include <link.h>
#include <nccl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "fake_nccl_log.h"
#include "fake_nccl_shm.h"

namespace {

using Bytes = std::vector<unsigned char>;

struct Clique {
  explicit Clique(int ranks) : n(ranks), copies(static_cast<size_t>(ranks)) {}
  const int n;
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0;
  unsigned long generation = 0;
  int alive = 0;  // communicators not yet destroyed
  std::vector<Bytes> copies;  // each rank's send buffer, copied
  std::map<std::pair<int, int>, std::deque<Bytes>> mail;  // (src, dst)

  void barrier(std::unique_lock<std::mutex>& lk) {
    const unsigned long gen = generation;
    if (++arrived == n) {
      arrived = 0;
      ++generation;
      cv.notify_all();
      return;
    }
    cv.wait(lk, [&] { return generation != gen; });
  }
};

thread_local std::string last_error;  // what ncclGetLastError says (set before a call fails)
std::atomic<int> replay_error{ncclSuccess};  // a call a graph replayed failed (ncclCommGetAsyncError)

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

size_t type_size(ncclDataType_t t) {
  switch (t) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    default: return 8;
  }
}

// Calls f(T{}) with the element type (the types fabdiag's benchmark uses, and their kin).
template <typename F>
void typed(ncclDataType_t t, F&& f) {
  switch (t) {
    case ncclInt8: f(int8_t{}); return;
    case ncclUint8: f(uint8_t{}); return;
    case ncclInt32: f(int32_t{}); return;
    case ncclUint32: f(uint32_t{}); return;
    case ncclInt64: f(int64_t{}); return;
    case ncclUint64: f(uint64_t{}); return;
    case ncclFloat32: f(float{}); return;
    default: f(double{}); return;
  }
}

using Sends = std::vector<const void*>;  // every rank's send buffer (a copy), index = rank

// recv[i] = sum over ranks r of send_r[offset + i], i < count.
void sum_into(const Sends& sends, ncclDataType_t t, void* recv, size_t offset, size_t count) {
  typed(t, [&](auto zero) {
    using T = decltype(zero);
    for (size_t i = 0; i < count; ++i) {
      T s = 0;
      for (const void* b : sends) s = static_cast<T>(s + static_cast<const T*>(b)[offset + i]);
      static_cast<T*>(recv)[i] = s;
    }
  });
}

// The fake libcudart's capture entry points, from the copy the backend loaded.
struct CudaHooks {
  cudaError_t (*is_capturing)(cudaStream_t, cudaStreamCaptureStatus*) = nullptr;
  cudaError_t (*launch_host_func)(cudaStream_t, cudaHostFn_t, void*) = nullptr;
};

int collect_name(dl_phdr_info* info, size_t, void* out) {
  if (info->dlpi_name && *info->dlpi_name) static_cast<std::vector<std::string>*>(out)->push_back(info->dlpi_name);
  return 0;
}

// Looked up at the first call, when the backend has loaded its libcudart (always before NCCL).
const CudaHooks& cuda_hooks() {
  static const CudaHooks hooks = [] {
    CudaHooks h;
    std::vector<std::string> loaded;
    dl_iterate_phdr(collect_name, &loaded);  // names first: no dlopen under the loader's lock
    for (const auto& name : loaded) {
      void* d = dlopen(name.c_str(), RTLD_NOW | RTLD_NOLOAD);
      if (!d) continue;
      auto capturing = reinterpret_cast<decltype(h.is_capturing)>(dlsym(d, "cudaStreamIsCapturing"));
      auto launch = reinterpret_cast<decltype(h.launch_host_func)>(dlsym(d, "cudaLaunchHostFunc"));
      dlclose(d);  // drops the reference RTLD_NOLOAD took; the library stays loaded
      if (capturing && launch) {
        h.is_capturing = capturing;
        h.launch_host_func = launch;
        break;
      }
    }
    return h;
  }();
  return hooks;
}

using Call = std::function<ncclResult_t()>;
std::mutex captured_mu;
std::vector<std::unique_ptr<Call>> captured_calls;  // live as long as a graph may replay them

// Runs `call` now, or hands it to the graph `stream` is capturing.
ncclResult_t enqueue(cudaStream_t stream, Call call) {
  const CudaHooks& h = cuda_hooks();
  cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
  if (stream && h.is_capturing && h.launch_host_func && h.is_capturing(stream, &cs) == cudaSuccess &&
      cs == cudaStreamCaptureStatusActive) {
    Call* kept = nullptr;
    {
      std::lock_guard lk(captured_mu);
      captured_calls.push_back(std::make_unique<Call>(std::move(call)));
      kept = captured_calls.back().get();
    }
    auto run = [](void* p) {
      const ncclResult_t rc = (*static_cast<Call*>(p))();
      if (rc != ncclSuccess) replay_error = rc;
    };
    return h.launch_host_func(stream, run, kept) == cudaSuccess ? ncclSuccess : ncclUnhandledCudaError;
  }
  return call();
}

}  // namespace

struct ncclComm {
  Clique* clique;               // one process, ncclCommInitAll; else nullptr
  fake_nccl::ShmGroup* shm;     // one process per rank, ncclCommInitRank; else nullptr
  int rank;
  int n;
  unsigned splits = 0;          // ncclCommSplit calls so far (names the child's segment)
  unsigned calls = 0;           // collectives and groups so far (FAKE_NCCL_ASYNC_ERROR_RANK)
};

namespace {

void maybe_corrupt(ncclComm_t comm, void* recv, size_t bytes) {
  if (recv && bytes > 0 && env_int("FAKE_NCCL_CORRUPT_RANK", -1) == comm->rank) static_cast<unsigned char*>(recv)[0] ^= 0x40;
}

// FAKE_NCCL_HANG_RANK: the rank's first collective sleeps (fabdiag's --timeout must cut the run).
void maybe_hang(ncclComm_t comm) {
  if (comm->calls == 0 && env_int("FAKE_NCCL_HANG_RANK", -1) == comm->rank) sleep(3600);
  ++comm->calls;
}

// Every rank posts a copy of its send buffer (`send_bytes` long), `body(sends)` runs on each
// rank once all have posted, and nobody leaves before all are done (a copy may not change
// while another rank reads it). Across processes the copies are the ranks' slots.
template <typename F>
ncclResult_t collective(ncclComm_t comm, cudaStream_t stream, const void* send, size_t send_bytes, F body) {
  return enqueue(stream, [=]() -> ncclResult_t {
    maybe_hang(comm);
    if (fake_nccl::ShmGroup* g = comm->shm) {
      if (send_bytes > g->slot_bytes) {
        last_error = "fake: " + std::to_string(send_bytes) + " bytes exceed FAKE_NCCL_SHM_SLOT_BYTES";
        return ncclInvalidUsage;
      }
      if (send_bytes) std::memcpy(g->slot(g->rank), send, send_bytes);
      if (!g->barrier(last_error)) return ncclSystemError;
      Sends sends;
      for (int r = 0; r < g->n; ++r) sends.push_back(g->slot(r));
      body(sends);
      return g->barrier(last_error) ? ncclSuccess : ncclSystemError;
    }
    Clique& c = *comm->clique;
    std::unique_lock lk(c.mu);
    const auto* p = static_cast<const unsigned char*>(send);
    c.copies[static_cast<size_t>(comm->rank)].assign(p, p + send_bytes);
    c.barrier(lk);
    Sends sends;
    for (const auto& b : c.copies) sends.push_back(b.data());
    lk.unlock();
    body(sends);
    lk.lock();
    c.barrier(lk);
    return ncclSuccess;
  });
}

struct PendingP2P {
  bool is_send;
  void* buf;
  size_t bytes;
  int peer;
  ncclComm_t comm;
  cudaStream_t stream;
};
thread_local int group_depth = 0;
thread_local std::vector<PendingP2P> pending;

// The point-to-point calls of a group across processes: sends first (each mailbox holds one
// message), then the receives, so no rank waits on a peer that waits on it.
ncclResult_t exchange_shm(fake_nccl::ShmGroup& g, const std::vector<PendingP2P>& ops) {
  for (const auto& op : ops)
    if (op.is_send && !g.send(op.peer, op.buf, op.bytes, last_error)) return ncclSystemError;
  for (const auto& op : ops) {
    if (op.is_send) continue;
    if (!g.recv(op.peer, op.buf, op.bytes, last_error)) return ncclSystemError;
    maybe_corrupt(op.comm, op.buf, op.bytes);
  }
  return ncclSuccess;
}

// The point-to-point calls of a group in one process: all sends are posted (copied), the
// ranks meet, the receives copy.
ncclResult_t exchange(const std::vector<PendingP2P>& ops) {
  maybe_hang(ops.front().comm);
  if (fake_nccl::ShmGroup* g = ops.front().comm->shm) return exchange_shm(*g, ops);
  Clique& c = *ops.front().comm->clique;
  const int me = ops.front().comm->rank;
  std::unique_lock lk(c.mu);
  for (const auto& op : ops) {
    const auto* p = static_cast<const unsigned char*>(op.buf);
    if (op.is_send) c.mail[{me, op.peer}].emplace_back(p, p + op.bytes);
  }
  c.barrier(lk);
  ncclResult_t rc = ncclSuccess;
  for (const auto& op : ops) {
    if (op.is_send) continue;
    auto& box = c.mail[{op.peer, me}];
    if (box.empty()) {
      last_error = "fake: ncclRecv from rank " + std::to_string(op.peer) + " has no matching ncclSend";
      rc = ncclInvalidUsage;
      continue;
    }
    std::memcpy(op.buf, box.front().data(), std::min(op.bytes, box.front().size()));
    box.pop_front();
    maybe_corrupt(op.comm, op.buf, op.bytes);
  }
  c.barrier(lk);
  return rc;
}

ncclResult_t run_pending() {
  std::vector<PendingP2P> ops;
  ops.swap(pending);
  if (ops.empty()) return ncclSuccess;
  return enqueue(ops.front().stream, [ops] { return exchange(ops); });
}

ncclResult_t post_p2p(PendingP2P op) {
  if (op.peer < 0 || op.peer >= op.comm->n) return ncclInvalidArgument;
  pending.push_back(op);
  return group_depth == 0 ? run_pending() : ncclSuccess;
}

}  // namespace

extern "C" {

ncclResult_t ncclGetVersion(int* version) {
  *version = NCCL_VERSION_CODE;
  return ncclSuccess;
}

const char* ncclGetErrorString(ncclResult_t rc) {
  switch (rc) {
    case ncclSuccess: return "no error";
    case ncclSystemError: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError: return "remote process exited or there was a network error";
    default: return "fake NCCL error";
  }
}

const char* ncclGetLastError(ncclComm_t) { return last_error.c_str(); }

ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int* devlist) {
  if (env_int("FAKE_NCCL_INIT_FAIL", 0) != 0) {
    last_error = "fake: ncclCommInitAll fails on purpose (FAKE_NCCL_INIT_FAIL=1)";
    return ncclSystemError;
  }
  if (ndev < 1) return ncclInvalidArgument;
  for (int i = 0; i < ndev; ++i)
    if (devlist && (devlist[i] < 0 || devlist[i] >= env_int("FAKE_CUDA_DEVICES", 8))) {
      last_error = "fake: device " + std::to_string(devlist[i]) + " does not exist";
      return ncclInvalidArgument;
    }
  auto* clique = new Clique(ndev);
  clique->alive = ndev;
  for (int i = 0; i < ndev; ++i) {
    comms[i] = new ncclComm{clique, nullptr, i, ndev};
    fake_nccl::log_comm_init(i, ndev, devlist ? devlist[i] : i, true);
  }
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (!comm) return ncclInvalidArgument;
  if (comm->shm) {
    delete comm->shm;
    delete comm;
    return ncclSuccess;
  }
  Clique* c = comm->clique;
  bool last = false;
  {
    std::lock_guard lk(c->mu);
    last = --c->alive == 0;
  }
  delete comm;
  if (last) delete c;
  return ncclSuccess;
}

ncclResult_t ncclAllReduce(const void* send, void* recv, size_t count, ncclDataType_t t, ncclRedOp_t, ncclComm_t comm,
                           cudaStream_t stream) {
  return collective(comm, stream, send, count * type_size(t), [=](const Sends& sends) {
    sum_into(sends, t, recv, 0, count);
    maybe_corrupt(comm, recv, count * type_size(t));
  });
}

ncclResult_t ncclReduceScatter(const void* send, void* recv, size_t count, ncclDataType_t t, ncclRedOp_t,
                               ncclComm_t comm, cudaStream_t stream) {
  const size_t bytes = static_cast<size_t>(comm->n) * count * type_size(t);
  return collective(comm, stream, send, bytes, [=](const Sends& sends) {
    sum_into(sends, t, recv, static_cast<size_t>(comm->rank) * count, count);
    maybe_corrupt(comm, recv, count * type_size(t));
  });
}

ncclResult_t ncclAllGather(const void* send, void* recv, size_t count, ncclDataType_t t, ncclComm_t comm,
                           cudaStream_t stream) {
  const size_t block = count * type_size(t);
  return collective(comm, stream, send, block, [=](const Sends& sends) {
    for (size_t r = 0; r < sends.size(); ++r) std::memcpy(static_cast<char*>(recv) + r * block, sends[r], block);
    maybe_corrupt(comm, recv, block * sends.size());
  });
}

#ifndef FAKE_NCCL_NO_ALLTOALL
ncclResult_t ncclAlltoAll(const void* send, void* recv, size_t count, ncclDataType_t t, ncclComm_t comm,
                          cudaStream_t stream) {
  const size_t block = count * type_size(t);
  return collective(comm, stream, send, block * static_cast<size_t>(comm->n), [=](const Sends& sends) {
    for (size_t r = 0; r < sends.size(); ++r)
      std::memcpy(static_cast<char*>(recv) + r * block,
                  static_cast<const char*>(sends[r]) + static_cast<size_t>(comm->rank) * block, block);
    maybe_corrupt(comm, recv, block * sends.size());
  });
}

ncclResult_t ncclGather(const void* send, void* recv, size_t count, ncclDataType_t t, int root, ncclComm_t comm,
                        cudaStream_t stream) {
  if (root < 0 || root >= comm->n) return ncclInvalidArgument;
  const size_t block = count * type_size(t);
  return collective(comm, stream, send, block, [=](const Sends& sends) {
    if (comm->rank != root) return;
    for (size_t r = 0; r < sends.size(); ++r) std::memcpy(static_cast<char*>(recv) + r * block, sends[r], block);
    maybe_corrupt(comm, recv, block * sends.size());
  });
}

ncclResult_t ncclScatter(const void* send, void* recv, size_t count, ncclDataType_t t, int root, ncclComm_t comm,
                         cudaStream_t stream) {
  if (root < 0 || root >= comm->n) return ncclInvalidArgument;
  const size_t block = count * type_size(t);
  const size_t bytes = comm->rank == root ? block * static_cast<size_t>(comm->n) : 0;
  return collective(comm, stream, send, bytes, [=](const Sends& sends) {
    std::memcpy(recv, static_cast<const char*>(sends[static_cast<size_t>(root)]) + static_cast<size_t>(comm->rank) * block,
                block);
    maybe_corrupt(comm, recv, block);
  });
}
#endif

ncclResult_t ncclBroadcast(const void* send, void* recv, size_t count, ncclDataType_t t, int root, ncclComm_t comm,
                           cudaStream_t stream) {
  if (root < 0 || root >= comm->n) return ncclInvalidArgument;
  const size_t bytes = comm->rank == root ? count * type_size(t) : 0;
  return collective(comm, stream, send, bytes, [=](const Sends& sends) {
    std::memcpy(recv, sends[static_cast<size_t>(root)], count * type_size(t));
    maybe_corrupt(comm, recv, count * type_size(t));
  });
}

ncclResult_t ncclReduce(const void* send, void* recv, size_t count, ncclDataType_t t, ncclRedOp_t, int root,
                        ncclComm_t comm, cudaStream_t stream) {
  if (root < 0 || root >= comm->n) return ncclInvalidArgument;
  return collective(comm, stream, send, count * type_size(t), [=](const Sends& sends) {
    if (comm->rank != root) return;
    sum_into(sends, t, recv, 0, count);
    maybe_corrupt(comm, recv, count * type_size(t));
  });
}

ncclResult_t ncclSend(const void* send, size_t count, ncclDataType_t t, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  return post_p2p({true, const_cast<void*>(send), count * type_size(t), peer, comm, stream});
}

ncclResult_t ncclRecv(void* recv, size_t count, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t stream) {
  return post_p2p({false, recv, count * type_size(t), peer, comm, stream});
}

ncclResult_t ncclGroupStart() {
  ++group_depth;
  return ncclSuccess;
}

ncclResult_t ncclGroupEnd() {
  if (group_depth == 0) return ncclInvalidUsage;
  return --group_depth == 0 ? run_pending() : ncclSuccess;
}

// ---- one process per rank: ncclGetUniqueId, ncclCommInitRank, ncclCommSplit ----

ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  static std::atomic<unsigned> seq{0};
  std::memset(id->internal, 0, sizeof id->internal);
  const long long now = std::chrono::steady_clock::now().time_since_epoch().count();
  const std::string name = "/fakenccl-" + std::to_string(getpid()) + "-" + std::to_string(seq++) + "-" +
                           std::to_string(now % 1000000007);
  std::memcpy(id->internal, name.data(), name.size());
  return ncclSuccess;
}

namespace {

ncclResult_t join_group(ncclComm_t* out, const std::string& name, int nranks, int rank) {
  auto* g = fake_nccl::ShmGroup::join(name, nranks, rank, last_error);
  if (!g) return ncclSystemError;
  *out = new ncclComm{nullptr, g, rank, nranks};
  return ncclSuccess;
}

}  // namespace

ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank) {
  if (nranks < 1 || rank < 0 || rank >= nranks) return ncclInvalidArgument;
  if (env_int("FAKE_NCCL_INIT_FAIL_RANK", -1) == rank) {
    last_error = "fake: ncclCommInitRank fails on rank " + std::to_string(rank) + " on purpose (FAKE_NCCL_INIT_FAIL_RANK)";
    return ncclSystemError;
  }
  const std::string name(id.internal, strnlen(id.internal, sizeof id.internal));
  if (name.rfind("/fakenccl-", 0) != 0) {
    last_error = "fake: the unique id does not come from this fake's ncclGetUniqueId";
    return ncclInvalidArgument;
  }
  const ncclResult_t rc = join_group(comm, name, nranks, rank);
  // The device is the rank's: the fake's tests run every rank on one host (local rank = rank).
  if (rc == ncclSuccess) fake_nccl::log_comm_init(rank, nranks, rank, false);
  return rc;
}

#ifndef FAKE_NCCL_NO_ALLTOALL  // the old-NCCL build also lacks ncclCommSplit (NCCL before 2.18)
// Collective over `comm`: every rank posts (color, key) in its slot; ranks of one color form a
// group ordered by (key, parent rank), meeting in a segment named after the parent's.
ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t* newcomm, ncclConfig_t*) {
  fake_nccl::ShmGroup* g = comm ? comm->shm : nullptr;
  if (!g) {
    last_error = "fake: ncclCommSplit needs a communicator of ncclCommInitRank";
    return ncclInvalidUsage;
  }
  const int mine[2] = {color, key};
  std::memcpy(g->slot(g->rank), mine, sizeof mine);
  if (!g->barrier(last_error)) return ncclSystemError;
  std::vector<std::pair<int, int>> members;  // (key, parent rank) of my color
  for (int r = 0; r < g->n; ++r) {
    int theirs[2];
    std::memcpy(theirs, g->slot(r), sizeof theirs);
    if (theirs[0] == color) members.push_back({theirs[1], r});
  }
  if (!g->barrier(last_error)) return ncclSystemError;  // slots read before they are reused
  const unsigned seq = comm->splits++;
  if (color == NCCL_SPLIT_NOCOLOR) {
    *newcomm = nullptr;
    return ncclSuccess;
  }
  std::sort(members.begin(), members.end());
  int new_rank = 0;
  while (members[static_cast<size_t>(new_rank)].second != g->rank) ++new_rank;
  return join_group(newcomm, g->name + ".s" + std::to_string(seq) + "c" + std::to_string(color),
                    static_cast<int>(members.size()), new_rank);
}
#endif

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* async_error) {
  if (!comm || !async_error) return ncclInvalidArgument;
  const bool inject = comm->calls > 0 && env_int("FAKE_NCCL_ASYNC_ERROR_RANK", -1) == comm->rank;
  if (inject) last_error = "fake: a remote peer failed (FAKE_NCCL_ASYNC_ERROR_RANK)";
  const auto replayed = static_cast<ncclResult_t>(replay_error.load());
  *async_error = inject ? ncclRemoteError : replayed;
  return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (comm && comm->shm) return ncclCommDestroy(comm);
  return ncclSuccess;  // the one-process fake: the clique is freed by ncclCommDestroy
}

}  // extern "C"
