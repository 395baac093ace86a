// libFuzzer target: Cumulus NVUE `nv show interface` text or JSON as `fabdiag import
// nvue-interface FILE` reads it: import_nvue_interface() over lines, then the
// findings and the JSON data of the envelope.
#include <nlohmann/json.hpp>

#include "core/envelope.h"
#include "core/line_source.h"
#include "import/nvue_interface.h"
#include "report/render.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  auto lines = text_line_source(std::string(fuzz::as_text(data, size)));
  auto imp = import_nvue_interface(*lines, "fuzz-input", ReadLimits{});
  if (!imp) {
    fuzz::render(nlohmann::json(imp.error()));
    return 0;
  }
  Envelope env;
  env.schema = "fabdiag.nvue/1";
  env.data = nvue_interface_data(*imp);
  env.findings = nvue_interface_findings(*imp);
  env.errors = imp->gaps;
  fuzz::render(nlohmann::json::parse(render_json(env)));
  return 0;
}
