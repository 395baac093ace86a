// libFuzzer target: SONiC `show pfcwd stats` text as `fabdiag import sonic-pfcwd-stats FILE` reads it:
// import_sonic_pfcwd() over lines, then the findings and the JSON data of the envelope.
#include <nlohmann/json.hpp>

#include "core/envelope.h"
#include "core/line_source.h"
#include "import/sonic_pfcwd.h"
#include "report/render.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  auto lines = text_line_source(std::string(fuzz::as_text(data, size)));
  auto imp = import_sonic_pfcwd(*lines, "fuzz-input", ReadLimits{});
  if (!imp) {
    fuzz::render(nlohmann::json(imp.error()));
    return 0;
  }
  Envelope env;
  env.schema = "fabdiag.pfcwd/1";
  env.data = sonic_pfcwd_data(*imp);
  env.findings = sonic_pfcwd_findings(*imp);
  env.errors = imp->gaps;
  fuzz::render(nlohmann::json::parse(render_json(env)));
  return 0;
}
