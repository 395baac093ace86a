// The main() of every doctest binary: doctest's own, plus the exit code ctest reads as "skipped".
//
// A test case that cannot run here calls FABDIAG_SKIP_TEST (tests/support/skip.h), which prints
// "SKIPPED: reason". ctest runs one test case per process (doctest_discover_tests), so when every
// test case that ran was skipped and none failed, the process exits with kSkippedExitCode, which
// tests/CMakeLists.txt declares as SKIP_RETURN_CODE: ctest shows "Skipped", never "Passed". A
// failure always wins (exit 1). A run of many cases (the binary by hand) exits 0 when the others
// passed; the SKIPPED lines say what did not run.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>

#include "tests/support/skip.h"

namespace {

int g_cases_started = 0;
int g_cases_skipped = 0;
bool g_current_case_skipped = false;

// Counts the test cases that ran and those that ended as skipped (a doctest listener: it sees
// every test case, prints nothing).
struct SkipCounter : doctest::IReporter {
  explicit SkipCounter(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData&) override {
    ++g_cases_started;
    g_current_case_skipped = false;
  }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {
    if (g_current_case_skipped) ++g_cases_skipped;
  }
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

}  // namespace

REGISTER_LISTENER("fabdiag-skip-counter", 1, SkipCounter);

namespace fabdiag::testing {

void report_skipped(std::string_view reason) {
  g_current_case_skipped = true;
  std::cout << "SKIPPED: " << reason << std::endl;
}

}  // namespace fabdiag::testing

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  int rc = context.run();
  if (context.shouldExit()) return rc;
  if (rc == 0 && g_cases_started > 0 && g_cases_skipped == g_cases_started)
    return fabdiag::testing::kSkippedExitCode;
  return rc;
}
