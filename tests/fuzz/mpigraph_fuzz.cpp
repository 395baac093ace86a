// libFuzzer target: mpiGraph text as `fabdiag import mpigraph FILE` reads it: import_mpigraph()
// over lines, then the pairwise analysis, its findings and JSON as the envelope holds them.
#include <nlohmann/json.hpp>

#include "core/envelope.h"
#include "core/line_source.h"
#include "import/mpigraph.h"
#include "perf/pairwise_analysis.h"
#include "report/render.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  auto lines = text_line_source(std::string(fuzz::as_text(data, size)));
  auto imp = import_mpigraph(*lines, "fuzz-input", ReadLimits{});
  if (!imp) {
    fuzz::render(nlohmann::json(imp.error()));
    return 0;
  }
  auto t = perf::fabric_thresholds();
  auto a = perf::analyze_pairwise(imp->matrix, t);
  Envelope env;
  env.schema = "fabdiag.pairwise/1";
  perf::pairwise_to_json(env.data, imp->matrix, a);
  env.findings = perf::pairwise_findings(imp->matrix, a, t);
  env.errors = imp->gaps;
  fuzz::render(nlohmann::json::parse(render_json(env)));
  return 0;
}
