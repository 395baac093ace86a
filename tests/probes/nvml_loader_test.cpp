#include <doctest/doctest.h>

#include "probes/nvml_loader.h"

using namespace fabdiag;

// FAKE_NVML_OK_PATH / FAKE_NVML_NODRIVER_PATH: tests/probes/fake_nvml/fake_nvml.c, built by
// tests/CMakeLists.txt.

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
  auto cap = probe_nvml_capability(FAKE_NVML_OK_PATH);
  CHECK(cap.loaded);
  CHECK(cap.version == "550.54.15");
  CHECK(cap.why_not.empty());
  CHECK(cap.detail == FAKE_NVML_OK_PATH);
}

TEST_CASE("probe_nvml_capability: nvmlInit_v2 fails without a kernel driver") {
  auto cap = probe_nvml_capability(FAKE_NVML_NODRIVER_PATH);
  CHECK_FALSE(cap.loaded);
  CHECK(cap.why_not.find("DRIVER_NOT_LOADED") != std::string::npos);
  CHECK(nvml_return_name(9) == "DRIVER_NOT_LOADED");
  CHECK(nvml_return_name(4242) == "error 4242");
}
