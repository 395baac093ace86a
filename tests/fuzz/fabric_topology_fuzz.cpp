// libFuzzer target: a --topology file as `fabdiag triage --topology FILE` reads it:
// read_fabric_topology() (format detected: simple text, Slurm topology.conf, ibnetdiscover) and
// its JSON, plus expand_hostlist() over the first line.
#include <nlohmann/json.hpp>

#include "core/envelope.h"
#include "import/fabric_topology.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  std::string_view text = fuzz::as_text(data, size);
  auto t = read_fabric_topology(text, "fuzz-input");
  fuzz::render(t ? fabric_topology_json(*t) : nlohmann::json(t.error()));
  auto names = expand_hostlist(text.substr(0, text.find('\n')), 4096);
  if (names) fuzz::render(nlohmann::json(*names));
  return 0;
}
