// libFuzzer target: `ibdev2netdev` [-v] text as `fabdiag import ibdev2netdev FILE` reads it:
// import_ibdev2netdev() over lines, then the findings and the JSON data of the envelope.
#include <nlohmann/json.hpp>

#include "core/envelope.h"
#include "core/line_source.h"
#include "import/ibdev2netdev.h"
#include "report/render.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  auto lines = text_line_source(std::string(fuzz::as_text(data, size)));
  auto imp = import_ibdev2netdev(*lines, "fuzz-input", ReadLimits{});
  if (!imp) {
    fuzz::render(nlohmann::json(imp.error()));
    return 0;
  }
  Envelope env;
  env.schema = "fabdiag.ibdev2netdev/1";
  env.data = ibdev2netdev_data(*imp);
  env.findings = ibdev2netdev_findings(*imp);
  env.errors = imp->gaps;
  fuzz::render(nlohmann::json::parse(render_json(env)));
  return 0;
}
