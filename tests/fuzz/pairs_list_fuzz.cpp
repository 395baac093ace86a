// libFuzzer target: a pairs list as `fabdiag import pairs FILE` reads it: import_pairs_list(),
// the pairwise analysis with the fabric thresholds, its findings and JSON data.
#include <nlohmann/json.hpp>

#include "core/envelope.h"
#include "core/line_source.h"
#include "import/pairs_list.h"
#include "perf/pairwise_analysis.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  auto lines = text_line_source(std::string(fuzz::as_text(data, size)));
  auto imp = import_pairs_list(*lines, "fuzz-input", ReadLimits{});
  if (!imp) {
    fuzz::render(nlohmann::json(imp.error()));
    return 0;
  }
  auto t = perf::fabric_thresholds();
  auto a = perf::analyze_pairwise(imp->matrix, t);
  nlohmann::json doc = nlohmann::json::object();
  perf::pairwise_to_json(doc, imp->matrix, a);
  doc["findings"] = perf::pairwise_findings(imp->matrix, a, t);
  fuzz::render(doc);
  return 0;
}
