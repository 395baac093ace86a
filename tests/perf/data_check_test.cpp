#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "perf/data_check.h"

using namespace fabdiag::perf;

TEST_CASE("the pattern depends on rank and index, stays small and repeats every 1021") {
  CHECK(pattern_value(0, 0) == -510);
  CHECK(pattern_value(1, 0) == 131 - 510);
  CHECK(pattern_value(0, 1) == 7 - 510);
  CHECK(pattern_value(3, 5) == (3 * 131 + 5 * 7) % 1021 - 510);
  CHECK(pattern_value(2, 17) == pattern_value(2, 17 + 1021));
  CHECK(pattern_value(2, 17) != pattern_value(3, 17));
  for (int r = 0; r < 50; ++r)
    for (uint64_t i = 0; i < 3000; i += 7) {
      CHECK(pattern_value(r, i) >= -510);
      CHECK(pattern_value(r, i) <= 510);
    }
}

TEST_CASE("all_reduce: a correct sum has 0 wrong elements, corrupting 3 gives 3") {
  const int n = 3;
  auto shape = collective_shape(Collective::kAllReduce, 4000 * 4, DataType::kFloat, n);
  REQUIRE(shape.count == 4000);
  std::vector<float> sum(shape.count, 0.0f);
  for (int r = 0; r < n; ++r) {
    std::vector<float> in(shape.count);
    fill_pattern(DataType::kFloat, in.data(), shape.count, r);
    for (size_t i = 0; i < in.size(); ++i) sum[i] += in[i];
  }
  for (int rank = 0; rank < n; ++rank)
    CHECK(count_wrong_elements(Collective::kAllReduce, DataType::kFloat, shape, sum.data(), rank,
                               n, 0) == 0);
  sum[0] += 1;
  sum[1999] = -sum[1999] + 0.5f;
  sum[3999] *= 2;
  if (sum[3999] == 0) sum[3999] = 1;
  CHECK(count_wrong_elements(Collective::kAllReduce, DataType::kFloat, shape, sum.data(), 1, n,
                             0) == 3);
}

TEST_CASE("all_gather, alltoall, sendrecv, broadcast: expected layouts") {
  const int n = 4;
  std::vector<std::vector<int64_t>> send(n);
  // all_gather: recv[r*c + i] = send of rank r [i].
  auto ag = collective_shape(Collective::kAllGather, 64 * 8 * n, DataType::kInt64, n);
  std::vector<int64_t> recv(ag.recv_count);
  for (int r = 0; r < n; ++r) {
    send[r].resize(ag.send_count);
    fill_pattern(DataType::kInt64, send[r].data(), ag.send_count, r);
    std::memcpy(recv.data() + r * ag.count, send[r].data(), ag.count * 8);
  }
  CHECK(count_wrong_elements(Collective::kAllGather, DataType::kInt64, ag, recv.data(), 2, n, 0) ==
        0);
  std::swap(recv[0], recv[ag.count]);  // blocks of rank 0 and 1 mixed up
  CHECK(count_wrong_elements(Collective::kAllGather, DataType::kInt64, ag, recv.data(), 2, n, 0) ==
        2);

  // alltoall on rank 1: recv[r*c + i] = send of rank r [1*c + i].
  auto aa = collective_shape(Collective::kAlltoall, 32 * 4 * n, DataType::kInt32, n);
  std::vector<int32_t> full(aa.send_count), got(aa.recv_count);
  for (int r = 0; r < n; ++r) {
    fill_pattern(DataType::kInt32, full.data(), aa.send_count, r);
    std::memcpy(got.data() + r * aa.count, full.data() + 1 * aa.count, aa.count * 4);
  }
  CHECK(count_wrong_elements(Collective::kAlltoall, DataType::kInt32, aa, got.data(), 1, n, 0) == 0);
  CHECK(count_wrong_elements(Collective::kAlltoall, DataType::kInt32, aa, got.data(), 2, n, 0) > 0);

  // sendrecv on rank 0 receives from rank n-1.
  auto sr = collective_shape(Collective::kSendrecv, 800, DataType::kDouble, n);
  std::vector<double> from_last(sr.recv_count);
  fill_pattern(DataType::kDouble, from_last.data(), sr.recv_count, n - 1);
  CHECK(count_wrong_elements(Collective::kSendrecv, DataType::kDouble, sr, from_last.data(), 0, n,
                             0) == 0);
  CHECK(count_wrong_elements(Collective::kSendrecv, DataType::kDouble, sr, from_last.data(), 1, n,
                             0) > 0);  // rank 1 expects rank 0's data, not rank 3's
  std::vector<double> from0(sr.recv_count);
  fill_pattern(DataType::kDouble, from0.data(), sr.recv_count, 0);
  CHECK(count_wrong_elements(Collective::kSendrecv, DataType::kDouble, sr, from0.data(), 1, n, 0) ==
        0);

  // broadcast: the root's receive buffer is not checked; others must hold the root's data.
  auto bc = collective_shape(Collective::kBroadcast, 400, DataType::kFloat, n);
  std::vector<float> garbage(bc.recv_count, 12345.0f), root_data(bc.recv_count);
  fill_pattern(DataType::kFloat, root_data.data(), bc.recv_count, 2);
  CHECK(count_wrong_elements(Collective::kBroadcast, DataType::kFloat, bc, garbage.data(), 2, n, 2) ==
        0);
  CHECK(count_wrong_elements(Collective::kBroadcast, DataType::kFloat, bc, root_data.data(), 0, n,
                             2) == 0);
  CHECK(count_wrong_elements(Collective::kBroadcast, DataType::kFloat, bc, garbage.data(), 0, n, 2) ==
        bc.recv_count);
  CHECK_FALSE(rank_receives_output(Collective::kReduce, 1, 0));
  CHECK(rank_receives_output(Collective::kReduce, 0, 0));
}

TEST_CASE("uint8 sums wrap modulo 256 in the expected values") {
  const int n = 8;
  auto shape = collective_shape(Collective::kAllReduce, 2048, DataType::kUint8, n);
  std::vector<uint8_t> sum(shape.count, 0);
  for (int r = 0; r < n; ++r) {
    std::vector<uint8_t> in(shape.count);
    fill_pattern(DataType::kUint8, in.data(), shape.count, r);
    for (size_t i = 0; i < in.size(); ++i) sum[i] = static_cast<uint8_t>(sum[i] + in[i]);
  }
  CHECK(count_wrong_elements(Collective::kAllReduce, DataType::kUint8, shape, sum.data(), 0, n, 0) ==
        0);
}
