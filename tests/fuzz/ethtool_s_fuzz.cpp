// libFuzzer target: `ethtool -S` text as `fabdiag import ethtool-s FILE` reads it (tests/fuzz/fuzz_support.h).
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fabdiag::fuzz::fuzz_counter_import(fabdiag::CounterImportFormat::kEthtoolS, fabdiag::fuzz::as_text(data, size));
  return 0;
}
