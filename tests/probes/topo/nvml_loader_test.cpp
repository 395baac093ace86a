#include <doctest/doctest.h>

#include "probes/topo/nvml_loader.h"

using namespace fabdiag;

// FAKE_NVML_PATH / FAKE_NVML_NODRIVER_PATH: tests/fakes/fake_nvml.c, built by
// tests/CMakeLists.txt (the second with nvmlInit_v2 answering DRIVER_NOT_LOADED).

TEST_CASE("probe_nvml_capability: library not found (as on this build machine)") {
  auto cap = probe_nvml_capability("libnvidia-ml-does-not-exist.so.1");
  CHECK(cap.name == "nvml");
  CHECK(cap.compiled);
  CHECK_FALSE(cap.loaded);
  CHECK(cap.version.empty());
  CHECK(cap.why_not.find("libnvidia-ml-does-not-exist.so.1") != std::string::npos);
  CHECK(cap.why_not.find("NVIDIA driver") != std::string::npos);
}

TEST_CASE("probe_nvml_capability: a library without NVML symbols") {
  auto cap = probe_nvml_capability("libm.so.6");
  CHECK_FALSE(cap.loaded);
  CHECK(cap.why_not.find("nvmlInit_v2") != std::string::npos);
}

TEST_CASE("probe_nvml_capability: a working NVML reports the driver version") {
  auto cap = probe_nvml_capability(FAKE_NVML_PATH);
  CHECK(cap.loaded);
  CHECK(cap.version == "550.54.15");
  CHECK(cap.why_not.empty());
  CHECK(cap.detail == FAKE_NVML_PATH);
}

TEST_CASE("probe_nvml_capability: nvmlInit_v2 fails without a kernel driver") {
  auto cap = probe_nvml_capability(FAKE_NVML_NODRIVER_PATH);
  CHECK_FALSE(cap.loaded);
  CHECK(cap.why_not.find("DRIVER_NOT_LOADED") != std::string::npos);
  CHECK(nvml_return_name(9) == "DRIVER_NOT_LOADED");
  CHECK(nvml_return_name(4242) == "error 4242");
}

// ---- NvmlGpuInventory over the fake NVML and its description files (tests/fakes/nvml) ----

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "probes/topo/nvlink_topology.h"
#include "probes/topo/topology.h"

namespace {

// Points the fake at a description file for the lifetime of the guard.
struct FakeConfig {
  explicit FakeConfig(const std::string& path) { setenv("FAKE_NVML_CONFIG", path.c_str(), 1); }
  ~FakeConfig() { unsetenv("FAKE_NVML_CONFIG"); }
};

std::string conf(const std::string& name) { return std::string(FABDIAG_SOURCE_DIR) + "/tests/fakes/nvml/" + name; }

}  // namespace

TEST_CASE("NvmlGpuInventory: dgx8-nvswitch.conf gives 8 H100s with 18 active switch links each") {
  FakeConfig c(conf("dgx8-nvswitch.conf"));
  auto inv = NvmlGpuInventory(FAKE_NVML_PATH).read();
  CHECK(inv.available);
  CHECK(inv.why_not.empty());
  CHECK(inv.gaps.empty());
  CHECK(inv.source == std::string("NVML ") + FAKE_NVML_PATH + ", driver 550.54.15");
  REQUIRE(inv.gpus.size() == 8);
  CHECK(inv.gpus[0].pci_bdf == "0000:18:00.0");  // from NVML's "00000000:18:00.0"
  CHECK(inv.gpus[7].pci_bdf == "0000:c0:00.0");
  CHECK(inv.gpus[3].name == "NVIDIA H100 80GB HBM3");
  CHECK(inv.gpus[3].uuid == "GPU-00000000-0000-0000-0000-000000000003");
  for (const auto& g : inv.gpus) {
    CHECK(g.nvlinks.size() == 18);  // links 18..35 answer INVALID_ARGUMENT: no such link
    CHECK(active_nvlinks(g) == 18);
    for (const auto& l : g.nvlinks) CHECK(l.remote == NvlinkRemote::kSwitch);
  }
  CHECK(inv.gpus[0].nvlinks[17].remote_pci_bdf == "0000:08:00.0");
}

TEST_CASE("NvmlGpuInventory: direct links name the peer GPU by its sysfs bus id, down links are kept inactive") {
  FakeConfig c(conf("hgx4-link-down.conf"));
  auto inv = NvmlGpuInventory(FAKE_NVML_PATH).read();
  REQUIRE(inv.gpus.size() == 4);
  const auto& g0 = inv.gpus[0];
  REQUIRE(g0.nvlinks.size() == 12);
  CHECK_FALSE(g0.nvlinks[0].active);
  CHECK(g0.nvlinks[0].remote_pci_bdf.empty());
  CHECK(g0.nvlinks[1].remote == NvlinkRemote::kGpu);
  CHECK(g0.nvlinks[1].remote_pci_bdf == "0000:23:00.0");
  CHECK(g0.nvlinks[4].remote_pci_bdf == "0000:43:00.0");
  auto pairs = nvlink_pair_links(inv.gpus);
  CHECK(pairs.at({"0000:03:00.0", "0000:23:00.0"}) == 3);
  CHECK(pairs.at({"0000:03:00.0", "0000:43:00.0"}) == 4);
  CHECK(pairs.at({"0000:43:00.0", "0000:63:00.0"}) == 4);
}

TEST_CASE("NvmlGpuInventory: a failing call is a gap naming the GPU, the other GPUs are read") {
  char tmpl[] = "/tmp/fabdiag-fake-nvml-XXXXXX";
  int fd = mkstemp(tmpl);
  REQUIRE(fd >= 0);
  close(fd);
  {
    std::ofstream f(tmpl);
    f << "gpu 0 0000:18:00.0 \"NVIDIA H100 80GB HBM3\" GPU-a\n"
         "gpu 1 0000:1a:00.0 \"NVIDIA H100 80GB HBM3\" GPU-b\n"
         "gpu 2 0000:2c:00.0 \"NVIDIA H100 80GB HBM3\" GPU-c\n"
         "link 0 0 up gpu 0000:1a:00.0\nlink 1 0 up gpu 0000:18:00.0\n"
         "fail handle 1 15\nfail name 2 999\n";
  }
  FakeConfig c(tmpl);
  auto inv = NvmlGpuInventory(FAKE_NVML_PATH).read();
  std::remove(tmpl);
  CHECK(inv.available);
  REQUIRE(inv.gpus.size() == 2);  // GPU 1 has no handle
  CHECK(inv.gpus[1].pci_bdf == "0000:2c:00.0");
  CHECK(inv.gpus[1].name.empty());
  REQUIRE(inv.gaps.size() == 2);
  CHECK(inv.gaps[0].source == "GPU 1");
  CHECK(inv.gaps[0].message.find("GPU_IS_LOST") != std::string::npos);
  CHECK(inv.gaps[1].source == "GPU 2");
  CHECK(inv.gaps[1].message.find("nvmlDeviceGetName failed: UNKNOWN") != std::string::npos);
  // GPU 0's link ends at GPU 1, which NVML could not list: counted from GPU 0's end only.
  CHECK(nvlink_pair_links(inv.gpus).at({"0000:18:00.0", "0000:1a:00.0"}) == 1);
}

TEST_CASE("NvmlGpuInventory: unavailable NVML says why") {
  auto missing = NvmlGpuInventory("/nonexistent/libnvidia-ml.so.1").read();
  CHECK_FALSE(missing.available);
  CHECK(missing.gpus.empty());
  CHECK(missing.why_not.find("/nonexistent/libnvidia-ml.so.1 could not be loaded") == 0);
  auto not_nvml = NvmlGpuInventory("libm.so.6").read();
  CHECK_FALSE(not_nvml.available);
  CHECK(not_nvml.why_not.find("has no symbol nvmlInit_v2") != std::string::npos);
  auto no_driver = NvmlGpuInventory(FAKE_NVML_NODRIVER_PATH).read();
  CHECK_FALSE(no_driver.available);
  CHECK(no_driver.why_not.find("DRIVER_NOT_LOADED") != std::string::npos);
}

TEST_CASE("topology + NVML adapter end to end: dgx8 with the fake HGX H100 NVML") {
  std::string root = std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/dgx8";
  auto r = discover_topology(FsRoot(root, root));
  FakeConfig c(conf("dgx8-gpu3-links-down.conf"));
  apply_gpu_inventory(r, NvmlGpuInventory(FAKE_NVML_PATH).read(), true);
  CHECK(r.gaps.empty());
  for (size_t i = 0; i < 8; ++i)
    for (size_t j = 0; j < 8; ++j) {
      CAPTURE(i);
      CAPTURE(j);
      CHECK(relation_code(r.matrix[i][j]) == (i == j ? "X" : (i == 3 || j == 3) ? "NV16" : "NV18"));
    }
}

TEST_CASE("choose_nvml_library: --nvml-lib, else $FABDIAG_NVML_LIB, and setuid ignores the variable and refuses the flag") {
  MapEnvironment env(std::map<std::string, std::string>{{"FABDIAG_NVML_LIB", "/opt/nvml/libnvidia-ml.so.1"}});
  CHECK(*choose_nvml_library("", env) == "/opt/nvml/libnvidia-ml.so.1");
  CHECK(*choose_nvml_library("/x/libnvidia-ml.so.1", env) == "/x/libnvidia-ml.so.1");
  CHECK(*choose_nvml_library("", MapEnvironment()) == "");

  MapEnvironment setuid({{"FABDIAG_NVML_LIB", "/home/eve/evil.so"}}, true);
  CHECK(*choose_nvml_library("", setuid) == "");  // the variable is ignored: the default applies
  auto refused = choose_nvml_library("/home/eve/evil.so", setuid);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::kInvalidArgument);
  CHECK(refused.error().source == "--nvml-lib");
  CHECK(refused.error().message.find("setuid or setgid") != std::string::npos);
}
