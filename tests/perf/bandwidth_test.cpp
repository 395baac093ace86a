#include <doctest/doctest.h>

#include "perf/bandwidth.h"
#include "perf/dtype.h"

using namespace fabdiag::perf;

TEST_CASE("busbw factors match nccl-tests at n = 1, 2, 8") {
  struct Row {
    Collective c;
    double n1, n2, n8;
    const char* formula;
  };
  const Row rows[] = {
      {Collective::kAllReduce, 0.0, 1.0, 1.75, "2(n-1)/n"},
      {Collective::kReduceScatter, 0.0, 0.5, 0.875, "(n-1)/n"},
      {Collective::kAllGather, 0.0, 0.5, 0.875, "(n-1)/n"},
      {Collective::kAlltoall, 0.0, 0.5, 0.875, "(n-1)/n"},
      {Collective::kBroadcast, 1.0, 1.0, 1.0, "1"},
      {Collective::kReduce, 1.0, 1.0, 1.0, "1"},
      {Collective::kSendrecv, 1.0, 1.0, 1.0, "1"},
      {Collective::kGather, 0.0, 0.5, 0.875, "(n-1)/n"},
      {Collective::kScatter, 0.0, 0.5, 0.875, "(n-1)/n"},
      {Collective::kHypercube, 1.0, 1.0, 1.0, "1"},
  };
  for (const auto& r : rows) {
    CAPTURE(to_string(r.c));
    CHECK(busbw_factor(r.c, 1) == doctest::Approx(r.n1));
    CHECK(busbw_factor(r.c, 2) == doctest::Approx(r.n2));
    CHECK(busbw_factor(r.c, 8) == doctest::Approx(r.n8));
    CHECK(std::string(busbw_factor_formula(r.c)) == r.formula);
  }
  CHECK(busbw_factor(Collective::kAllReduce, 0) == doctest::Approx(0.0));  // clamped to n = 1
}

TEST_CASE("busbw factor formulas by name: every nccl-tests collective, the benchmark's own") {
  CHECK(nccl_tests_collective_names() ==
        std::vector<std::string>{"all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast",
                                 "reduce", "sendrecv", "gather", "scatter", "hypercube"});
  for (const auto& name : collective_names())
    CHECK(std::string(busbw_factor_formula(std::string_view(name))) ==
          busbw_factor_formula(*parse_collective(name)));
  CHECK(std::string(busbw_factor_formula("gather")) == "(n-1)/n");
  CHECK(std::string(busbw_factor_formula("scatter")) == "(n-1)/n");
  CHECK(std::string(busbw_factor_formula("sendrecv")) == "1");
  CHECK(std::string(busbw_factor_formula("hypercube")) == "1");
  CHECK(busbw_factor_formula("alltoallv") == nullptr);
  CHECK(busbw_factor_formula("allreduce") == nullptr);  // the fabdiag spelling only
}

TEST_CASE("algbw is size over time and busbw applies the factor") {
  // nccl-tests all_reduce_perf at 8 ranks: 1 GiB in 10 ms -> algbw 107.37 GB/s, busbw 187.9 GB/s.
  const double size = 1073741824.0, t = 0.010;
  CHECK(algbw_bytes_per_s(size, t) == doctest::Approx(107374182400.0));
  CHECK(busbw_bytes_per_s(Collective::kAllReduce, size, t, 8) ==
        doctest::Approx(107374182400.0 * 1.75));
  CHECK(busbw_bytes_per_s(Collective::kAllGather, size, t, 8) ==
        doctest::Approx(107374182400.0 * 0.875));
  CHECK(busbw_bytes_per_s(Collective::kSendrecv, size, t, 8) == doctest::Approx(107374182400.0));
  CHECK(algbw_bytes_per_s(size, 0) == 0);
  CHECK(algbw_bytes_per_s(size, -1) == 0);
}

TEST_CASE("hypercube's algbw counts the n-1 blocks received, as HyperCubeGetBw does") {
  // nccl-tests hypercube_perf at 8 ranks, count 1M floats per rank: size 32 MiB, 1 ms ->
  // algbw = count*4*(8-1)/1e9/1e-3 = 29.36 GB/s (not size/time = 33.55), busbw = algbw.
  const double size = 8.0 * (1 << 20) * 4, t = 1e-3;
  CHECK(algbw_factor(Collective::kHypercube, 8) == doctest::Approx(0.875));
  CHECK(algbw_factor(Collective::kAllGather, 8) == 1.0);
  CHECK(std::string(algbw_factor_formula(Collective::kHypercube)) == "(n-1)/n");
  CHECK(std::string(algbw_factor_formula(Collective::kAllReduce)) == "1");
  CHECK(algbw_bytes_per_s(Collective::kHypercube, size, t, 8) == doctest::Approx((1 << 20) * 4.0 * 7 / t));
  CHECK(busbw_bytes_per_s(Collective::kHypercube, size, t, 8) == doctest::Approx((1 << 20) * 4.0 * 7 / t));
  CHECK(algbw_bytes_per_s(Collective::kAllReduce, size, t, 8) == doctest::Approx(size / t));
}

TEST_CASE("collective and dtype names round-trip") {
  for (const auto& name : collective_names()) {
    auto c = parse_collective(name);
    REQUIRE(c);
    CHECK(std::string(to_string(*c)) == name);
  }
  CHECK(collective_names().size() == 10);
  CHECK_FALSE(parse_collective("allreduce"));
  CHECK(has_root(Collective::kBroadcast));
  CHECK(has_root(Collective::kReduce));
  CHECK(has_root(Collective::kGather));
  CHECK(has_root(Collective::kScatter));
  CHECK_FALSE(has_root(Collective::kHypercube));
  CHECK_FALSE(has_root(Collective::kAllReduce));
  for (const auto& name : dtype_names()) {
    auto d = parse_dtype(name);
    REQUIRE(d);
    CHECK(std::string(to_string(*d)) == name);
  }
  CHECK(dtype_size_bytes(DataType::kFloat) == 4);
  CHECK(dtype_size_bytes(DataType::kDouble) == 8);
  CHECK(dtype_size_bytes(DataType::kInt64) == 8);
  CHECK(dtype_size_bytes(DataType::kUint8) == 1);
  CHECK(parse_dtype("float32") == DataType::kFloat);
  CHECK_FALSE(parse_dtype("half"));
}
