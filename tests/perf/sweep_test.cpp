#include <doctest/doctest.h>

#include "perf/sweep.h"

using namespace fabdiag;
using namespace fabdiag::perf;

TEST_CASE("sizes accept 8, 1K, 4M, 1G and binary suffix spellings") {
  CHECK(*parse_size_bytes("8") == 8);
  CHECK(*parse_size_bytes("1K") == 1024);
  CHECK(*parse_size_bytes("4M") == 4194304);
  CHECK(*parse_size_bytes("1G") == 1073741824);
  CHECK(*parse_size_bytes("64m") == 64ull << 20);
  CHECK(*parse_size_bytes("2KB") == 2048);
  CHECK(*parse_size_bytes("2KiB") == 2048);
  CHECK(*parse_size_bytes("1T") == 1ull << 40);
  CHECK(*parse_size_bytes(" 16 ") == 16);
  CHECK(*parse_size_bytes("0") == 0);
  CHECK(*parse_size_bytes("100B") == 100);
}

TEST_CASE("bad sizes are errors that name the text") {
  for (const char* bad : {"", "-1", "1.5M", "4X", "M", "1MBs", "99999999999999999999",
                          "17179869184G"}) {
    CAPTURE(bad);
    auto r = parse_size_bytes(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::kInvalidArgument);
    CHECK(r.error().message.find(std::string("\"") + bad + "\"") != std::string::npos);
  }
}

TEST_CASE("format_size_bytes uses the largest exact suffix") {
  CHECK(format_size_bytes(4194304) == "4M");
  CHECK(format_size_bytes(1024) == "1K");
  CHECK(format_size_bytes(1536) == "1536");
  CHECK(format_size_bytes(8) == "8");
  CHECK(format_size_bytes(1ull << 30) == "1G");
}

TEST_CASE("sweep -b 8 -e 64M -f 2 has 24 sizes, inclusive of both ends") {
  SweepSpec s{8, 64ull << 20, 2};
  REQUIRE(validate_sweep(s));
  auto sizes = sweep_sizes(s);
  REQUIRE(sizes.size() == 24);
  CHECK(sizes.front() == 8);
  CHECK(sizes.back() == 64ull << 20);
  CHECK(sweep_sizes({1024, 1024, 2}) == std::vector<uint64_t>{1024});
  CHECK(sweep_sizes({1, 100, 10}) == std::vector<uint64_t>{1, 10, 100});
  CHECK(sweep_sizes({3, 50, 4}) == std::vector<uint64_t>{3, 12, 48});
  // No overflow near the top of uint64.
  CHECK(sweep_sizes({1ull << 62, ~0ull, 2}) == std::vector<uint64_t>{1ull << 62, 1ull << 63});
}

TEST_CASE("invalid sweeps: -b > -e, -f < 2, -b 0") {
  auto r = validate_sweep({64ull << 20, 8, 2});
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "min size (-b) 64M is larger than max size (-e) 8");
  CHECK_FALSE(validate_sweep({8, 16, 1}));
  CHECK_FALSE(validate_sweep({0, 16, 2}));
  CHECK(sweep_sizes({64, 8, 2}).empty());
}

TEST_CASE("collective shapes round like nccl-tests") {
  // all_reduce: count = size / dtype, the rest dropped.
  auto s = collective_shape(Collective::kAllReduce, 1000003, DataType::kFloat, 8);
  CHECK(s.count == 250000);
  CHECK(s.size_bytes == 1000000);
  CHECK(s.send_count == 250000);
  CHECK(s.recv_count == 250000);
  // all_gather at 3 ranks: 1 MiB of floats = 262144 elements -> 87381 per rank.
  s = collective_shape(Collective::kAllGather, 1 << 20, DataType::kFloat, 3);
  CHECK(s.count == 87381);
  CHECK(s.send_count == 87381);
  CHECK(s.recv_count == 262143);
  CHECK(s.size_bytes == 262143 * 4);
  // reduce_scatter: send n*c, recv c; size = total across ranks.
  s = collective_shape(Collective::kReduceScatter, 1 << 20, DataType::kDouble, 3);
  CHECK(s.count == 43690);
  CHECK(s.send_count == 131070);
  CHECK(s.recv_count == 43690);
  CHECK(s.size_bytes == 131070 * 8);
  // alltoall: per-peer block.
  s = collective_shape(Collective::kAlltoall, 4096, DataType::kInt32, 8);
  CHECK(s.count == 128);
  CHECK(s.send_count == 1024);
  CHECK(s.recv_count == 1024);
  CHECK(s.size_bytes == 4096);
  // sendrecv, broadcast, reduce: whole buffer.
  for (auto c : {Collective::kSendrecv, Collective::kBroadcast, Collective::kReduce}) {
    s = collective_shape(c, 100, DataType::kInt64, 4);
    CHECK(s.count == 12);
    CHECK(s.size_bytes == 96);
  }
  // gather like all_gather, scatter like reduce_scatter: 1000 floats at 3 ranks -> 333 each.
  s = collective_shape(Collective::kGather, 4000, DataType::kFloat, 3);
  CHECK(s.count == 333);
  CHECK(s.send_count == 333);
  CHECK(s.recv_count == 999);
  CHECK(s.size_bytes == 3996);
  s = collective_shape(Collective::kScatter, 4000, DataType::kFloat, 3);
  CHECK(s.count == 333);
  CHECK(s.send_count == 999);
  CHECK(s.recv_count == 333);
  CHECK(s.size_bytes == 3996);
  // hypercube: the block rounded down to 4 elements as well (hypercube_perf's ALIGN): 1000
  // floats at 3 ranks -> (1000 / 12) * 4 = 332 each; 8 floats at 4 ranks -> 0.
  s = collective_shape(Collective::kHypercube, 4000, DataType::kFloat, 3);
  CHECK(s.count == 332);
  CHECK(s.send_count == 332);
  CHECK(s.recv_count == 996);
  CHECK(s.size_bytes == 3984);
  CHECK(collective_shape(Collective::kHypercube, 32, DataType::kFloat, 4).count == 0);
  // Smaller than one element per rank: count 0 (skipped by the benchmark).
  s = collective_shape(Collective::kAllGather, 8, DataType::kFloat, 4);
  CHECK(s.count == 0);
  CHECK(s.size_bytes == 0);
}

TEST_CASE("a bad size names every accepted suffix, T included, as the help does") {
  auto bad = parse_size_bytes("4Q");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("K, M, G or T") != std::string::npos);
  CHECK(*parse_size_bytes("2TiB") == 2ull << 40);  // the example it gives reads
}
