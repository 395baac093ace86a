// libFuzzer target: nvidia-smi nvlink -s / -e text as `fabdiag import nvidia-smi-nvlink FILE` reads it:
// import_nvsmi_nvlink() over lines, the findings and the JSON data of the envelope.
#include <nlohmann/json.hpp>

#include "core/envelope.h"
#include "core/line_source.h"
#include "import/nvsmi_nvlink.h"
#include "report/render.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  auto lines = text_line_source(std::string(fuzz::as_text(data, size)));
  auto imp = import_nvsmi_nvlink(*lines, "fuzz-input", ReadLimits{});
  if (!imp) {
    fuzz::render(nlohmann::json(imp.error()));
    return 0;
  }
  Envelope env;
  env.schema = "fabdiag.gpulinks/1";
  env.data = nvsmi_nvlink_data(*imp);
  env.findings = nvsmi_nvlink_findings(*imp);
  env.errors = imp->gaps;
  fuzz::render(nlohmann::json::parse(render_json(env)));
  return 0;
}
