#include <doctest/doctest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "triage/pair_sizing.h"

using namespace fabdiag::triage;

namespace {

// A link of `rate` bytes/s behind a bucket of `burst` bytes: a test of `size` x iters bytes
// passes the bucket at `fast` and the rest at `rate`.
double bucket_rate(uint64_t size, int iters, double rate, double burst, double fast) {
  const double total = static_cast<double>(size) * iters;
  const double t = std::min(total, burst) / fast + std::max(0.0, total - burst) / rate;
  return total / t;
}

}  // namespace

TEST_CASE("pair sizing: a throttled pair behind a bucket grows the size until its rate settles") {
  std::vector<uint64_t> asked;
  auto measure = [&](uint64_t size) -> std::optional<std::vector<PairSample>> {
    asked.push_back(size);
    // Pair (0,1) healthy at 2 GB/s; pair (2,3) a 125 MB/s link behind a 6 MB bucket at 2 GB/s.
    return std::vector<PairSample>{{0, 1, 2e9, 0}, {2, 3, bucket_rate(size, 3, 1.25e8, 6e6, 2e9), 0}};
  };
  PairSizingParams p;
  p.max_bytes = 256ull << 20;
  p.max_test_s = 10;
  PairSizing s = size_pair_tests(measure, 3, p);
  // 1 MiB: 3 MiB fit the bucket, 2 GB/s; 4 MiB: 226 MB/s; 16 MiB: 141; 64 MiB: 129 (-9 %); 256 MiB: 126 (-2 %).
  CHECK(asked == std::vector<uint64_t>{1 << 20, 4 << 20, 16 << 20, 64 << 20, 256ull << 20});
  CHECK(s.stop == "settled");
  CHECK(s.size_bytes == 256ull << 20);
  REQUIRE(s.steps.size() == 5);
  CHECK(std::isnan(s.steps[0].max_change));
  CHECK(s.steps[1].max_change == doctest::Approx(1 - bucket_rate(4 << 20, 3, 1.25e8, 6e6, 2e9) / 2e9));
  CHECK(s.steps[4].max_change < 0.05);
  REQUIRE(s.samples.size() == 2);
  CHECK(s.samples[1].bytes_per_s < 1.3e8);
  nlohmann::json j = s;
  CHECK(j["stop"] == "settled");
  CHECK(j["steps"].size() == 5);
}

TEST_CASE("pair sizing: the time bound stops the growth on a slow link") {
  std::vector<uint64_t> asked;
  auto measure = [&](uint64_t size) -> std::optional<std::vector<PairSample>> {
    asked.push_back(size);
    double noisy = size == (1u << 20) ? 1e9 : 1.5e9;  // the healthy pair keeps moving (noise)
    return std::vector<PairSample>{{0, 1, noisy, 0}, {2, 3, 1.25e7, 0}};  // 100 Mbit/s
  };
  PairSizing s = size_pair_tests(measure, 3, PairSizingParams{});
  // 1 MiB x 3 at 12.5 MB/s = 0.25 s < 0.5 s: grow; 4 MiB: 1.0 s: stop there.
  CHECK(asked == std::vector<uint64_t>{1 << 20, 4 << 20});
  CHECK(s.stop == "time_bound");
  CHECK(s.size_bytes == 4u << 20);
  CHECK(s.steps[1].slowest_test_s == doctest::Approx(3.0 * (4 << 20) / 1.25e7));
}

TEST_CASE("pair sizing: the size is bounded, and a failed larger round keeps the previous size") {
  int calls = 0;
  auto noisy = [&](uint64_t) -> std::optional<std::vector<PairSample>> {
    ++calls;
    return std::vector<PairSample>{{0, 1, calls % 2 ? 1e9 : 2e9, 0}};  // never settles
  };
  PairSizing s = size_pair_tests(noisy, 3, PairSizingParams{});
  CHECK(s.stop == "max_size");
  CHECK(s.size_bytes == 16u << 20);
  CHECK(calls == 3);  // 1, 4, 16 MiB
  auto fails_at_4m = [&](uint64_t size) -> std::optional<std::vector<PairSample>> {
    if (size > (1u << 20)) return std::nullopt;
    return std::vector<PairSample>{{0, 1, 1e9, 0}, {2, 3, NAN, 0}};  // a failed pair is left out
  };
  PairSizing f = size_pair_tests(fails_at_4m, 3, PairSizingParams{});
  CHECK(f.stop == "failed");
  CHECK(f.size_bytes == 1u << 20);
  CHECK(f.samples.size() == 2);
  auto first_fails = [](uint64_t) -> std::optional<std::vector<PairSample>> { return std::nullopt; };
  PairSizing g = size_pair_tests(first_fails, 3, PairSizingParams{});
  CHECK(g.stop == "failed");
  CHECK(g.samples.empty());
}
