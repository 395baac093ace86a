// The NCCL backend's loader, host rendezvous and single-process run against the fake libcudart
// and libnccl (tests/fakes/), passed through a MapEnvironment (no process environment changed).
// Compiled only with the backend (FABDIAG_HAVE_NCCL_HEADERS); the CLI side is
// tests/cli/nccl_fake_bench_test.sh.
#include "core/build_config.h"

#if FABDIAG_HAVE_NCCL_HEADERS
#include <doctest/doctest.h>

#include <thread>

#include "perf/bandwidth.h"
#include "perf/nccl/nccl_api.h"
#include "perf/nccl/nccl_comm.h"
#include "perf/nccl_bench.h"

using namespace fabdiag;
using namespace fabdiag::perf;

namespace {

MapEnvironment fakes(const char* nccl = FAKE_NCCL_PATH, bool secure = false) {
  return MapEnvironment({{"FABDIAG_CUDART_LIB", FAKE_CUDART_PATH}, {"FABDIAG_NCCL_LIB", nccl}}, secure);
}

}  // namespace

TEST_CASE("load_nccl_api: the fakes load, ncclAlltoAll is optional, the version is the headers'") {
  auto api = load_nccl_api(fakes());
  REQUIRE(api);
  CHECK((*api)->nccl.version_code == NCCL_VERSION_CODE);
  CHECK((*api)->cuda.version == CUDART_VERSION);
  CHECK((*api)->nccl.path == FAKE_NCCL_PATH);
  CHECK((*api)->cuda.path == FAKE_CUDART_PATH);
  const bool has_alltoall = (*api)->nccl.alltoall != nullptr;
  CHECK(has_alltoall);
  auto old = load_nccl_api(fakes(FAKE_NCCL_NO_ALLTOALL_PATH));
  REQUIRE(old);
  const bool old_has_alltoall = old.value()->nccl.alltoall != nullptr;
  CHECK_FALSE(old_has_alltoall);  // grouped send/recv then
}

TEST_CASE("load_nccl_api: running setuid, FABDIAG_*_LIB are ignored (never the caller's library)") {
  auto api = load_nccl_api(fakes(FAKE_NCCL_PATH, /*secure=*/true));
  if (api) {
    CHECK((*api)->nccl.path != FAKE_NCCL_PATH);
    CHECK((*api)->cuda.path != FAKE_CUDART_PATH);
  } else {
    CHECK(api.error().code == ErrorCode::kUnsupported);  // no real libraries on this machine
  }
}

TEST_CASE("HostRendezvous: exchanges every rank's value, and abort() releases a waiting rank") {
  HostRendezvous rv(2);
  Result<std::vector<double>> got = make_error(ErrorCode::kInternal, "not run");
  std::thread other([&] { got = rv.exchange_doubles(1, 2.5); });
  auto mine = rv.exchange_doubles(0, 1.5);
  other.join();
  REQUIRE(mine);
  REQUIRE(got);
  CHECK(*mine == std::vector<double>{1.5, 2.5});
  CHECK(*got == *mine);

  std::thread waiting([&] { got = rv.exchange_doubles(1, 3.0); });  // rank 0 never comes
  rv.abort();
  waiting.join();
  REQUIRE_FALSE(got);
  CHECK(got.error().code == ErrorCode::kUnavailable);
}

TEST_CASE("run_nccl_bench: 3 fake GPUs, all_reduce, busbw = algbw x 4/3, no wrong element") {
  NcclBenchOptions o;
  o.gpus = 3;
  o.bench.collective = Collective::kAllReduce;
  o.bench.sweep = {1024, 4096, 2};
  o.bench.warmup_iters = 1;
  o.bench.iters = 2;
  auto r = run_nccl_bench(o, no_progress(), {}, fakes());
  REQUIRE(r);
  CHECK(r->backend == "nccl");
  CHECK(r->ranks == 3);
  CHECK(r->hosts.size() == 3);
  REQUIRE(r->results.size() == 3);
  for (const auto& row : r->results) {
    CHECK(row.time_s > 0);
    CHECK(row.per_rank_time_s.size() == 3);
    CHECK(row.wrong_elements == 0);
    CHECK(row.busbw_bytes_per_s == doctest::Approx(row.algbw_bytes_per_s * 4.0 / 3.0));
  }
  CHECK(r->results[2].size_bytes == 4096);
  CHECK(r->results[2].count == 1024);
}

TEST_CASE("run_nccl_bench: a root outside -g and -g 0 are usage errors, a missing library is kUnsupported") {
  NcclBenchOptions o;
  o.gpus = 2;
  o.bench.collective = Collective::kBroadcast;
  o.bench.root = 2;
  auto r = run_nccl_bench(o, no_progress(), {}, fakes());
  REQUIRE_FALSE(r);
  CHECK(r.error().code == ErrorCode::kInvalidArgument);
  o.bench.root = 0;
  o.gpus = 0;
  CHECK(run_nccl_bench(o, no_progress(), {}, fakes()).error().code == ErrorCode::kInvalidArgument);
  o.gpus = 2;
  auto missing = run_nccl_bench(o, no_progress(), {}, fakes("/nonexistent/libnccl.so.2"));
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == ErrorCode::kUnsupported);
  CHECK(missing.error().source == "libnccl.so.2");
}
#endif
