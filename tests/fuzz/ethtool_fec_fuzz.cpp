// libFuzzer target: `ethtool [--json] [-I] --show-fec` text as `fabdiag import ethtool-fec FILE` reads it (text or JSON;
// tests/fuzz/fuzz_support.h).
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fabdiag::fuzz::fuzz_counter_import(fabdiag::CounterImportFormat::kEthtoolFec, fabdiag::fuzz::as_text(data, size));
  return 0;
}
