// The MPI implementation of Comm and MpiSession. The only file of the project that includes
// mpi.h (docs/ARCHITECTURE.md#vendor-libraries: vendor headers only in adapter .cpp files).
// The C API only: without these, Open MPI's mpi.h drags in the deprecated C++ bindings
// (libmpi_cxx) when compiled as C++.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <cstring>

#include "core/envelope.h"
#include "perf/comm.h"

namespace fabdiag::perf {

namespace {

MPI_Datatype mpi_type(DataType t) {
  switch (t) {
    case DataType::kUint8: return MPI_UINT8_T;
    case DataType::kInt32: return MPI_INT32_T;
    case DataType::kInt64: return MPI_INT64_T;
    case DataType::kFloat: return MPI_FLOAT;
    case DataType::kDouble: return MPI_DOUBLE;
  }
  return MPI_BYTE;
}

std::string mpi_error_text(int rc) {
  char buf[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  if (MPI_Error_string(rc, buf, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(rc);
  return std::string(buf, static_cast<size_t>(len));
}

class MpiComm final : public Comm {
 public:
  /// `comm`: MPI_COMM_WORLD, or a communicator of split() that this object frees.
  explicit MpiComm(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiComm() override {
    if (comm_ == MPI_COMM_WORLD) return;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }
  MpiComm(const MpiComm&) = delete;
  MpiComm& operator=(const MpiComm&) = delete;

  /// Collective: fills hosts_ (called once by MpiSession::open).
  Status gather_hosts() {
    auto all = allgather_strings(local_hostname());
    if (!all) return all.error();
    hosts_ = std::move(*all);
    return Ok{};
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const std::vector<std::string>& hosts() const override { return hosts_; }
  double wall_time_s() override { return MPI_Wtime(); }

  Result<std::unique_ptr<Comm>> split(int color, int key) override {
    MPI_Comm sub = MPI_COMM_NULL;
    if (auto st = check(MPI_Comm_split(comm_, color < 0 ? MPI_UNDEFINED : color, key, &sub), "MPI_Comm_split"); !st)
      return st.error();
    if (sub == MPI_COMM_NULL) return std::unique_ptr<Comm>();
    auto c = std::make_unique<MpiComm>(sub);
    if (auto st = c->gather_hosts(); !st) return st.error().with_context("host names of a split group");
    return std::unique_ptr<Comm>(std::move(c));
  }

  Status barrier() override { return check(MPI_Barrier(comm_), "MPI_Barrier"); }

  Result<std::vector<std::string>> allgather_strings(const std::string& mine) override {
    int len = static_cast<int>(mine.size());
    std::vector<int> lens(static_cast<size_t>(size_));
    if (auto st = check(MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, comm_),
                        "MPI_Allgather");
        !st)
      return st.error();
    auto [displs, total] = displacements(lens);
    if (total > INT_MAX) return too_large("MPI_Allgatherv", total);
    std::string buf(static_cast<size_t>(total), '\0');
    if (auto st = check(MPI_Allgatherv(mine.data(), len, MPI_CHAR, buf.data(), lens.data(),
                                       displs.data(), MPI_CHAR, comm_),
                        "MPI_Allgatherv");
        !st)
      return st.error();
    return split_gathered(buf, lens, displs);
  }

  Result<std::vector<std::string>> gather_strings(const std::string& mine, int root) override {
    if (auto st = check_root(root, "gather"); !st) return st.error();
    int len = static_cast<int>(mine.size());
    std::vector<int> lens(rank_ == root ? static_cast<size_t>(size_) : 0);
    if (auto st = check(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, root, comm_),
                        "MPI_Gather");
        !st)
      return st.error();
    auto [displs, total] = displacements(lens);
    if (total > INT_MAX) return too_large("MPI_Gatherv", total);
    std::string buf(static_cast<size_t>(total), '\0');
    if (auto st = check(MPI_Gatherv(mine.data(), len, MPI_CHAR, buf.data(), lens.data(),
                                    displs.data(), MPI_CHAR, root, comm_),
                        "MPI_Gatherv");
        !st)
      return st.error();
    return split_gathered(buf, lens, displs);
  }

  Result<std::string> broadcast_string(const std::string& value, int root) override {
    if (auto st = check_root(root, "broadcast"); !st) return st.error();
    long long len = rank_ == root ? static_cast<long long>(value.size()) : 0;
    if (auto st = check(MPI_Bcast(&len, 1, MPI_LONG_LONG, root, comm_), "MPI_Bcast");
        !st)
      return st.error();
    if (len > INT_MAX) return too_large("MPI_Bcast", len);
    std::string buf = rank_ == root ? value : std::string(static_cast<size_t>(len), '\0');
    if (auto st = check(MPI_Bcast(buf.data(), static_cast<int>(len), MPI_CHAR, root, comm_),
                        "MPI_Bcast");
        !st)
      return st.error();
    return buf;
  }

  Result<std::vector<double>> allgather_double(double mine) override {
    std::vector<double> out(static_cast<size_t>(size_));
    if (auto st = check(MPI_Allgather(&mine, 1, MPI_DOUBLE, out.data(), 1, MPI_DOUBLE,
                                      comm_),
                        "MPI_Allgather");
        !st)
      return st.error();
    return out;
  }

  Status all_reduce(const void* send, void* recv, size_t count, DataType dtype) override {
    return summed(MPI_Allreduce, "MPI_Allreduce", send, recv, count, dtype);
  }

  Status all_gather(const void* send, void* recv, size_t count, DataType dtype) override {
    return exchanged(MPI_Allgather, "MPI_Allgather", send, recv, count, dtype);
  }

  Status reduce_scatter(const void* send, void* recv, size_t count, DataType dtype) override {
    return summed(MPI_Reduce_scatter_block, "MPI_Reduce_scatter_block", send, recv, count, dtype);
  }

  Status alltoall(const void* send, void* recv, size_t count, DataType dtype) override {
    return exchanged(MPI_Alltoall, "MPI_Alltoall", send, recv, count, dtype);
  }

  Status broadcast(const void* send, void* recv, size_t count, DataType dtype, int root) override {
    if (auto st = check_root(root, "broadcast"); !st) return st;
    if (auto st = check_count(count, "MPI_Bcast"); !st) return st;
    // The root sends from its send buffer; MPI_Bcast does not write the root's buffer.
    void* buf = rank_ == root ? const_cast<void*>(send) : recv;
    return check(MPI_Bcast(buf, static_cast<int>(count), mpi_type(dtype), root, comm_),
                 "MPI_Bcast");
  }

  Status reduce(const void* send, void* recv, size_t count, DataType dtype, int root) override {
    if (auto st = check_root(root, "reduce"); !st) return st;
    if (auto st = check_count(count, "MPI_Reduce"); !st) return st;
    return check(MPI_Reduce(send, recv, static_cast<int>(count), mpi_type(dtype), MPI_SUM, root,
                            comm_),
                 "MPI_Reduce");
  }

  Status gather(const void* send, void* recv, size_t count, DataType dtype, int root) override {
    return rooted(MPI_Gather, "MPI_Gather", send, recv, count, dtype, root);
  }

  Status scatter(const void* send, void* recv, size_t count, DataType dtype, int root) override {
    return rooted(MPI_Scatter, "MPI_Scatter", send, recv, count, dtype, root);
  }

  Status sendrecv(const void* send, size_t send_count, int dest, void* recv, size_t recv_count,
                  int source, DataType dtype) override {
    if (auto st = check_count(send_count, "MPI_Sendrecv"); !st) return st;
    if (auto st = check_count(recv_count, "MPI_Sendrecv"); !st) return st;
    if (dest < 0 || dest >= size_ || source < 0 || source >= size_)
      return make_error(ErrorCode::kInvalidArgument,
                        "sendrecv peer out of range (dest " + std::to_string(dest) + ", source " +
                            std::to_string(source) + ", " + std::to_string(size_) + " ranks)",
                        describe_rank(rank_));
    return check(MPI_Sendrecv(send, static_cast<int>(send_count), mpi_type(dtype), dest, 0, recv,
                              static_cast<int>(recv_count), mpi_type(dtype), source, 0,
                              comm_, MPI_STATUS_IGNORE),
                 "MPI_Sendrecv with " + describe_rank(dest));
  }

  Result<ExchangeTimes> exchange_timed(const void* send, void* recv, size_t count, int peer, DataType dtype,
                                       double give_up_after_s, double heartbeat_s,
                                       const WaitHeartbeat& heartbeat) override {
    if (auto st = check_count(count, "MPI_Isend"); !st) return st.error();
    if (peer < 0 || peer >= size_)
      return make_error(ErrorCode::kInvalidArgument, "exchange peer " + std::to_string(peer) + " out of range",
                        describe_rank(rank_));
    const int c = static_cast<int>(count);
    MPI_Request req[2];
    const double t0 = MPI_Wtime();
    double done_s[2] = {-1, -1};
    // Tag 1: a request left posted after a give-up never matches a sendrecv (tag 0). A null
    // buffer is a direction not taken (a one-way test): done at once.
    if (!recv) done_s[0] = 0;
    else if (auto st = check(MPI_Irecv(recv, c, mpi_type(dtype), peer, 1, MPI_COMM_WORLD, &req[0]), "MPI_Irecv"); !st)
      return st.error();
    if (!send) done_s[1] = 0;
    else if (auto st = check(MPI_Isend(send, c, mpi_type(dtype), peer, 1, MPI_COMM_WORLD, &req[1]), "MPI_Isend"); !st)
      return st.error();
    double next_beat_s = heartbeat_s > 0 ? heartbeat_s : 1e300;
    for (;;) {
      for (int k = 0; k < 2; ++k) {
        if (done_s[k] >= 0) continue;
        int flag = 0;
        if (auto st = check(MPI_Test(&req[k], &flag, MPI_STATUS_IGNORE), "MPI_Test with " + describe_rank(peer)); !st)
          return st.error();
        if (flag) done_s[k] = MPI_Wtime() - t0;
      }
      if (done_s[0] >= 0 && done_s[1] >= 0) return ExchangeTimes{done_s[0], done_s[1], true};
      const double waited_s = MPI_Wtime() - t0;
      if (give_up_after_s > 0 && waited_s >= give_up_after_s)
        return ExchangeTimes{done_s[0] >= 0 ? done_s[0] : waited_s, done_s[1] >= 0 ? done_s[1] : waited_s, false};
      if (waited_s >= next_beat_s) {
        if (heartbeat) heartbeat(waited_s);
        next_beat_s += heartbeat_s;
      }
    }
  }

 private:
  Status check(int rc, const std::string& call) const {
    if (rc == MPI_SUCCESS) return Ok{};
    return make_error(ErrorCode::kUnavailable, call + " failed: " + mpi_error_text(rc),
                      describe_rank(rank_));
  }
  // MPI_Allreduce, MPI_Reduce_scatter_block: `count` elements summed across the ranks.
  using SumCall = int (*)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm);
  Status summed(SumCall call, const char* name, const void* send, void* recv, size_t count, DataType dtype) const {
    if (auto st = check_count(count, name); !st) return st;
    return check(call(send, recv, static_cast<int>(count), mpi_type(dtype), MPI_SUM, comm_), name);
  }
  // MPI_Allgather, MPI_Alltoall: `count` elements to and from every rank.
  using ExchangeCall = int (*)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm);
  Status exchanged(ExchangeCall call, const char* name, const void* send, void* recv, size_t count,
                   DataType dtype) const {
    if (auto st = check_count(count, name); !st) return st;
    const int c = static_cast<int>(count);
    return check(call(send, c, mpi_type(dtype), recv, c, mpi_type(dtype), comm_), name);
  }
  // MPI_Gather, MPI_Scatter: `count` elements to or from every rank at `root`.
  using RootedCall = int (*)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, int, MPI_Comm);
  Status rooted(RootedCall call, const char* name, const void* send, void* recv, size_t count, DataType dtype,
                int root) const {
    if (auto st = check_root(root, name); !st) return st;
    if (auto st = check_count(count, name); !st) return st;
    const int c = static_cast<int>(count);
    return check(call(send, c, mpi_type(dtype), recv, c, mpi_type(dtype), root, MPI_COMM_WORLD), name);
  }
  Status check_count(size_t count, const char* call) const {
    if (count <= static_cast<size_t>(INT_MAX)) return Ok{};
    return make_error(ErrorCode::kInvalidArgument,
                      std::string(call) + ": " + std::to_string(count) +
                          " elements exceed MPI's int count limit (2^31-1); use a smaller size",
                      describe_rank(rank_));
  }
  Status check_root(int root, const char* what) const {
    if (root >= 0 && root < size_) return Ok{};
    return make_error(ErrorCode::kInvalidArgument,
                      std::string(what) + " root " + std::to_string(root) + " is not a rank (0.." +
                          std::to_string(size_ - 1) + ")",
                      describe_rank(rank_));
  }
  // Offsets of each rank's bytes in the gathered buffer, and the total (which may not fit an int).
  static std::pair<std::vector<int>, long long> displacements(const std::vector<int>& lens) {
    std::vector<int> displs(lens.size());
    long long total = 0;
    for (size_t r = 0; r < lens.size(); ++r) {
      displs[r] = static_cast<int>(total);
      total += lens[r];
    }
    return {displs, total};
  }
  // Each rank's string out of a gathered buffer (the inverse of displacements()).
  static std::vector<std::string> split_gathered(const std::string& buf, const std::vector<int>& lens,
                                                 const std::vector<int>& displs) {
    std::vector<std::string> out;
    for (size_t r = 0; r < lens.size(); ++r)
      out.push_back(buf.substr(static_cast<size_t>(displs[r]), static_cast<size_t>(lens[r])));
    return out;
  }

  Error too_large(const char* call, long long bytes) const {
    return make_error(ErrorCode::kInvalidArgument,
                      std::string(call) + ": " + std::to_string(bytes) +
                          " bytes exceed MPI's int count limit",
                      describe_rank(rank_));
  }

  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  std::vector<std::string> hosts_;
};

}  // namespace

struct MpiSession::Impl {
  bool initialized_here = false;
  std::unique_ptr<MpiComm> world;
};

Result<std::unique_ptr<MpiSession>> MpiSession::open() {
  std::unique_ptr<MpiSession> s(new MpiSession());
  s->impl_ = std::make_unique<Impl>();
  int already = 0;
  MPI_Initialized(&already);
  if (!already) {
    int provided = 0;
    int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS)
      return make_error(ErrorCode::kUnavailable,
                        "MPI_Init_thread failed: " + mpi_error_text(rc) +
                            " (run under mpirun/srun; check the MPI installation with `fabdiag doctor`)",
                        local_hostname());
    s->impl_->initialized_here = true;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  s->impl_->world = std::make_unique<MpiComm>(MPI_COMM_WORLD);
  if (auto st = s->impl_->world->gather_hosts(); !st)
    return st.error().with_context("gathering host names of all ranks");
  return s;
}

MpiSession::~MpiSession() {
  if (impl_ && impl_->initialized_here) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
}

Comm& MpiSession::world() { return *impl_->world; }

void MpiSession::abort(int exit_code) {
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);  // MPI_Abort does not return; this satisfies [[noreturn]].
}

Capability probe_mpi_capability() {
  Capability c;
  c.name = "mpi";
  c.compiled = true;
  char buf[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int len = 0;
  if (MPI_Get_library_version(buf, &len) != MPI_SUCCESS) {
    c.why_not = "MPI_Get_library_version failed: the MPI library is broken or mismatched";
    return c;
  }
  std::string text(buf, static_cast<size_t>(len));
  // Open MPI counts the terminating NUL in `len` (doctor printed "May 26, 2022\x00").
  while (!text.empty() && text.back() == '\0') text.pop_back();
  std::string first = text.substr(0, text.find('\n'));
  size_t comma = first.find(',');
  c.loaded = true;
  c.version = first.substr(0, comma);
  while (!c.version.empty() && (c.version.back() == ' ' || c.version.back() == '\0'))
    c.version.pop_back();
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  c.detail = "MPI standard " + std::to_string(major) + "." + std::to_string(minor);
  if (comma != std::string::npos) c.detail += ";" + first.substr(comma + 1);
  return c;
}

}  // namespace fabdiag::perf
