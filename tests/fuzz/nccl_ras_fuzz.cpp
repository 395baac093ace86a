// libFuzzer target: an NCCL RAS report or monitor stream as `fabdiag import nccl-ras FILE` reads
// it (text report, JSON report, monitor events text or JSON): import_nccl_ras(), its data and
// findings. Seeds: every text fixture (scripts/fuzz-corpus.py), tests/fixtures/nccl_ras among them.
#include <nlohmann/json.hpp>

#include "core/envelope.h"
#include "import/nccl_ras.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  auto rep = import_nccl_ras(fuzz::as_text(data, size), "fuzz-input");
  if (!rep) {
    fuzz::render(nlohmann::json(rep.error()));
    return 0;
  }
  nlohmann::json j = nccl_ras_data(*rep);
  j["findings"] = nccl_ras_findings(*rep, "fuzz-input");
  j["errors"] = rep->gaps;
  fuzz::render(j);
  return 0;
}
