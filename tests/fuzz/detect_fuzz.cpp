// libFuzzer target: format auto-detection, as `fabdiag counters --from FILE` (no
// --from-format) and `fabdiag check --from FILE` (--from-format auto) use it: both detectors,
// then the reader each picks (tests/fuzz/fuzz_support.h).
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  std::string_view text = fuzz::as_text(data, size);
  auto counter_format = detect_counter_import_format(text);
  InputFormat host_format = detect_format(text);
  if (counter_format) (void)to_string(*counter_format);
  (void)to_string(host_format);
  fuzz::fuzz_counter_import(std::nullopt, text);
  fuzz::fuzz_host_import(InputFormat::kAuto, text);
  fuzz::fuzz_host_import(InputFormat::kNcclLog, text);
  return 0;
}
