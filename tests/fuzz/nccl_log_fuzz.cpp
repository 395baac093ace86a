// libFuzzer target: an NCCL_DEBUG log as `fabdiag import nccl-log FILE` reads it:
// import_nccl_log() over lines (with a small --max-findings for some inputs), the findings and
// the JSON data of the envelope.
#include <nlohmann/json.hpp>

#include "core/envelope.h"
#include "core/line_source.h"
#include "import/nccl_log.h"
#include "report/render.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  auto lines = text_line_source(std::string(fuzz::as_text(data, size)));
  ReadLimits limits;
  if (size % 2 == 0) limits.max_listed = 2;  // the capped path of --max-findings
  auto imp = import_nccl_log(*lines, "fuzz-input", limits);
  if (!imp) {
    fuzz::render(nlohmann::json(imp.error()));
    return 0;
  }
  Envelope env;
  env.schema = "fabdiag.nccllog/1";
  for (const auto& h : imp->hosts) env.hosts.push_back(h.host);
  env.data = nccl_log_data(*imp);
  env.findings = nccl_log_findings(*imp);
  fuzz::render(nlohmann::json::parse(render_json(env)));
  return 0;
}
