// A libnccl stand-in for the NCCL backend's tests (tests/cli/nccl_fake_bench_test.sh): the N
// "GPUs" of ncclCommInitAll are N threads of one process sharing host memory, and every call
// runs to completion before it returns (the ranks meet in the clique's barrier), so a stream
// holds no pending work. Built with the real nccl.h, so the signatures are NCCL's.
// FAKE_NCCL_NO_ALLTOALL (compile definition) leaves out ncclAlltoAll, ncclGather and
// ncclScatter, as NCCL before 2.28 lacks them, so the backend's grouped ncclSend/ncclRecv paths
// run. On a stream that the fake libcudart is capturing into a CUDA graph (cudaStreamIsCapturing,
// found in whichever loaded library exports it: the fake the backend loaded), a call is not run but handed
// to cudaLaunchHostFunc, so the graph's launches replay it.
//
// Environment:
//   FAKE_CUDA_DEVICES=N      GPUs that exist (as the fake libcudart; default 8).
//   FAKE_NCCL_INIT_FAIL=1    ncclCommInitAll returns ncclSystemError.
//   FAKE_NCCL_CORRUPT_RANK=r after every call, rank r's first received byte is flipped, so the
//                            benchmark's data check must count wrong elements on rank r.
#include <dlfcn.h>
#include <link.h>
#include <nccl.h>

#include <algorithm>
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

namespace {

struct Clique {
  explicit Clique(int ranks) : n(ranks), send(static_cast<size_t>(ranks)), recv(static_cast<size_t>(ranks)) {}
  const int n;
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0;
  unsigned long generation = 0;
  int alive = 0;  // communicators not yet destroyed
  std::vector<const void*> send;
  std::vector<void*> recv;
  std::map<std::pair<int, int>, std::deque<std::pair<const void*, size_t>>> mail;  // (src, dst)

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

std::string last_error;  // what ncclGetLastError says (set before a call fails)

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

// recv[i] = sum over ranks r of send_r[offset + i], i < count.
void sum_into(Clique& c, ncclDataType_t t, void* recv, size_t offset, size_t count) {
  typed(t, [&](auto zero) {
    using T = decltype(zero);
    for (size_t i = 0; i < count; ++i) {
      T s = 0;
      for (int r = 0; r < c.n; ++r) s = static_cast<T>(s + static_cast<const T*>(c.send[static_cast<size_t>(r)])[offset + i]);
      static_cast<T*>(recv)[i] = s;
    }
  });
}

void maybe_corrupt(ncclComm_t comm, void* recv, size_t bytes);

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

using Call = std::function<void()>;
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
    auto run = [](void* p) { (*static_cast<Call*>(p))(); };
    return h.launch_host_func(stream, run, kept) == cudaSuccess ? ncclSuccess : ncclUnhandledCudaError;
  }
  call();
  return ncclSuccess;
}

}  // namespace

struct ncclComm {
  Clique* clique;
  int rank;
};

namespace {

void maybe_corrupt(ncclComm_t comm, void* recv, size_t bytes) {
  if (recv && bytes > 0 && env_int("FAKE_NCCL_CORRUPT_RANK", -1) == comm->rank) static_cast<unsigned char*>(recv)[0] ^= 0x40;
}

// Every rank posts its buffers, `body` runs on each rank once all have posted, and nobody leaves
// before all are done (a send buffer may not change while another rank reads it).
template <typename F>
ncclResult_t collective(ncclComm_t comm, cudaStream_t stream, const void* send, void* recv, F body) {
  return enqueue(stream, [=] {
    Clique& c = *comm->clique;
    std::unique_lock lk(c.mu);
    c.send[static_cast<size_t>(comm->rank)] = send;
    c.recv[static_cast<size_t>(comm->rank)] = recv;
    c.barrier(lk);
    lk.unlock();
    body(c);
    lk.lock();
    c.barrier(lk);
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

// The point-to-point calls of a group: all sends are posted, the ranks meet, the receives copy.
ncclResult_t exchange(const std::vector<PendingP2P>& ops) {
  Clique& c = *ops.front().comm->clique;
  const int me = ops.front().comm->rank;
  std::unique_lock lk(c.mu);
  for (const auto& op : ops)
    if (op.is_send) c.mail[{me, op.peer}].push_back({op.buf, op.bytes});
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
    std::memcpy(op.buf, box.front().first, std::min(op.bytes, box.front().second));
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
  return enqueue(ops.front().stream, [ops] { exchange(ops); });
}

ncclResult_t post_p2p(PendingP2P op) {
  if (op.peer < 0 || op.peer >= op.comm->clique->n) return ncclInvalidArgument;
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
  for (int i = 0; i < ndev; ++i) comms[i] = new ncclComm{clique, i};
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
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
  return collective(comm, stream, send, recv, [=](Clique& c) {
    sum_into(c, t, recv, 0, count);
    maybe_corrupt(comm, recv, count * type_size(t));
  });
}

ncclResult_t ncclReduceScatter(const void* send, void* recv, size_t count, ncclDataType_t t, ncclRedOp_t,
                               ncclComm_t comm, cudaStream_t stream) {
  return collective(comm, stream, send, recv, [=](Clique& c) {
    sum_into(c, t, recv, static_cast<size_t>(comm->rank) * count, count);
    maybe_corrupt(comm, recv, count * type_size(t));
  });
}

ncclResult_t ncclAllGather(const void* send, void* recv, size_t count, ncclDataType_t t, ncclComm_t comm,
                           cudaStream_t stream) {
  const size_t block = count * type_size(t);
  return collective(comm, stream, send, recv, [=](Clique& c) {
    for (int r = 0; r < c.n; ++r)
      std::memcpy(static_cast<char*>(recv) + static_cast<size_t>(r) * block, c.send[static_cast<size_t>(r)], block);
    maybe_corrupt(comm, recv, block * static_cast<size_t>(c.n));
  });
}

#ifndef FAKE_NCCL_NO_ALLTOALL
ncclResult_t ncclAlltoAll(const void* send, void* recv, size_t count, ncclDataType_t t, ncclComm_t comm,
                          cudaStream_t stream) {
  const size_t block = count * type_size(t);
  return collective(comm, stream, send, recv, [=](Clique& c) {
    for (int r = 0; r < c.n; ++r)
      std::memcpy(static_cast<char*>(recv) + static_cast<size_t>(r) * block,
                  static_cast<const char*>(c.send[static_cast<size_t>(r)]) + static_cast<size_t>(comm->rank) * block,
                  block);
    maybe_corrupt(comm, recv, block * static_cast<size_t>(c.n));
  });
}

ncclResult_t ncclGather(const void* send, void* recv, size_t count, ncclDataType_t t, int root, ncclComm_t comm,
                        cudaStream_t stream) {
  if (root < 0 || root >= comm->clique->n) return ncclInvalidArgument;
  const size_t block = count * type_size(t);
  return collective(comm, stream, send, recv, [=](Clique& c) {
    if (comm->rank != root) return;
    for (int r = 0; r < c.n; ++r)
      std::memcpy(static_cast<char*>(recv) + static_cast<size_t>(r) * block, c.send[static_cast<size_t>(r)], block);
    maybe_corrupt(comm, recv, block * static_cast<size_t>(c.n));
  });
}

ncclResult_t ncclScatter(const void* send, void* recv, size_t count, ncclDataType_t t, int root, ncclComm_t comm,
                         cudaStream_t stream) {
  if (root < 0 || root >= comm->clique->n) return ncclInvalidArgument;
  const size_t block = count * type_size(t);
  return collective(comm, stream, send, recv, [=](Clique& c) {
    std::memcpy(recv, static_cast<const char*>(c.send[static_cast<size_t>(root)]) + static_cast<size_t>(comm->rank) * block,
                block);
    maybe_corrupt(comm, recv, block);
  });
}
#endif

ncclResult_t ncclBroadcast(const void* send, void* recv, size_t count, ncclDataType_t t, int root, ncclComm_t comm,
                           cudaStream_t stream) {
  if (root < 0 || root >= comm->clique->n) return ncclInvalidArgument;
  return collective(comm, stream, send, recv, [=](Clique& c) {
    std::memcpy(recv, c.send[static_cast<size_t>(root)], count * type_size(t));
    maybe_corrupt(comm, recv, count * type_size(t));
  });
}

ncclResult_t ncclReduce(const void* send, void* recv, size_t count, ncclDataType_t t, ncclRedOp_t, int root,
                        ncclComm_t comm, cudaStream_t stream) {
  if (root < 0 || root >= comm->clique->n) return ncclInvalidArgument;
  return collective(comm, stream, send, recv, [=](Clique& c) {
    if (comm->rank != root) return;
    sum_into(c, t, recv, 0, count);
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

}  // extern "C"
