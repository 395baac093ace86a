// libFuzzer target: OSU micro-benchmarks text as `fabdiag import osu FILE` reads it: import_osu()
// over lines, then the findings (with and without a line rate) and the JSON data of the envelope.
#include <nlohmann/json.hpp>

#include "core/envelope.h"
#include "core/line_source.h"
#include "import/osu.h"
#include "report/render.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  auto lines = text_line_source(std::string(fuzz::as_text(data, size)));
  auto imp = import_osu(*lines, "fuzz-input", ReadLimits{});
  if (!imp) {
    fuzz::render(nlohmann::json(imp.error()));
    return 0;
  }
  Envelope env;
  env.schema = "fabdiag.osu/1";
  env.data = osu_data(*imp);
  env.findings = osu_findings(*imp, 100.0);
  for (auto& f : osu_findings(*imp, std::nullopt)) env.findings.push_back(std::move(f));
  env.errors = imp->gaps;
  fuzz::render(nlohmann::json::parse(render_json(env)));
  return 0;
}
