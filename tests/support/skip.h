// Test helper: a test case that cannot run on this machine (no libnl, no CUDA toolkit, running
// as root...) says so, and ctest reports it as "Skipped", never as "Passed".
//
// doctest's own `* doctest::skip()` decorator is not used for this: a case skipped at
// registration is not listed by --list-test-cases, so doctest_discover_tests would not register
// it with ctest at all. Instead the case ends early through FABDIAG_SKIP_TEST, and the test
// binary's main() (tests/test_main.cpp) exits with kSkippedExitCode, which tests/CMakeLists.txt
// declares as the discovered tests' SKIP_RETURN_CODE.
#pragma once

#include <string_view>

namespace fabdiag::testing {

/// The exit code of a test process whose test cases were all skipped (and none failed); the
/// same 77 that the shell tests (tests/integration/*_test.sh) and automake use.
inline constexpr int kSkippedExitCode = 77;

/// Marks the running test case as skipped and prints "SKIPPED: <reason>" on a line of its own to
/// stdout. Defined in tests/test_main.cpp. Use FABDIAG_SKIP_TEST, which also ends the case.
void report_skipped(std::string_view reason);

}  // namespace fabdiag::testing

/// Ends the current test case (a void function body) as skipped; `reason` is a string saying
/// what this machine lacks. Call it before any assertion that could fail: a failure still makes
/// the process exit 1 (failed), but the reason would then be misleading.
#define FABDIAG_SKIP_TEST(reason)               \
  do {                                          \
    ::fabdiag::testing::report_skipped(reason); \
    return;                                     \
  } while (0)
