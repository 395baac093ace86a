#include <doctest/doctest.h>

#include <unistd.h>

#include <cctype>
#include <cstring>
#include <map>

#include "core/envelope.h"
#include "core/environment.h"
#include "core/build_config.h"
#include "perf/capabilities.h"
#include "perf/comm.h"
#include "tests/support/skip.h"

using namespace fabdiag;
using namespace fabdiag::perf;

namespace {
bool is_dotted_version(const std::string& v) {
  int dots = 0;
  for (char c : v) {
    if (c == '.') ++dots;
    else if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return dots >= 1 && !v.empty() && v.front() != '.' && v.back() != '.';
}
bool exists(const char* path) { return access(path, F_OK) == 0; }
constexpr const char* kCudaNccl = "/usr/local/cuda/lib64/libnccl.so.2";
constexpr const char* kCudaRuntime = "/usr/local/cuda/lib64/libcudart.so";
}  // namespace

TEST_CASE("NCCL probe: a missing library is a reason, not a crash") {
  Capability c = probe_nccl_capability({"/nonexistent/libnccl.so.2"});
  CHECK(c.name == "nccl");
  CHECK_FALSE(c.loaded);
  CHECK(c.why_not.find("libnccl.so.2 not found") == 0);
  CHECK(c.why_not.find("/nonexistent/libnccl.so.2") != std::string::npos);
}

TEST_CASE("library candidates: NCCL_HOME and CUDA_HOME from the environment, empty ones skipped") {
  MapEnvironment env({{"NCCL_HOME", "/opt/nccl"}, {"CUDA_HOME", ""}});
  CHECK(nccl_library_candidates(env) ==
        std::vector<std::string>{"libnccl.so.2", "libnccl.so", "/opt/nccl/lib/libnccl.so.2", "/opt/nccl/lib/libnccl.so",
                                 "/usr/local/cuda/lib64/libnccl.so.2", "/usr/local/cuda/lib64/libnccl.so"});
  MapEnvironment cuda(std::map<std::string, std::string>{{"CUDA_HOME", "/cuda"}});
  auto cudart = cudart_library_candidates(cuda);
  REQUIRE(cudart.size() == 12);
  CHECK(cudart[4] == "/cuda/lib64/libcudart.so");
  CHECK(cudart[8] == "/usr/local/cuda/lib64/libcudart.so");
  CHECK(cudart_library_candidates(MapEnvironment()).size() == 8);
}

TEST_CASE("library candidates ignore NCCL_HOME and CUDA_HOME when running setuid or setgid") {
  MapEnvironment setuid({{"NCCL_HOME", "/home/eve/nccl"}, {"CUDA_HOME", "/home/eve/cuda"}}, true);
  CHECK(nccl_library_candidates(setuid) ==
        std::vector<std::string>{"libnccl.so.2", "libnccl.so", "/usr/local/cuda/lib64/libnccl.so.2",
                                 "/usr/local/cuda/lib64/libnccl.so"});
  CHECK(cudart_library_candidates(setuid).size() == 8);
}

TEST_CASE("NCCL probe: compiled exactly when the headers were found, and the reason for pairwise") {
  Capability c = probe_nccl_capability();
  CHECK(c.compiled == (FABDIAG_HAVE_NCCL_HEADERS == 1));
  std::string why = nccl_backend_unavailable_reason();
  if (c.compiled) {
    CHECK(why.find("bench --backend nccl -g N") != std::string::npos);
    CHECK(why.find("pairwise") != std::string::npos);
  } else {
    CHECK(why.rfind("NCCL backend not available in this build/here: ", 0) == 0);
  }
}

TEST_CASE("with_nccl_backend_verdict: a compiled, loaded NCCL without a usable GPU says why it cannot run") {
  Capability nccl;
  nccl.name = "nccl";
  nccl.compiled = nccl.loaded = true;
  Capability cuda;
  cuda.why_not = "no GPU or driver here: cudaGetDeviceCount returned 35 (insufficient driver)";
  CHECK(with_nccl_backend_verdict(nccl, cuda).why_not ==
        "bench --backend nccl is compiled but cannot run here: libcudart: no GPU or driver here: "
        "cudaGetDeviceCount returned 35 (insufficient driver)");
  cuda.why_not.clear();  // a GPU is there: nothing to add
  CHECK(with_nccl_backend_verdict(nccl, cuda).why_not.empty());
  nccl.compiled = false;  // not compiled: the probe's own reason stays
  nccl.why_not = "this build has no NCCL backend";
  cuda.why_not = "no GPU";
  CHECK(with_nccl_backend_verdict(nccl, cuda).why_not == "this build has no NCCL backend");
}

TEST_CASE("NCCL probe on this host: the CUDA toolkit's libnccl.so.2 loads and gives its version") {
  if (!exists(kCudaNccl)) FABDIAG_SKIP_TEST(std::string("no ") + kCudaNccl + " on this machine");
  Capability c = probe_nccl_capability();
  REQUIRE(c.loaded);
  CHECK(is_dotted_version(c.version));
  CHECK(c.detail.find("libnccl") != std::string::npos);
  if (!c.compiled) CHECK(c.why_not.find("this build has no NCCL backend") != std::string::npos);
  if (c.compiled) CHECK(c.why_not.empty());  // the probe of the library alone finds nothing wrong
}

TEST_CASE("CUDA runtime probe: a missing library is not loaded") {
  Capability c = probe_cuda_runtime_capability({"/nonexistent/libcudart.so"});
  CHECK(c.name == "cuda_runtime");
  CHECK_FALSE(c.loaded);
  CHECK_FALSE(c.why_not.empty());
}

TEST_CASE("CUDA runtime probe on this host: the CUDA toolkit's libcudart loads and counts GPUs") {
  if (!exists(kCudaRuntime)) FABDIAG_SKIP_TEST(std::string("no ") + kCudaRuntime + " on this machine");
  Capability c = probe_cuda_runtime_capability();
  CHECK(c.name == "cuda_runtime");
  REQUIRE(c.loaded);
  CHECK(is_dotted_version(c.version));
  CHECK(c.detail.find("GPU") != std::string::npos);
  // No driver here: cudaGetDeviceCount returns 35 (docs/emulation.md#vendor-libraries-here).
  if (c.detail.rfind("0 GPUs", 0) == 0)
    CHECK(c.why_not.find("no GPU") != std::string::npos);
}

TEST_CASE("CUDA runtime probe on this host: without the CUDA toolkit's libcudart, a reason") {
  if (exists(kCudaRuntime)) FABDIAG_SKIP_TEST(std::string(kCudaRuntime) + " is installed here");
  Capability c = probe_cuda_runtime_capability();
  CHECK(c.name == "cuda_runtime");
  CHECK_FALSE(c.why_not.empty());
}

TEST_CASE("MPI probe works before MPI_Init") {
  Capability c = probe_mpi_capability();
  CHECK(c.name == "mpi");
  CHECK(c.compiled);
  REQUIRE(c.loaded);
  CHECK(c.version.find("MPI") != std::string::npos);
  CHECK(c.detail.find("MPI standard 3.") == 0);
}

TEST_CASE("MpiSession as a singleton: one rank, this host, collectives are copies") {
  auto s = MpiSession::open();
  REQUIRE_MESSAGE(s, (s ? "" : s.error().to_string()));
  Comm& c = (*s)->world();
  CHECK(c.rank() == 0);
  CHECK(c.size() == 1);
  CHECK(c.hosts() == std::vector<std::string>{local_hostname()});
  CHECK(c.describe_rank(0) == "rank 0 (" + local_hostname() + ")");
  float in[3] = {1, 2, 3}, out[3] = {0, 0, 0};
  REQUIRE(c.all_reduce(in, out, 3, DataType::kFloat));
  CHECK(out[2] == 3);
  int64_t a = 42, b = 0;
  REQUIRE(c.sendrecv(&a, 1, 0, &b, 1, 0, DataType::kInt64));
  CHECK(b == 42);
  auto all = c.allgather_strings("{\"x\":1}");
  REQUIRE(all);
  CHECK(*all == std::vector<std::string>{"{\"x\":1}"});
  auto t = c.allgather_double(0.5);
  REQUIRE(t);
  CHECK((*t)[0] == 0.5);
  auto bad = c.broadcast(in, out, 3, DataType::kFloat, 4);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == ErrorCode::kInvalidArgument);
  CHECK(bad.error().source == "rank 0 (" + local_hostname() + ")");
  const double t0 = c.wall_time_s();
  usleep(2000);
  CHECK(c.wall_time_s() - t0 >= 0.0015);
}
