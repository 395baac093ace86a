// libFuzzer target: nccl-tests output as `fabdiag import nccl-tests FILE` reads it:
// parse_nccl_tests(), the bench data, findings and hosts of the envelope.
#include <nlohmann/json.hpp>

#include "core/envelope.h"
#include "import/nccl_tests.h"
#include "report/render.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  std::string_view text = fuzz::as_text(data, size);
  // The --collective hint: none for most inputs, one the tables may not name for the rest.
  std::string hint = size % 3 == 0 ? "all_reduce" : "";
  auto imp = baseline::parse_nccl_tests(text, "fuzz-input", hint);
  if (!imp) {
    fuzz::render(nlohmann::json(imp.error()));
    return 0;
  }
  Envelope env;
  env.schema = "fabdiag.bench/1";
  env.hosts = baseline::nccl_tests_hosts(*imp);
  env.data = baseline::to_bench_envelope_data(*imp);
  env.findings = baseline::nccl_tests_findings(*imp, "fuzz-input");
  env.errors = imp->gaps;
  fuzz::render(nlohmann::json::parse(render_json(env)));
  return 0;
}
