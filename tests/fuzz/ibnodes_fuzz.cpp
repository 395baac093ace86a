// libFuzzer target: infiniband-diags `ibhosts` / `ibswitches` / `ibnodes` text as `fabdiag import
// ibnodes FILE` reads it: import_ibnodes() over lines, then the findings and the JSON data of the
// envelope. Seeds: every text fixture (scripts/fuzz-corpus.py), tests/fixtures/ibnodes among them.
#include <nlohmann/json.hpp>

#include "core/envelope.h"
#include "core/line_source.h"
#include "import/ibnodes.h"
#include "report/render.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  auto lines = text_line_source(std::string(fuzz::as_text(data, size)));
  auto imp = import_ibnodes(*lines, "fuzz-input", ReadLimits{});
  if (!imp) {
    fuzz::render(nlohmann::json(imp.error()));
    return 0;
  }
  Envelope env;
  env.schema = "fabdiag.ibnodes/1";
  env.data = ibnodes_data(*imp);
  env.findings = ibnodes_findings(*imp);
  env.errors = imp->gaps;
  fuzz::render(nlohmann::json::parse(render_json(env)));
  return 0;
}
