// libFuzzer target: the optical module EEPROM decoder (probes/module/module_eeprom.h) over
// the three ways pages reach it: a flat image of the legacy ETHTOOL_GMODULEEEPROM ioctl (the
// first byte picks the ETHTOOL_GMODULEINFO type), the fixture page text of
// ethtool-module/<netdev> (the whole input as text), and the judgement of the decoded module
// (rules/optics.h), as `fabdiag counters` shows it.
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/module/module_eeprom.h"
#include "probes/module/module_pages.h"
#include "rules/optics.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace fabdiag;

void decode_and_judge(const ModuleMemory& mem) {
  (void)module_extra_reads(mem);
  auto diag = decode_module_eeprom(mem);
  if (!diag) return;
  (void)power_margins(*diag);
  (void)optics_summary(*diag);
  nlohmann::json j = *diag;
  if (auto f = optics_finding(*diag)) j["finding"] = *f;
  fuzz::render(j);
  ModuleDiagnostics back;  // the snapshot JSON a triage rank sends is read back
  from_json(j, back);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  uint32_t type = data[0] % 6;  // 0 and 5: not a type the ioctl knows
  decode_and_judge(module_memory_from_flat(type, std::vector<uint8_t>(data + 1, data + size)));

  auto pages = parse_module_pages_text(fuzz::as_text(data, size), "fuzz-input");
  if (pages) {
    decode_and_judge(*pages);
    (void)format_module_pages_text(*pages);
  }
  return 0;
}
