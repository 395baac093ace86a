#include "perf/sim_comm.h"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

namespace fabdiag::perf {

double sim_link_bytes_per_s(const SimSpec& spec, int src, int dst) {
  double bw = spec.link_bytes_per_s;
  if (auto it = spec.link_override.find({src, dst}); it != spec.link_override.end())
    bw = it->second;
  auto factor = [&](int r) {
    return spec.node_factor.empty() ? 1.0 : spec.node_factor[static_cast<size_t>(r)];
  };
  return bw * std::min(factor(src), factor(dst));
}

namespace {

struct Message {
  std::vector<unsigned char> data;
  double send_clock_s = 0;
};

// State shared by the simulated ranks. Every field is guarded by `mu`.
struct Shared {
  explicit Shared(const SimSpec& s) : spec(s), n(s.ranks) {
    send_ptrs.resize(static_cast<size_t>(n));
    recv_ptrs.resize(static_cast<size_t>(n));
    str_slots.resize(static_cast<size_t>(n));
    dbl_slots.resize(static_cast<size_t>(n));
    done.resize(static_cast<size_t>(n), false);
  }
  const SimSpec& spec;
  const int n;
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0;
  int exited = 0;
  std::vector<bool> done;  // done[r]: rank r's body returned
  unsigned long generation = 0;
  double max_clock_s = 0;
  double released_clock_s = 0;
  std::vector<const void*> send_ptrs;
  std::vector<void*> recv_ptrs;
  std::vector<std::string> str_slots;
  std::vector<double> dbl_slots;
  std::map<RankPair, std::deque<Message>> mail;  // (src, dst) -> messages in order
};

class SimComm final : public Comm {
 public:
  SimComm(Shared& sh, int rank, const std::vector<std::string>& hosts)
      : sh_(sh), rank_(rank), hosts_(hosts) {}

  int rank() const override { return rank_; }
  int size() const override { return sh_.n; }
  const std::vector<std::string>& hosts() const override { return hosts_; }
  double wall_time_s() override { return clock_s_; }

  Status barrier() override {
    clock_s_ += sh_.spec.latency_s;
    return sync();
  }

  Result<std::vector<std::string>> allgather_strings(const std::string& mine) override {
    {
      std::lock_guard lk(sh_.mu);
      sh_.str_slots[static_cast<size_t>(rank_)] = mine;
    }
    if (auto st = sync(); !st) return st.error();
    std::vector<std::string> out;
    {
      std::lock_guard lk(sh_.mu);
      out = sh_.str_slots;
    }
    if (auto st = sync(); !st) return st.error();
    return out;
  }

  Result<std::vector<std::string>> gather_strings(const std::string& mine, int root) override {
    if (auto st = check_root(root); !st) return st.error();
    auto all = allgather_strings(mine);
    if (!all) return all.error();
    if (rank_ != root) return std::vector<std::string>{};
    return all;
  }

  Result<std::string> broadcast_string(const std::string& value, int root) override {
    if (auto st = check_root(root); !st) return st.error();
    auto all = allgather_strings(rank_ == root ? value : std::string());
    if (!all) return all.error();
    return (*all)[static_cast<size_t>(root)];
  }

  Result<std::vector<double>> allgather_double(double mine) override {
    {
      std::lock_guard lk(sh_.mu);
      sh_.dbl_slots[static_cast<size_t>(rank_)] = mine;
    }
    if (auto st = sync(); !st) return st.error();
    std::vector<double> out;
    {
      std::lock_guard lk(sh_.mu);
      out = sh_.dbl_slots;
    }
    if (auto st = sync(); !st) return st.error();
    return out;
  }

  Status all_reduce(const void* send, void* recv, size_t count, DataType dt) override {
    return collective(send, recv, count * dtype_size_bytes(dt), dt, [&](auto zero) {
      using T = decltype(zero);
      for (size_t i = 0; i < count; ++i) out<T>(recv, i) = sum_at<T>(i);
      corrupt<T>(recv, count);
    });
  }

  Status all_gather(const void* send, void* recv, size_t count, DataType dt) override {
    return collective(send, recv, count * sh_.n * dtype_size_bytes(dt), dt, [&](auto zero) {
      using T = decltype(zero);
      for (int r = 0; r < sh_.n; ++r)
        for (size_t i = 0; i < count; ++i) out<T>(recv, r * count + i) = in<T>(r, i);
      corrupt<T>(recv, count * sh_.n);
    });
  }

  Status reduce_scatter(const void* send, void* recv, size_t count, DataType dt) override {
    return collective(send, recv, count * sh_.n * dtype_size_bytes(dt), dt, [&](auto zero) {
      using T = decltype(zero);
      for (size_t i = 0; i < count; ++i) out<T>(recv, i) = sum_at<T>(rank_ * count + i);
      corrupt<T>(recv, count);
    });
  }

  Status alltoall(const void* send, void* recv, size_t count, DataType dt) override {
    return collective(send, recv, count * sh_.n * dtype_size_bytes(dt), dt, [&](auto zero) {
      using T = decltype(zero);
      for (int r = 0; r < sh_.n; ++r)
        for (size_t i = 0; i < count; ++i) out<T>(recv, r * count + i) = in<T>(r, rank_ * count + i);
      corrupt<T>(recv, count * sh_.n);
    });
  }

  Status broadcast(const void* send, void* recv, size_t count, DataType dt, int root) override {
    if (auto st = check_root(root); !st) return st;
    return collective(send, recv, count * dtype_size_bytes(dt), dt, [&](auto zero) {
      using T = decltype(zero);
      if (rank_ == root) return;
      for (size_t i = 0; i < count; ++i) out<T>(recv, i) = in<T>(root, i);
      corrupt<T>(recv, count);
    });
  }

  Status reduce(const void* send, void* recv, size_t count, DataType dt, int root) override {
    if (auto st = check_root(root); !st) return st;
    return collective(send, recv, count * dtype_size_bytes(dt), dt, [&](auto zero) {
      using T = decltype(zero);
      if (rank_ != root) return;
      for (size_t i = 0; i < count; ++i) out<T>(recv, i) = sum_at<T>(i);
      corrupt<T>(recv, count);
    });
  }

  Status gather(const void* send, void* recv, size_t count, DataType dt, int root) override {
    if (auto st = check_root(root); !st) return st;
    return collective(send, recv, count * sh_.n * dtype_size_bytes(dt), dt, [&](auto zero) {
      using T = decltype(zero);
      if (rank_ != root) return;
      for (int r = 0; r < sh_.n; ++r)
        for (size_t i = 0; i < count; ++i) out<T>(recv, r * count + i) = in<T>(r, i);
      corrupt<T>(recv, count * sh_.n);
    });
  }

  Status scatter(const void* send, void* recv, size_t count, DataType dt, int root) override {
    if (auto st = check_root(root); !st) return st;
    return collective(send, recv, count * sh_.n * dtype_size_bytes(dt), dt, [&](auto zero) {
      using T = decltype(zero);
      for (size_t i = 0; i < count; ++i) out<T>(recv, i) = in<T>(root, rank_ * count + i);
      corrupt<T>(recv, count);
    });
  }

  Status sendrecv(const void* send, size_t send_count, int dest, void* recv, size_t recv_count,
                  int source, DataType dt) override {
    if (dest < 0 || dest >= sh_.n || source < 0 || source >= sh_.n)
      return make_error(ErrorCode::kInvalidArgument, "sendrecv peer out of range",
                        describe_rank(rank_));
    const size_t ws = dtype_size_bytes(dt);
    const size_t send_bytes = send_count * ws, recv_bytes = recv_count * ws;
    Message m;
    m.data.assign(static_cast<const unsigned char*>(send),
                  static_cast<const unsigned char*>(send) + send_bytes);
    m.send_clock_s = clock_s_;
    std::unique_lock lk(sh_.mu);
    sh_.mail[{rank_, dest}].push_back(std::move(m));
    sh_.cv.notify_all();
    auto& box = sh_.mail[{source, rank_}];
    sh_.cv.wait(lk, [&] { return !box.empty() || sh_.done[static_cast<size_t>(source)]; });
    if (box.empty())
      return make_error(ErrorCode::kUnavailable,
                        "simulated " + describe_rank(source) + " exited before sending",
                        describe_rank(rank_));
    Message got = std::move(box.front());
    box.pop_front();
    lk.unlock();
    if (got.data.size() != recv_bytes)
      return make_error(ErrorCode::kInvalidArgument,
                        "sendrecv: " + std::to_string(got.data.size()) + " bytes from " +
                            describe_rank(source) + ", expected " + std::to_string(recv_bytes),
                        describe_rank(rank_));
    if (recv_bytes) std::memcpy(recv, got.data.data(), recv_bytes);
    visit_dtype(dt, [&](auto zero) { corrupt<decltype(zero)>(recv, recv_count); });
    double t_send = static_cast<double>(send_bytes) / sim_link_bytes_per_s(sh_.spec, rank_, dest);
    double t_recv =
        static_cast<double>(recv_bytes) / sim_link_bytes_per_s(sh_.spec, source, rank_);
    clock_s_ = std::max(clock_s_, got.send_clock_s) + sh_.spec.latency_s + std::max(t_send, t_recv);
    return Ok{};
  }

 private:
  // Waits for all ranks; every clock becomes the latest one (a synchronising operation).
  Status sync() {
    std::unique_lock lk(sh_.mu);
    unsigned long gen = sh_.generation;
    sh_.max_clock_s = std::max(sh_.max_clock_s, clock_s_);
    if (++sh_.arrived == sh_.n) {
      sh_.arrived = 0;
      sh_.released_clock_s = sh_.max_clock_s;
      sh_.max_clock_s = 0;
      ++sh_.generation;
      sh_.cv.notify_all();
    } else {
      sh_.cv.wait(lk, [&] { return sh_.generation != gen || sh_.exited > 0; });
      if (sh_.generation == gen)
        return make_error(ErrorCode::kUnavailable,
                          "a simulated rank exited while others waited in a collective",
                          describe_rank(rank_));
    }
    clock_s_ = sh_.released_clock_s;
    return Ok{};
  }

  // Posts this rank's buffers, lets `compute` read every rank's send buffer, then charges
  // bytes / collective rate (times this rank's straggler factor) to the clock.
  template <typename F>
  Status collective(const void* send, void* recv, size_t bytes, DataType dt, F&& compute) {
    {
      std::lock_guard lk(sh_.mu);
      sh_.send_ptrs[static_cast<size_t>(rank_)] = send;
      sh_.recv_ptrs[static_cast<size_t>(rank_)] = recv;
    }
    if (auto st = sync(); !st) return st;
    visit_dtype(dt, compute);
    if (auto st = sync(); !st) return st;
    double factor = sh_.spec.rank_time_factor.empty()
                        ? 1.0
                        : sh_.spec.rank_time_factor[static_cast<size_t>(rank_)];
    clock_s_ += sh_.spec.latency_s +
                factor * static_cast<double>(bytes) / sh_.spec.collective_bytes_per_s;
    return Ok{};
  }

  template <typename T>
  const T& in(int r, size_t i) const {
    return static_cast<const T*>(sh_.send_ptrs[static_cast<size_t>(r)])[i];
  }
  template <typename T>
  static T& out(void* buf, size_t i) {
    return static_cast<T*>(buf)[i];
  }
  template <typename T>
  T sum_at(size_t i) const {
    T acc{};
    for (int r = 0; r < sh_.n; ++r) acc = static_cast<T>(acc + in<T>(r, i));
    return acc;
  }
  template <typename T>
  void corrupt(void* recv, size_t elements) const {
    if (rank_ != sh_.spec.corrupt_rank) return;
    size_t k = std::min(elements, sh_.spec.corrupt_elements);
    for (size_t i = 0; i < k; ++i) static_cast<unsigned char*>(recv)[i * sizeof(T)] ^= 0x5a;
  }

  Status check_root(int root) const {
    if (root >= 0 && root < sh_.n) return Ok{};
    return make_error(ErrorCode::kInvalidArgument, "root " + std::to_string(root) + " is not a rank",
                      describe_rank(rank_));
  }

  Shared& sh_;
  const int rank_;
  const std::vector<std::string>& hosts_;
  double clock_s_ = 0;
};

}  // namespace

Status run_simulated(const SimSpec& spec, const std::function<Status(Comm&)>& body) {
  if (spec.ranks < 1)
    return make_error(ErrorCode::kInvalidArgument, "simulated comm needs at least 1 rank");
  const size_t n = static_cast<size_t>(spec.ranks);
  for (const auto* v : {&spec.node_factor, &spec.rank_time_factor})
    if (!v->empty() && v->size() != n)
      return make_error(ErrorCode::kInvalidArgument,
                        "per-rank vector has " + std::to_string(v->size()) + " entries for " +
                            std::to_string(n) + " ranks");
  if (!spec.hosts.empty() && spec.hosts.size() != n)
    return make_error(ErrorCode::kInvalidArgument, "hosts has the wrong length");
  std::vector<std::string> hosts = spec.hosts;
  for (size_t r = 0; hosts.size() < n; ++r) {
    char name[32];
    std::snprintf(name, sizeof name, "node%02zu", r + 1);
    hosts.emplace_back(name);
  }
  Shared shared(spec);
  std::vector<Status> results(n, Status(Ok{}));
  std::vector<std::thread> threads;
  for (size_t r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      SimComm comm(shared, static_cast<int>(r), hosts);
      try {
        results[r] = body(comm);
      } catch (const std::exception& e) {
        results[r] = make_error(ErrorCode::kInternal, std::string("exception: ") + e.what(),
                                comm.describe_rank(static_cast<int>(r)));
      } catch (...) {
        results[r] = make_error(ErrorCode::kInternal, "unknown exception",
                                comm.describe_rank(static_cast<int>(r)));
      }
      std::lock_guard lk(shared.mu);
      ++shared.exited;
      shared.done[r] = true;
      shared.cv.notify_all();
    });
  }
  for (auto& t : threads) t.join();
  for (auto& st : results)
    if (!st) return st;
  return Ok{};
}

}  // namespace fabdiag::perf
