// libFuzzer target: `lspci -vvv` text as `fabdiag import lspci FILE` and `check --from FILE --from-format
// lspci` read it (tests/fuzz/fuzz_support.h).
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fabdiag::fuzz::fuzz_host_import(fabdiag::InputFormat::kLspci, fabdiag::fuzz::as_text(data, size));
  return 0;
}
