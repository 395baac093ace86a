// libFuzzer target: `nvidia-smi topo -m` output as `fabdiag import nvidia-smi-topo FILE` reads
// it: import_nvsmi_topo() (matrix, report, rails, findings) and the topo envelope.
#include "import/nvsmi_topo.h"
#include "probes/topo/topology_json.h"
#include "report/render.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  auto imp = import_nvsmi_topo(fuzz::as_text(data, size), "fuzz-input");
  if (!imp) {
    fuzz::render(nlohmann::json(imp.error()));
    return 0;
  }
  Envelope env = topo_envelope(imp->report, imp->rails, imp->findings);
  std::string out = render_json(env);
  if (out.empty()) __builtin_trap();
  return 0;
}
