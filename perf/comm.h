// Comm: the small communication interface that benchmarks (and later triage) program against.
// Implementations: MPI (mpi_comm.cpp, the only file that includes mpi.h; opened through
// MpiSession below) and an in-process simulation for tests (sim_comm.h). Callers receive a
// Comm& explicitly; there are no globals and no link seams.
//
// Collective calls (marked "collective") must be made by every rank in the same order, as in
// MPI. Errors come back as Result with the failing rank and host in Error::source; after an
// error in a collective the other ranks may be left waiting, so callers abort the job
// (MpiSession::abort) rather than carry on.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/capability.h"
#include "core/result.h"
#include "perf/dtype.h"

namespace fabdiag::perf {

/// Two ranks that exchange data in one round.
using RankPair = std::pair<int, int>;

/// A group of ranks that communicate (MPI_COMM_WORLD, or a simulated group).
class Comm {
 public:
  virtual ~Comm() = default;

  /// This process's rank, 0 <= rank() < size().
  virtual int rank() const = 0;
  /// Number of ranks.
  virtual int size() const = 0;
  /// Host name of every rank (index = rank), gathered once when the Comm was created.
  virtual const std::vector<std::string>& hosts() const = 0;
  /// Wall-clock time in seconds from an arbitrary origin (MPI_Wtime); only differences count.
  virtual double wall_time_s() = 0;

  /// Collective: returns when every rank has entered.
  virtual Status barrier() = 0;
  /// Collective: every rank receives every rank's string (index = rank).
  virtual Result<std::vector<std::string>> allgather_strings(const std::string& mine) = 0;
  /// Collective: `root` receives every rank's string (index = rank); other ranks get an empty
  /// vector. Used to collect per-rank JSON (counter snapshots) on rank 0.
  virtual Result<std::vector<std::string>> gather_strings(const std::string& mine, int root) = 0;
  /// Collective: every rank receives `root`'s `value` (other ranks' `value` is ignored).
  virtual Result<std::string> broadcast_string(const std::string& value, int root) = 0;
  /// Collective: every rank receives every rank's number (index = rank).
  virtual Result<std::vector<double>> allgather_double(double mine) = 0;

  // Collectives on host buffers of `dtype` elements; reductions are sums. Buffers are
  // out-of-place (send and recv must not overlap).
  /// recv[i] = sum over ranks of send[i]; `count` elements in each.
  virtual Status all_reduce(const void* send, void* recv, size_t count, DataType dtype) = 0;
  /// recv[r*count + i] = send of rank r [i]; send has `count`, recv n*count elements.
  virtual Status all_gather(const void* send, void* recv, size_t count, DataType dtype) = 0;
  /// recv[i] = sum over ranks of send[rank()*count + i]; send has n*count, recv count elements.
  virtual Status reduce_scatter(const void* send, void* recv, size_t count, DataType dtype) = 0;
  /// recv[r*count + i] = send of rank r [rank()*count + i]; both hold n*count elements.
  virtual Status alltoall(const void* send, void* recv, size_t count, DataType dtype) = 0;
  /// recv = send of `root` on every rank but the root; the root's recv is not written (MPI_Bcast
  /// has no separate output buffer at the root). `count` elements.
  virtual Status broadcast(const void* send, void* recv, size_t count, DataType dtype,
                           int root) = 0;
  /// recv at `root` = sum over ranks of send; recv is not written on other ranks.
  virtual Status reduce(const void* send, void* recv, size_t count, DataType dtype,
                        int root) = 0;
  /// Point to point (not collective): sends `send_count` elements to `dest` and receives
  /// `recv_count` elements from `source` at the same time (MPI_Sendrecv, tag 0). The partner
  /// ranks must make the matching call.
  virtual Status sendrecv(const void* send, size_t send_count, int dest, void* recv,
                          size_t recv_count, int source, DataType dtype) = 0;
  /// What exchange_timed() measured: seconds from its call to the completion of the receive
  /// and of the send (each direction on its own, as mpiGraph times them), and whether both
  /// completed before the give-up time.
  struct ExchangeTimes {
    double recv_done_s = 0;  ///< Receive complete (the peer's data arrived): that direction's time.
    double send_done_s = 0;  ///< Send complete (the buffer may be reused; data may still be in flight).
    bool completed = true;   ///< False: given up after `give_up_after_s`; the requests stay posted.
  };
  /// Called while exchange_timed() waits, about every `heartbeat_s`: seconds waited so far.
  using WaitHeartbeat = std::function<void(double waited_s)>;
  /// Point to point (not collective): sends `count` elements to `peer` and receives `count` from
  /// it at the same time, timing each direction's completion (MPI_Isend + MPI_Irecv, polled
  /// with MPI_Test). With give_up_after_s > 0 it stops waiting after that many seconds and
  /// returns completed = false; the requests are left posted, so the caller must keep both
  /// buffers alive for the rest of the process. A null `send` or `recv` is a direction not taken
  /// (a one-way transfer; that time is 0). Default: sendrecv(), both times equal, never gives up
  /// (in-process backends complete or fail).
  virtual Result<ExchangeTimes> exchange_timed(const void* send, void* recv, size_t count, int peer,
                                               DataType dtype, double give_up_after_s,
                                               double heartbeat_s, const WaitHeartbeat& heartbeat);
  /// recv at `root`[r*count + i] = send of rank r [i]; send has `count`, the root's recv
  /// n*count elements; recv is not written on other ranks. Default: kUnsupported.
  virtual Status gather(const void* send, void* recv, size_t count, DataType dtype, int root);
  /// recv[i] = send of `root` [rank()*count + i]; the root's send has n*count elements, recv
  /// `count`. Default: kUnsupported.
  virtual Status scatter(const void* send, void* recv, size_t count, DataType dtype, int root);
  /// nccl-tests' hypercube all-gather: recv[rank()*count..] = send, then for mask = 1, 2, 4, ...
  /// < n one exchange with rank^mask of the mask*count elements gathered so far. recv has
  /// n*count elements; n must be a power of two (kInvalidArgument otherwise). Default: a host
  /// copy and sendrecv() per round (host-memory backends); kUnsupported with device buffers.
  virtual Status hypercube(const void* send, void* recv, size_t count, DataType dtype);

  // ---- Buffers and timing of the benchmarks (collective_bench.h). The defaults are MPI's: the
  // collectives take host memory and the timer is wall_time_s(). A backend whose collectives
  // take device memory (NCCL) overrides all of them.
  /// True when the collectives above take buffers from allocate_device() instead of host memory.
  virtual bool uses_device_buffers() const { return false; }
  /// True when the collectives also accept in-place buffers, as NCCL defines them ("In-place
  /// Operations" of the NCCL user guide: sendbuff == recvbuff, or for all_gather sendbuff ==
  /// recvbuff + rank*count and for reduce_scatter recvbuff == sendbuff + rank*count), so the
  /// benchmark measures the in-place half of nccl-tests' table too (CollectiveShape's in-place
  /// offsets). Default false: MPI spells in place MPI_IN_PLACE, with another layout for
  /// MPI_Reduce_scatter_block, and the simulated Comm reads the peers' send buffers while
  /// writing its own output.
  virtual bool supports_in_place() const { return false; }
  /// `bytes` of memory the collectives read and write (NCCL: cudaMalloc on this rank's GPU).
  /// Default: kUnsupported (host-memory backends never call it). Errors: kUnavailable.
  virtual Result<void*> allocate_device(size_t bytes);
  /// Frees memory from allocate_device(); nullptr is ignored. Default: does nothing.
  virtual void free_device(void* buf);
  /// Copies `bytes` from host memory into device memory (blocking). Default: kUnsupported.
  virtual Status copy_to_device(void* device, const void* host, size_t bytes);
  /// Copies `bytes` from device memory to host memory after every call issued before has
  /// completed (blocking). Default: kUnsupported.
  virtual Status copy_from_device(void* host, const void* device, size_t bytes);
  /// Starts timing the calls issued from now on (NCCL: a CUDA event recorded on the stream).
  /// Default: remembers wall_time_s().
  virtual Status start_timer();
  /// Seconds from start_timer() to the completion of the calls issued since (NCCL: the elapsed
  /// time between two CUDA events, after waiting for the second). Default: wall_time_s() minus
  /// the start (MPI's collectives are complete when they return).
  virtual Result<double> stop_timer_s();
  /// Room for `laps` calls of lap_timer() between start_timer() and stop_timer_s(), made
  /// before the timed loop so that the loop allocates nothing (NCCL: CUDA events). Default:
  /// reserves the list of wall times. Errors: kUnavailable.
  virtual Status prepare_laps(int laps);
  /// Marks the end of one iteration of the timed loop (NCCL: a CUDA event recorded on the
  /// stream; default: wall_time_s()).
  virtual Status lap_timer();
  /// After stop_timer_s(): seconds of each lap since start_timer(), the first from the start,
  /// each next from the previous mark; as many as lap_timer() calls. Errors: kUnavailable.
  virtual Result<std::vector<double>> lap_times_s();

  // ---- CUDA graphs (`bench -G N`, nccl-tests -G). Default: kUnsupported (host backends).
  /// The calls issued from now on are recorded into a graph instead of run
  /// (cudaStreamBeginCapture).
  virtual Status begin_graph_capture();
  /// Ends the recording and makes the graph launchable (cudaStreamEndCapture,
  /// cudaGraphInstantiate); replaces a graph captured before.
  virtual Status end_graph_capture();
  /// Issues the captured calls again, in order (cudaGraphLaunch).
  virtual Status launch_graph();

  /// What this rank runs on, for the nccl-tests table's "#  Rank" lines.
  struct DeviceInfo {
    int index = -1;       ///< CUDA device index; -1 for host memory.
    std::string bus_id;   ///< "0000:0f:00" (PCI domain:bus:device) as nccl-tests prints it; "" unknown.
    std::string name;     ///< "NVIDIA H200"; "host memory" for host backends.
  };
  /// This rank's device. Default: {-1, "", "host memory"}.
  virtual DeviceInfo device_info();

  /// Collective: a Comm over the ranks that pass the same `color` (>= 0), ranked by (`key`,
  /// rank() here), with those ranks' hosts; a rank passing color < 0 takes part and gets
  /// nullptr. The new Comm is independent of this one (either may be used, in the order the
  /// ranks agree on). MPI: MPI_Comm_split. NCCL with one rank per process: ncclCommSplit (or
  /// ncclCommInitRank over a new unique id) with the host side split over MPI. Default:
  /// kUnsupported (the simulated and the one-process NCCL Comms).
  virtual Result<std::unique_ptr<Comm>> split(int color, int key);

  /// "rank 3 (node03)": how errors and findings name a rank.
  std::string describe_rank(int r) const;

 private:
  double timer_start_s_ = 0;  // the default timer's start
  std::vector<double> lap_marks_s_;  // the default timer's lap marks (wall_time_s())
};

/// The peer of `rank` in a set of disjoint pairs, or -1 when it sits the round out.
int peer_of(const std::vector<RankPair>& pairs, int rank);

/// Checks that `pairs` are disjoint (no rank twice), in range [0, n_ranks) and not self-pairs.
/// Errors: kInvalidArgument naming the offending rank.
Status validate_disjoint_pairs(const std::vector<RankPair>& pairs, int n_ranks);

/// Labels that tell ranks apart: the host names, with "#<rank>" appended to every host name that
/// more than one rank shares (all ranks on one machine -> "h#0", "h#1", ...).
std::vector<std::string> unique_rank_labels(const std::vector<std::string>& hosts);

/// RAII owner of MPI: MPI_Init_thread on open, MPI_Finalize on destruction (only when this
/// session initialised MPI). Errors of MPI calls are returned, not fatal (MPI_ERRORS_RETURN on
/// the world communicator).
class MpiSession {
 public:
  /// Initialises MPI (thread level MPI_THREAD_FUNNELED: only the main thread calls MPI) and
  /// gathers every rank's host name. Collective over MPI_COMM_WORLD. Without mpirun it starts a
  /// singleton (1 rank). Errors: kUnavailable when MPI_Init_thread or the host-name gather fails.
  static Result<std::unique_ptr<MpiSession>> open();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  /// MPI_COMM_WORLD as a Comm; valid while the session lives.
  Comm& world();

  /// Ends every rank of the job with `exit_code` (MPI_Abort). Use after an error that other
  /// ranks cannot see, so they do not wait forever in the next collective.
  [[noreturn]] void abort(int exit_code);

 private:
  MpiSession() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// MPI capability for `fabdiag doctor`: MPI_Get_library_version (valid before MPI_Init, so it
/// starts nothing). compiled is always true (MPI is a required build dependency).
Capability probe_mpi_capability();

}  // namespace fabdiag::perf
