#include "perf/nccl/nccl_comm.h"

#include <chrono>

namespace fabdiag::perf {

namespace {

ncclDataType_t nccl_type(DataType t) {
  switch (t) {
    case DataType::kUint8: return ncclUint8;
    case DataType::kInt32: return ncclInt32;
    case DataType::kInt64: return ncclInt64;
    case DataType::kFloat: return ncclFloat32;
    case DataType::kDouble: return ncclFloat64;
  }
  return ncclFloat32;
}

Error aborted() {
  return make_error(ErrorCode::kUnavailable, "another rank of this process stopped (its error is reported)");
}

}  // namespace

// ---- HostRendezvous ----

HostRendezvous::HostRendezvous(int n_ranks)
    : n_(n_ranks), strings_(static_cast<size_t>(n_ranks)), doubles_(static_cast<size_t>(n_ranks)) {}

Status HostRendezvous::wait_locked(std::unique_lock<std::mutex>& lk) {
  if (aborted_) return aborted();
  const unsigned long gen = generation_;
  if (++arrived_ == n_) {
    arrived_ = 0;
    ++generation_;
    cv_.notify_all();
    return Ok{};
  }
  cv_.wait(lk, [&] { return generation_ != gen || aborted_; });
  if (generation_ == gen) return aborted();
  return Ok{};
}

Status HostRendezvous::arrive_and_wait() {
  std::unique_lock lk(mu_);
  return wait_locked(lk);
}

Result<std::vector<std::string>> HostRendezvous::exchange_strings(int rank, const std::string& mine) {
  std::unique_lock lk(mu_);
  strings_[static_cast<size_t>(rank)] = mine;
  if (auto st = wait_locked(lk); !st) return st.error();
  std::vector<std::string> out = strings_;
  // Nobody may write the next exchange's slot before everyone has read this one.
  if (auto st = wait_locked(lk); !st) return st.error();
  return out;
}

Result<std::vector<double>> HostRendezvous::exchange_doubles(int rank, double mine) {
  std::unique_lock lk(mu_);
  doubles_[static_cast<size_t>(rank)] = mine;
  if (auto st = wait_locked(lk); !st) return st.error();
  std::vector<double> out = doubles_;
  if (auto st = wait_locked(lk); !st) return st.error();
  return out;
}

void HostRendezvous::abort() {
  std::lock_guard lk(mu_);
  aborted_ = true;
  cv_.notify_all();
}

// ---- NcclComm: set-up, host-side exchanges ----

NcclComm::NcclComm(const NcclApi& api, ncclComm_t comm, int rank, int n_ranks, int device,
                   HostExchange& rendezvous, std::vector<std::string> hosts)
    : api_(api), comm_(comm), rank_(rank), n_(n_ranks), device_(device), rv_(rendezvous),
      hosts_(std::move(hosts)) {}

NcclComm::~NcclComm() {
  destroy_graph();
  for (cudaEvent_t e : lap_events_) api_.cuda.event_destroy(e);
  if (start_) api_.cuda.event_destroy(start_);
  if (stop_) api_.cuda.event_destroy(stop_);
  if (stream_) api_.cuda.stream_destroy(stream_);
}

Status NcclComm::open() {
  if (auto st = cuda_check(api_.cuda.set_device(device_), "cudaSetDevice(" + std::to_string(device_) + ")"); !st)
    return st;
  if (auto st = cuda_check(api_.cuda.stream_create(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); !st)
    return st;
  if (auto st = cuda_check(api_.cuda.event_create(&start_), "cudaEventCreate"); !st) return st;
  return cuda_check(api_.cuda.event_create(&stop_), "cudaEventCreate");
}

double NcclComm::wall_time_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Status NcclComm::barrier() {
  if (auto st = cuda_check(api_.cuda.stream_synchronize(stream_), "cudaStreamSynchronize"); !st) return st;
  if (auto st = check_async_error(); !st) return st;
  return rv_.arrive_and_wait();
}

Result<std::vector<std::string>> NcclComm::allgather_strings(const std::string& mine) {
  return rv_.exchange_strings(rank_, mine);
}

Result<std::vector<std::string>> NcclComm::gather_strings(const std::string& mine, int root) {
  auto all = allgather_strings(mine);
  if (!all || rank_ == root) return all;
  return std::vector<std::string>{};
}

Result<std::string> NcclComm::broadcast_string(const std::string& value, int root) {
  if (root < 0 || root >= n_)
    return make_error(ErrorCode::kInvalidArgument, "broadcast root " + std::to_string(root) + " is not a rank",
                      describe_rank(rank_));
  auto all = allgather_strings(rank_ == root ? value : std::string());
  if (!all) return all.error();
  return (*all)[static_cast<size_t>(root)];
}

Result<std::vector<double>> NcclComm::allgather_double(double mine) { return rv_.exchange_doubles(rank_, mine); }

// ---- collectives (enqueued on the stream) ----

Status NcclComm::all_reduce(const void* send, void* recv, size_t count, DataType dtype) {
  return nccl_check(api_.nccl.all_reduce(send, recv, count, nccl_type(dtype), ncclSum, comm_, stream_),
                    "ncclAllReduce");
}

Status NcclComm::all_gather(const void* send, void* recv, size_t count, DataType dtype) {
  return nccl_check(api_.nccl.all_gather(send, recv, count, nccl_type(dtype), comm_, stream_), "ncclAllGather");
}

Status NcclComm::reduce_scatter(const void* send, void* recv, size_t count, DataType dtype) {
  return nccl_check(api_.nccl.reduce_scatter(send, recv, count, nccl_type(dtype), ncclSum, comm_, stream_),
                    "ncclReduceScatter");
}

Status NcclComm::alltoall(const void* send, void* recv, size_t count, DataType dtype) {
  if (!api_.nccl.alltoall) return grouped_alltoall(send, recv, count, dtype);
  return nccl_check(api_.nccl.alltoall(send, recv, count, nccl_type(dtype), comm_, stream_), "ncclAlltoAll");
}

Status NcclComm::grouped_alltoall(const void* send, void* recv, size_t count, DataType dtype) {
  const size_t block = count * dtype_size_bytes(dtype);
  if (auto st = nccl_check(api_.nccl.group_start(), "ncclGroupStart"); !st) return st;
  Status failed = Ok{};
  for (int r = 0; r < n_ && failed; ++r) {
    const auto* s = static_cast<const unsigned char*>(send) + static_cast<size_t>(r) * block;
    auto* d = static_cast<unsigned char*>(recv) + static_cast<size_t>(r) * block;
    failed = nccl_check(api_.nccl.send(s, count, nccl_type(dtype), r, comm_, stream_), "ncclSend (alltoall)");
    if (failed) failed = nccl_check(api_.nccl.recv(d, count, nccl_type(dtype), r, comm_, stream_), "ncclRecv (alltoall)");
  }
  // The group is closed even after a failed call, so NCCL's group state is not left open.
  Status ended = nccl_check(api_.nccl.group_end(), "ncclGroupEnd (alltoall)");
  return failed ? ended : failed;
}

Status NcclComm::broadcast(const void* send, void* recv, size_t count, DataType dtype, int root) {
  return nccl_check(api_.nccl.broadcast(send, recv, count, nccl_type(dtype), root, comm_, stream_), "ncclBroadcast");
}

Status NcclComm::reduce(const void* send, void* recv, size_t count, DataType dtype, int root) {
  return nccl_check(api_.nccl.reduce(send, recv, count, nccl_type(dtype), ncclSum, root, comm_, stream_),
                    "ncclReduce");
}

Status NcclComm::sendrecv(const void* send, size_t send_count, int dest, void* recv, size_t recv_count, int source,
                          DataType dtype) {
  if (dest < 0 || dest >= n_ || source < 0 || source >= n_)
    return make_error(ErrorCode::kInvalidArgument, "sendrecv peer out of range (dest " + std::to_string(dest) +
                                                       ", source " + std::to_string(source) + ")",
                      describe_rank(rank_));
  if (auto st = nccl_check(api_.nccl.group_start(), "ncclGroupStart"); !st) return st;
  Status failed = nccl_check(api_.nccl.send(send, send_count, nccl_type(dtype), dest, comm_, stream_), "ncclSend");
  if (failed)
    failed = nccl_check(api_.nccl.recv(recv, recv_count, nccl_type(dtype), source, comm_, stream_), "ncclRecv");
  Status ended = nccl_check(api_.nccl.group_end(), "ncclGroupEnd (sendrecv)");
  return failed ? ended : failed;
}

Status NcclComm::gather(const void* send, void* recv, size_t count, DataType dtype, int root) {
  if (root < 0 || root >= n_) return make_error(ErrorCode::kInvalidArgument, "gather root out of range", describe_rank(rank_));
  if (api_.nccl.gather)
    return nccl_check(api_.nccl.gather(send, recv, count, nccl_type(dtype), root, comm_, stream_), "ncclGather");
  const size_t block = count * dtype_size_bytes(dtype);
  if (auto st = nccl_check(api_.nccl.group_start(), "ncclGroupStart"); !st) return st;
  Status failed = nccl_check(api_.nccl.send(send, count, nccl_type(dtype), root, comm_, stream_), "ncclSend (gather)");
  for (int r = 0; r < n_ && failed && rank_ == root; ++r)
    failed = nccl_check(api_.nccl.recv(static_cast<unsigned char*>(recv) + static_cast<size_t>(r) * block, count,
                                       nccl_type(dtype), r, comm_, stream_),
                        "ncclRecv (gather)");
  Status ended = nccl_check(api_.nccl.group_end(), "ncclGroupEnd (gather)");
  return failed ? ended : failed;
}

Status NcclComm::scatter(const void* send, void* recv, size_t count, DataType dtype, int root) {
  if (root < 0 || root >= n_) return make_error(ErrorCode::kInvalidArgument, "scatter root out of range", describe_rank(rank_));
  if (api_.nccl.scatter)
    return nccl_check(api_.nccl.scatter(send, recv, count, nccl_type(dtype), root, comm_, stream_), "ncclScatter");
  const size_t block = count * dtype_size_bytes(dtype);
  if (auto st = nccl_check(api_.nccl.group_start(), "ncclGroupStart"); !st) return st;
  Status failed = Ok{};
  for (int r = 0; r < n_ && failed && rank_ == root; ++r)
    failed = nccl_check(api_.nccl.send(static_cast<const unsigned char*>(send) + static_cast<size_t>(r) * block, count,
                                       nccl_type(dtype), r, comm_, stream_),
                        "ncclSend (scatter)");
  if (failed) failed = nccl_check(api_.nccl.recv(recv, count, nccl_type(dtype), root, comm_, stream_), "ncclRecv (scatter)");
  Status ended = nccl_check(api_.nccl.group_end(), "ncclGroupEnd (scatter)");
  return failed ? ended : failed;
}

Status NcclComm::hypercube(const void* send, void* recv, size_t count, DataType dtype) {
  if ((n_ & (n_ - 1)) != 0)
    return make_error(ErrorCode::kInvalidArgument, "hypercube needs a power-of-two rank count", describe_rank(rank_));
  const size_t block = count * dtype_size_bytes(dtype);
  auto* out = static_cast<unsigned char*>(recv);
  if (out + static_cast<size_t>(rank_) * block != send)
    if (auto st = cuda_check(api_.cuda.memcpy_async(out + static_cast<size_t>(rank_) * block, send, block,
                                                    cudaMemcpyDeviceToDevice, stream_),
                             "cudaMemcpyAsync (hypercube)");
        !st)
      return st;
  for (int mask = 1; mask < n_; mask <<= 1) {
    const int mine = rank_ & ~(mask - 1), theirs = mine ^ mask, peer = rank_ ^ mask;
    const size_t elems = count * static_cast<size_t>(mask);
    if (auto st = nccl_check(api_.nccl.group_start(), "ncclGroupStart"); !st) return st;
    Status failed = nccl_check(api_.nccl.send(out + static_cast<size_t>(mine) * block, elems, nccl_type(dtype), peer,
                                              comm_, stream_),
                               "ncclSend (hypercube)");
    if (failed)
      failed = nccl_check(api_.nccl.recv(out + static_cast<size_t>(theirs) * block, elems, nccl_type(dtype), peer,
                                         comm_, stream_),
                          "ncclRecv (hypercube)");
    Status ended = nccl_check(api_.nccl.group_end(), "ncclGroupEnd (hypercube)");
    if (!failed) return failed;
    if (!ended) return ended;
  }
  return Ok{};
}

// ---- device memory and timing ----

Result<void*> NcclComm::allocate_device(size_t bytes) {
  void* p = nullptr;
  if (auto st = cuda_check(api_.cuda.malloc(&p, bytes), "cudaMalloc(" + std::to_string(bytes) + " bytes)"); !st)
    return st.error();
  return p;
}

void NcclComm::free_device(void* buf) {
  if (buf) api_.cuda.free(buf);
}

// Copies run on the rank's own stream, so they are ordered with its collectives (the stream is
// non-blocking: a plain cudaMemcpy on the default stream would not be), and complete on return.
Status NcclComm::copy_on_stream(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, const char* what) {
  if (auto st = cuda_check(api_.cuda.memcpy_async(dst, src, bytes, kind, stream_), what); !st) return st;
  return cuda_check(api_.cuda.stream_synchronize(stream_), std::string("cudaStreamSynchronize after ") + what);
}

Status NcclComm::copy_to_device(void* device, const void* host, size_t bytes) {
  return copy_on_stream(device, host, bytes, cudaMemcpyHostToDevice, "cudaMemcpyAsync (host to device)");
}

Status NcclComm::copy_from_device(void* host, const void* device, size_t bytes) {
  return copy_on_stream(host, device, bytes, cudaMemcpyDeviceToHost, "cudaMemcpyAsync (device to host)");
}

Status NcclComm::start_timer() { return cuda_check(api_.cuda.event_record(start_, stream_), "cudaEventRecord"); }

Result<double> NcclComm::stop_timer_s() {
  if (auto st = cuda_check(api_.cuda.event_record(stop_, stream_), "cudaEventRecord"); !st) return st.error();
  if (auto st = cuda_check(api_.cuda.event_synchronize(stop_), "cudaEventSynchronize"); !st) return st.error();
  if (auto st = check_async_error(); !st) return st.error();
  float ms = 0;
  if (auto st = cuda_check(api_.cuda.event_elapsed_time(&ms, start_, stop_), "cudaEventElapsedTime"); !st)
    return st.error();
  return static_cast<double>(ms) / 1e3;
}

Status NcclComm::cuda_check(cudaError_t rc, const std::string& call) const {
  if (rc == cudaSuccess) return Ok{};
  return make_error(ErrorCode::kUnavailable, call + " failed: " + api_.cuda.error_text(rc),
                    describe_rank(rank_) + " GPU " + std::to_string(device_));
}

Status NcclComm::check_async_error() const {
  if (!api_.nccl.comm_get_async_error) return Ok{};
  ncclResult_t async = ncclSuccess;
  if (auto st = nccl_check(api_.nccl.comm_get_async_error(comm_, &async), "ncclCommGetAsyncError"); !st) return st;
  if (async == ncclSuccess || async == ncclInProgress) return Ok{};
  return make_error(ErrorCode::kUnavailable, "NCCL asynchronous error: " + api_.nccl.error_text(async, comm_),
                    describe_rank(rank_) + " GPU " + std::to_string(device_));
}

Status NcclComm::nccl_check(ncclResult_t rc, const std::string& call) const {
  if (rc == ncclSuccess) return Ok{};
  return make_error(ErrorCode::kUnavailable, call + " failed: " + api_.nccl.error_text(rc, comm_),
                    describe_rank(rank_) + " GPU " + std::to_string(device_));
}

}  // namespace fabdiag::perf
