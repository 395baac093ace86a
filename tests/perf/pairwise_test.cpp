#include <doctest/doctest.h>

#include <cmath>
#include <mutex>
#include <set>

#include "perf/pair_link.h"
#include "perf/pairwise.h"
#include "perf/sim_comm.h"

using namespace fabdiag;
using namespace fabdiag::perf;

TEST_CASE("round robin: every pair exactly once, disjoint rounds, N-1 or N rounds (N = 2..17)") {
  for (int n = 2; n <= 17; ++n) {
    CAPTURE(n);
    auto rounds = round_robin_schedule(n);
    CHECK(rounds.size() == static_cast<size_t>(n % 2 == 0 ? n - 1 : n));
    std::set<RankPair> seen;
    std::vector<int> byes(static_cast<size_t>(n), 0);
    for (const auto& round : rounds) {
      CHECK(round.size() == static_cast<size_t>(n / 2));
      CHECK(validate_disjoint_pairs(round, n));
      std::set<int> in_round;
      for (const auto& [a, b] : round) {
        CHECK(a < b);
        CHECK(seen.insert({a, b}).second);  // never twice
        in_round.insert(a);
        in_round.insert(b);
      }
      for (int r = 0; r < n; ++r)
        if (!in_round.count(r)) ++byes[static_cast<size_t>(r)];
    }
    CHECK(seen.size() == static_cast<size_t>(n * (n - 1) / 2));  // every pair
    for (int b : byes) CHECK(b == (n % 2 == 0 ? 0 : 1));          // odd N: one bye each
  }
  CHECK(round_robin_schedule(1).empty());
  CHECK(round_robin_schedule(0).empty());
}

TEST_CASE("pair helpers") {
  std::vector<RankPair> pairs{{0, 3}, {1, 2}};
  CHECK(peer_of(pairs, 3) == 0);
  CHECK(peer_of(pairs, 1) == 2);
  CHECK(peer_of(pairs, 4) == -1);
  CHECK(validate_disjoint_pairs(pairs, 4));
  auto overlap = validate_disjoint_pairs({{0, 1}, {1, 2}}, 3);
  REQUIRE_FALSE(overlap);
  CHECK(overlap.error().message == "rank 1 is in more than one pair of the round");
  CHECK_FALSE(validate_disjoint_pairs({{0, 0}}, 3));
  CHECK_FALSE(validate_disjoint_pairs({{0, 5}}, 3));
  CHECK(unique_rank_labels({"a", "b", "a"}) == std::vector<std::string>{"a#0", "b", "a#2"});
  CHECK(unique_rank_labels({"n1", "n2"}) == std::vector<std::string>{"n1", "n2"});
}

namespace {
PairwiseMatrix run_matrix(const SimSpec& spec, const PairwiseOptions& o) {
  PairwiseMatrix out;
  std::mutex mu;
  auto st = run_simulated(spec, [&](Comm& c) -> Status {
    auto m = run_pairwise(c, o, no_progress());
    if (!m) return m.error();
    if (c.rank() == 0) {
      std::lock_guard lk(mu);
      out = std::move(*m);
    }
    return Ok{};
  });
  REQUIRE_MESSAGE(st, (st ? "" : st.error().to_string()));
  return out;
}
}  // namespace

TEST_CASE("the matrix holds each direction's rate: a slow node's row and column are dark") {
  SimSpec spec;
  spec.ranks = 5;  // odd: one bye per round
  spec.latency_s = 0;
  spec.link_bytes_per_s = 1e9;
  spec.node_factor = {1, 1, 0.01, 1, 1};  // node03 at 1%
  PairwiseOptions o;
  o.size_bytes = 1 << 20;
  o.iters = 3;
  PairwiseMatrix m = run_matrix(spec, o);
  CHECK(m.hosts == std::vector<std::string>{"node01", "node02", "node03", "node04", "node05"});
  CHECK(m.rounds.size() == 5);
  CHECK(m.size_bytes == 1u << 20);
  CHECK(m.iters == 3);
  for (size_t a = 0; a < 5; ++a)
    for (size_t b = 0; b < 5; ++b) {
      CAPTURE(a);
      CAPTURE(b);
      if (a == b) CHECK(std::isnan(m.matrix_bytes_per_s[a][b]));
      else if (a == 2 || b == 2) CHECK(m.matrix_bytes_per_s[a][b] == doctest::Approx(1e7));
      else CHECK(m.matrix_bytes_per_s[a][b] == doctest::Approx(1e9));
    }
}

TEST_CASE("one arbitrary round: re-pair a suspect with a known-good node, others sit out") {
  SimSpec spec;
  spec.ranks = 4;
  spec.latency_s = 0;
  spec.link_override[{1, 3}] = 5e8;
  PairwiseOptions o;
  o.size_bytes = 1000;
  o.iters = 2;
  std::mutex mu;
  std::vector<PairMeasurement> got;
  auto st = run_simulated(spec, [&](Comm& c) -> Status {
    auto r = run_pair_round(c, {{3, 1}}, o);
    if (!r) return r.error();
    if (c.rank() == 0) {
      std::lock_guard lk(mu);
      got = *r;
    }
    return Ok{};
  });
  REQUIRE(st);
  REQUIRE(got.size() == 1);
  CHECK(got[0].a == 3);
  CHECK(got[0].b == 1);
  // Each direction alone, timed on its receiver: only 1 -> 3 is at 5e8.
  CHECK(got[0].a_to_b_bytes_per_s == doctest::Approx(1e9));
  CHECK(got[0].b_to_a_bytes_per_s == doctest::Approx(5e8));
  CHECK(got[0].no_completion_s == 0);

  auto bad = run_simulated(spec, [&](Comm& c) -> Status {
    auto r = run_pair_round(c, {{0, 1}, {1, 2}}, o);
    CHECK_FALSE(r);
    if (!r) CHECK(r.error().code == ErrorCode::kInvalidArgument);
    return Ok{};
  });
  CHECK(bad);
}

TEST_CASE("pairwise options are checked") {
  PairwiseOptions o;
  CHECK(validate_pairwise_options(o));
  o.size_bytes = 0;
  CHECK_FALSE(validate_pairwise_options(o));
  o.size_bytes = 1ull << 31;
  CHECK_FALSE(validate_pairwise_options(o));
  o = {};
  o.iters = 0;
  CHECK_FALSE(validate_pairwise_options(o));
  o = {};
  o.warmup_iters = -1;
  CHECK_FALSE(validate_pairwise_options(o));
}

TEST_CASE("the step sink sees the matrix after each finished round, before each round and at the end") {
  SimSpec spec;
  spec.ranks = 4;  // 3 rounds of 2 pairs
  PairwiseOptions o;
  o.size_bytes = 1 << 16;
  o.iters = 1;
  std::vector<std::pair<size_t, size_t>> steps;  // (rounds done, measured cells) on rank 0
  std::mutex mu;
  auto st = run_simulated(spec, [&](Comm& c) -> Status {
    PairwiseStepSink sink;
    if (c.rank() == 0)
      sink = [&](const PairwiseMatrix& m, size_t done) {
        size_t cells = 0;
        for (const auto& row : m.matrix_bytes_per_s)
          for (double v : row) cells += std::isfinite(v) ? 1 : 0;
        std::lock_guard lk(mu);
        CHECK(m.rounds.size() == 3);
        steps.emplace_back(done, cells);
      };
    auto m = run_pairwise(c, o, no_progress(), sink);
    return m ? Status(Ok{}) : Status(m.error());
  });
  REQUIRE(st.ok());
  // Each round measures 2 pairs, both directions: 4 more cells.
  CHECK(steps == std::vector<std::pair<size_t, size_t>>{{0, 0}, {1, 4}, {2, 8}, {3, 12}});
}

TEST_CASE("--pair-comm split on a Comm that cannot split fails the round naming the split") {
  SimSpec spec;
  spec.ranks = 2;
  PairwiseOptions o;
  o.size_bytes = 1024;
  o.iters = 1;
  o.split_pairs = true;
  std::mutex mu;
  std::vector<std::string> errors;
  auto st = run_simulated(spec, [&](Comm& c) -> Status {
    auto r = run_pair_round(c, {{0, 1}}, o);
    std::lock_guard lk(mu);
    errors.push_back(r ? std::string("ok") : r.error().to_string());
    return Ok{};
  });
  REQUIRE(st);
  REQUIRE(errors.size() == 2);
  for (const auto& e : errors) {
    CHECK(e.find("cannot split its ranks into groups") != std::string::npos);
    CHECK(e.find("one communicator per pair (--pair-comm split)") != std::string::npos);
  }
}

TEST_CASE("pair buffers in host memory hold the fill byte, and no split means no pair Comm") {
  SimSpec spec;
  auto st = run_simulated(spec, [&](Comm& c) -> Status {
    PairBuffers b(c);
    if (auto s = b.make(16, 0x5a); !s) return s;
    CHECK(static_cast<unsigned char*>(b.send)[15] == 0x5a);
    CHECK(static_cast<unsigned char*>(b.recv)[0] == 0);
    auto none = pair_communicator(c, {{0, 1}}, false);
    CHECK(none);
    CHECK(*none == nullptr);
    return Ok{};
  });
  CHECK(st);
}
