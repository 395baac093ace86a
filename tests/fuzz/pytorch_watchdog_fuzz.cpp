// libFuzzer target: a PyTorch watchdog log as `fabdiag import pytorch-watchdog FILE` reads it:
// import_pytorch_watchdog(), its data and findings.
#include <nlohmann/json.hpp>

#include "core/envelope.h"
#include "import/pytorch_watchdog.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  auto imp = import_pytorch_watchdog(fuzz::as_text(data, size), "fuzz-input");
  if (!imp) {
    fuzz::render(nlohmann::json(imp.error()));
    return 0;
  }
  nlohmann::json j = pytorch_watchdog_data(*imp);
  j["findings"] = pytorch_watchdog_findings(*imp, "fuzz-input");
  j["errors"] = imp->gaps;
  fuzz::render(j);
  return 0;
}
