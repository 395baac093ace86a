// libFuzzer target: `ibv_devinfo` text as `fabdiag import ibv-devinfo FILE` and `check --from FILE --from-format
// ibv-devinfo` read it (tests/fuzz/fuzz_support.h).
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fabdiag::fuzz::fuzz_host_import(fabdiag::InputFormat::kIbvDevinfo, fabdiag::fuzz::as_text(data, size));
  return 0;
}
