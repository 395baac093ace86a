// libFuzzer target: an acceptance spec as `fabdiag accept --spec FILE` reads it: parse_spec()
// (yaml-cpp, then every mapping against its keys), then the verdict of that spec over no inputs
// (every check not_checked with its reason) rendered as the fabdiag.accept/1 data.
#include <nlohmann/json.hpp>

#include "accept/evaluate.h"
#include "accept/spec.h"
#include "core/envelope.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  auto spec = accept::parse_spec(std::string(fuzz::as_text(data, size)), "fuzz-input");
  if (!spec) {
    fuzz::render(nlohmann::json(spec.error()));
    return 0;
  }
  accept::Inputs in;
  in.hosts.push_back(accept::HostInputs{"fuzz-host", {}, {}, {}});
  accept::Verdict v = accept::evaluate(*spec, in);
  nlohmann::json doc = nlohmann::json::object();
  doc["data"] = accept::verdict_json(v, *spec);
  doc["findings"] = accept::verdict_findings(v);
  doc["exit"] = accept::verdict_exit_code(v);
  fuzz::render(doc);
  return 0;
}
