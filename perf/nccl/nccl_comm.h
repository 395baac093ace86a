// NcclComm: one rank of an NCCL communicator as a perf::Comm, for the single-process mode
// (`bench --backend nccl -g N`: the process drives N local GPUs with ncclCommInitAll, one
// thread per GPU, each thread owning one NcclComm) and for one rank per process under mpirun
// (perf/nccl_world.h). Collectives are enqueued on the rank's CUDA
// stream and take device memory (uses_device_buffers()); barrier() waits for the stream, then
// for the other threads; the timer is a pair of CUDA events. Host-side exchanges (per-rank
// times, strings) meet in a HostRendezvous shared by the threads, or over MPI. Private to perf/nccl/.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "perf/comm.h"
#include "perf/nccl/nccl_api.h"

namespace fabdiag::perf {

/// Where the ranks of an NcclComm meet for host-side exchanges (per-rank times, strings): the
/// threads of one process (HostRendezvous) or the processes of an MPI job (CommHostExchange).
class HostExchange {
 public:
  virtual ~HostExchange() = default;
  /// Puts `mine` in slot `rank`, waits for all ranks, returns every slot (index = rank).
  virtual Result<std::vector<std::string>> exchange_strings(int rank, const std::string& mine) = 0;
  /// Same for numbers.
  virtual Result<std::vector<double>> exchange_doubles(int rank, double mine) = 0;
  /// Waits until all ranks arrived.
  virtual Status arrive_and_wait() = 0;
  /// Fails every current and later wait (called by a rank that stops early), where it can.
  virtual void abort() = 0;
  /// The MPI Comm underneath (for split()); nullptr for the threads of one process.
  virtual Comm* host_comm() { return nullptr; }
};

/// Where the N threads of one process meet: a reusable barrier with slots for the values they
/// exchange. abort() releases every waiter with an error, so a rank that fails does not leave
/// the others waiting for ever. Errors of the waits: kUnavailable after abort().
class HostRendezvous final : public HostExchange {
 public:
  explicit HostRendezvous(int n_ranks);
  Result<std::vector<std::string>> exchange_strings(int rank, const std::string& mine) override;
  Result<std::vector<double>> exchange_doubles(int rank, double mine) override;
  Status arrive_and_wait() override;
  void abort() override;

 private:
  Status wait_locked(std::unique_lock<std::mutex>& lk);
  const int n_;
  std::mutex mu_;
  std::condition_variable cv_;
  int arrived_ = 0;
  unsigned long generation_ = 0;
  bool aborted_ = false;
  std::vector<std::string> strings_;
  std::vector<double> doubles_;
};

/// The ranks of an MPI job: every exchange is the host Comm's collective (MPI_Allgather,
/// MPI_Barrier); abort() does nothing (the command aborts the MPI job). `host` must outlive it.
class CommHostExchange final : public HostExchange {
 public:
  explicit CommHostExchange(Comm& host) : host_(host) {}
  Result<std::vector<std::string>> exchange_strings(int, const std::string& mine) override {
    return host_.allgather_strings(mine);
  }
  Result<std::vector<double>> exchange_doubles(int, double mine) override { return host_.allgather_double(mine); }
  Status arrive_and_wait() override { return host_.barrier(); }
  void abort() override {}
  Comm* host_comm() override { return &host_; }

 private:
  Comm& host_;
};

/// Rank `rank` of `n_ranks`, on GPU `device`, communicator `comm` (from ncclCommInitAll or
/// ncclCommInitRank; not owned). Construct and use on the rank's own thread: open() selects the device and creates the
/// stream and the timer events there.
class NcclComm : public Comm {
 public:
  NcclComm(const NcclApi& api, ncclComm_t comm, int rank, int n_ranks, int device,
           HostExchange& rendezvous, std::vector<std::string> hosts);
  ~NcclComm() override;
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;

  /// cudaSetDevice, cudaStreamCreateWithFlags (non-blocking), two cudaEventCreate.
  /// Errors: kUnavailable naming the call and the CUDA error.
  Status open();

  int rank() const override { return rank_; }
  int size() const override { return n_; }
  const std::vector<std::string>& hosts() const override { return hosts_; }
  double wall_time_s() override;

  Status barrier() override;
  Result<std::vector<std::string>> allgather_strings(const std::string& mine) override;
  Result<std::vector<std::string>> gather_strings(const std::string& mine, int root) override;
  Result<std::string> broadcast_string(const std::string& value, int root) override;
  Result<std::vector<double>> allgather_double(double mine) override;

  Status all_reduce(const void* send, void* recv, size_t count, DataType dtype) override;
  Status all_gather(const void* send, void* recv, size_t count, DataType dtype) override;
  Status reduce_scatter(const void* send, void* recv, size_t count, DataType dtype) override;
  /// ncclAlltoAll when the library has it, else one group of n ncclSend/ncclRecv.
  Status alltoall(const void* send, void* recv, size_t count, DataType dtype) override;
  /// ncclBroadcast: unlike MPI_Bcast it also writes the root's recv (harmless: not checked).
  Status broadcast(const void* send, void* recv, size_t count, DataType dtype, int root) override;
  Status reduce(const void* send, void* recv, size_t count, DataType dtype, int root) override;
  /// One group of ncclSend to `dest` and ncclRecv from `source`.
  Status sendrecv(const void* send, size_t send_count, int dest, void* recv, size_t recv_count,
                  int source, DataType dtype) override;
  /// ncclGather / ncclScatter when the library has them (2.28+), else one group of ncclSend and
  /// ncclRecv as nccl-tests issues them before 2.28.
  Status gather(const void* send, void* recv, size_t count, DataType dtype, int root) override;
  Status scatter(const void* send, void* recv, size_t count, DataType dtype, int root) override;
  /// nccl-tests' hypercube: a device-to-device copy of the own block, then per round one group
  /// of ncclSend/ncclRecv with rank^mask.
  Status hypercube(const void* send, void* recv, size_t count, DataType dtype) override;

  /// One rank per process only (the host side must be MPI): MPI_Comm_split of the host, then
  /// ncclCommSplit when the library has it, else ncclCommInitRank over a unique id made by the
  /// group's rank 0 and broadcast over the group's MPI communicator. The result owns both
  /// communicators and drives the same GPU. Implemented in nccl_world.cpp.
  /// Errors: kUnsupported (threads of one process), kUnavailable naming the call.
  Result<std::unique_ptr<Comm>> split(int color, int key) override;

  bool uses_device_buffers() const override { return true; }
  bool supports_in_place() const override { return true; }
  Result<void*> allocate_device(size_t bytes) override;
  void free_device(void* buf) override;
  Status copy_to_device(void* device, const void* host, size_t bytes) override;
  Status copy_from_device(void* host, const void* device, size_t bytes) override;
  Status start_timer() override;
  Result<double> stop_timer_s() override;
  /// Creates the lap events (one per lap, kept for later sizes). Errors: cudaEventCreate.
  Status prepare_laps(int laps) override;
  /// cudaEventRecord of the next lap event on the stream.
  Status lap_timer() override;
  /// cudaEventElapsedTime between consecutive events, the first from the start event.
  Result<std::vector<double>> lap_times_s() override;
  /// cudaStreamBeginCapture (thread-local mode: every rank's thread captures its own stream).
  /// Errors: kUnsupported when the runtime has no graph entry points.
  Status begin_graph_capture() override;
  /// cudaStreamEndCapture + cudaGraphInstantiate (the previous graph destroyed).
  Status end_graph_capture() override;
  /// cudaGraphLaunch on the rank's stream.
  Status launch_graph() override;
  /// cudaGetDeviceProperties: name and PCI domain:bus:device; index only when unavailable.
  DeviceInfo device_info() override;

 private:
  Status cuda_check(cudaError_t rc, const std::string& call) const;
  Status nccl_check(ncclResult_t rc, const std::string& call) const;
  /// ncclCommGetAsyncError after the stream went idle: a failed peer or network shows here.
  Status check_async_error() const;
  Status copy_on_stream(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, const char* what);
  Status grouped_alltoall(const void* send, void* recv, size_t count, DataType dtype);

  const NcclApi& api_;
  ncclComm_t comm_;
  const int rank_, n_, device_;
  HostExchange& rv_;
  std::vector<std::string> hosts_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  std::vector<cudaEvent_t> lap_events_;  // prepare_laps(); destroyed with the Comm
  size_t laps_recorded_ = 0;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t graph_exec_ = nullptr;
  void destroy_graph();
};

}  // namespace fabdiag::perf
