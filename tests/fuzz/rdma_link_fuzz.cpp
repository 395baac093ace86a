// libFuzzer target: `rdma link show` text or JSON as `fabdiag import rdma-link FILE` reads it:
// import_rdma_link() over lines, then the findings and the JSON data of the envelope.
#include <nlohmann/json.hpp>

#include "core/envelope.h"
#include "core/line_source.h"
#include "import/rdma_link.h"
#include "report/render.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  auto lines = text_line_source(std::string(fuzz::as_text(data, size)));
  auto imp = import_rdma_link(*lines, "fuzz-input", ReadLimits{});
  if (!imp) {
    fuzz::render(nlohmann::json(imp.error()));
    return 0;
  }
  Envelope env;
  env.schema = "fabdiag.rdmalinks/1";
  env.data = rdma_link_data(*imp);
  env.findings = rdma_link_findings(*imp);
  env.errors = imp->gaps;
  fuzz::render(nlohmann::json::parse(render_json(env)));
  return 0;
}
