// libFuzzer target: `ibstatus` text as `fabdiag import ibstatus FILE` and `check --from FILE --from-format
// ibstatus` read it (tests/fuzz/fuzz_support.h).
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fabdiag::fuzz::fuzz_host_import(fabdiag::InputFormat::kIbstatus, fabdiag::fuzz::as_text(data, size));
  return 0;
}
