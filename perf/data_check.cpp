#include "perf/data_check.h"

#include <vector>

namespace fabdiag::perf {

namespace {
constexpr uint64_t kPeriod = 1021;  // prime: the pattern repeats every 1021 indices

// expected sum over ranks of element `index`, per index mod kPeriod.
template <typename T>
std::vector<T> sum_table(int n_ranks) {
  std::vector<T> table(kPeriod);
  for (uint64_t i = 0; i < kPeriod; ++i) {
    T acc{};
    for (int r = 0; r < n_ranks; ++r) acc = static_cast<T>(acc + static_cast<T>(pattern_value(r, i)));
    table[i] = acc;
  }
  return table;
}
}  // namespace

int64_t pattern_value(int rank, uint64_t index) {
  uint64_t r = static_cast<uint64_t>(rank < 0 ? 0 : rank);
  return static_cast<int64_t>((r * 131 + (index % kPeriod) * 7) % kPeriod) - 510;
}

void fill_pattern(DataType dtype, void* buf, uint64_t count, int rank) {
  visit_dtype(dtype, [&](auto zero) {
    using T = decltype(zero);
    T* p = static_cast<T*>(buf);
    for (uint64_t i = 0; i < count; ++i) p[i] = static_cast<T>(pattern_value(rank, i));
  });
}

bool rank_receives_output(Collective c, int rank, int root) {
  if (c == Collective::kBroadcast) return rank != root;
  if (c == Collective::kReduce || c == Collective::kGather) return rank == root;
  return true;
}

uint64_t count_wrong_elements(Collective c, DataType dtype, const CollectiveShape& shape,
                              const void* recv, int rank, int n_ranks, int root) {
  if (!rank_receives_output(c, rank, root)) return 0;
  const uint64_t n = static_cast<uint64_t>(n_ranks);
  const uint64_t block = shape.count;
  return visit_dtype(dtype, [&](auto zero) -> uint64_t {
    using T = decltype(zero);
    const T* got = static_cast<const T*>(recv);
    auto value = [](int r, uint64_t i) { return static_cast<T>(pattern_value(r, i)); };
    uint64_t wrong = 0;
    switch (c) {
      case Collective::kAllReduce:
      case Collective::kReduce: {
        auto table = sum_table<T>(n_ranks);
        for (uint64_t i = 0; i < shape.recv_count; ++i) wrong += got[i] != table[i % kPeriod];
        break;
      }
      case Collective::kReduceScatter: {
        auto table = sum_table<T>(n_ranks);
        const uint64_t base = static_cast<uint64_t>(rank) * block;
        for (uint64_t i = 0; i < shape.recv_count; ++i)
          wrong += got[i] != table[(base + i) % kPeriod];
        break;
      }
      case Collective::kAllGather:
      case Collective::kGather:
      case Collective::kHypercube:
        for (uint64_t r = 0; r < n; ++r)
          for (uint64_t i = 0; i < block; ++i)
            wrong += got[r * block + i] != value(static_cast<int>(r), i);
        break;
      case Collective::kAlltoall:
        for (uint64_t r = 0; r < n; ++r)
          for (uint64_t i = 0; i < block; ++i)
            wrong += got[r * block + i] !=
                     value(static_cast<int>(r), static_cast<uint64_t>(rank) * block + i);
        break;
      case Collective::kBroadcast:
        for (uint64_t i = 0; i < shape.recv_count; ++i) wrong += got[i] != value(root, i);
        break;
      case Collective::kScatter:
        for (uint64_t i = 0; i < shape.recv_count; ++i)
          wrong += got[i] != value(root, static_cast<uint64_t>(rank) * block + i);
        break;
      case Collective::kSendrecv: {
        const int source = static_cast<int>((static_cast<uint64_t>(rank) + n - 1) % n);
        for (uint64_t i = 0; i < shape.recv_count; ++i) wrong += got[i] != value(source, i);
        break;
      }
    }
    return wrong;
  });
}

}  // namespace fabdiag::perf
