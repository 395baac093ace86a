#include <doctest/doctest.h>

#include <cstdlib>

#include "core/environment.h"

using namespace fabdiag;

TEST_CASE("a map environment: set, empty and unset variables") {
  MapEnvironment env({{"NCCL_HOME", "/opt/nccl"}, {"CUDA_HOME", ""}});
  CHECK(env.get("NCCL_HOME") == std::optional<std::string>("/opt/nccl"));
  CHECK(env.get("CUDA_HOME") == std::optional<std::string>(""));
  CHECK_FALSE(env.get_nonempty("CUDA_HOME").has_value());
  CHECK(env.get_nonempty("NCCL_HOME") == std::optional<std::string>("/opt/nccl"));
  CHECK_FALSE(env.get("HOME").has_value());
  CHECK_FALSE(MapEnvironment().get("PATH").has_value());
}

TEST_CASE("the process environment is getenv") {
  const char* path = std::getenv("PATH");
  REQUIRE(path != nullptr);  // ctest runs us with a PATH
  CHECK(process_environment().get("PATH") == std::optional<std::string>(path));
  CHECK_FALSE(process_environment().get("FABDIAG_TEST_SURELY_UNSET_VARIABLE").has_value());
}

TEST_CASE("library path overrides are ignored when running setuid or setgid") {
  std::map<std::string, std::string> vars{{"FABDIAG_NVML_LIB", "/home/eve/evil.so"}, {"HOME", "/root"}};
  MapEnvironment plain(vars);
  MapEnvironment setuid(vars, true);
  CHECK_FALSE(plain.secure());
  CHECK(setuid.secure());
  CHECK(plain.library_override("FABDIAG_NVML_LIB") == std::optional<std::string>("/home/eve/evil.so"));
  CHECK_FALSE(setuid.library_override("FABDIAG_NVML_LIB").has_value());
  CHECK(setuid.get_nonempty("HOME") == std::optional<std::string>("/root"));  // other variables stay readable
  CHECK_FALSE(MapEnvironment(std::map<std::string, std::string>{{"FABDIAG_NVML_LIB", ""}}).library_override("FABDIAG_NVML_LIB").has_value());
  // ctest does not run the test binary setuid: AT_SECURE is 0 and overrides apply.
  CHECK_FALSE(process_environment().secure());
}
