// libFuzzer target: an NCCL Inspector output as `fabdiag import nccl-inspector FILE` reads it:
// import_nccl_inspector(), its data and findings.
#include <nlohmann/json.hpp>

#include "core/envelope.h"
#include "import/nccl_inspector.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  auto imp = import_nccl_inspector(fuzz::as_text(data, size), "fuzz-input");
  if (!imp) {
    fuzz::render(nlohmann::json(imp.error()));
    return 0;
  }
  nlohmann::json j = nccl_inspector_data(*imp);
  j["findings"] = nccl_inspector_findings(*imp, "fuzz-input");
  j["errors"] = imp->gaps;
  fuzz::render(j);
  return 0;
}
