// libFuzzer target: a PCI configuration space image (/sys/bus/pci/devices/<bdf>/config) as
// read_acs() judges it: acs_from_config() and the extended capability walk for AER.
#include <vector>

#include "probes/topo/pci_config.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  if (size > 4096) return -1;  // read_acs() reads at most 4096 bytes
  std::vector<uint8_t> config(data, data + size);
  AcsLookup acs = acs_from_config(config);
  (void)to_string(acs.status);
  if (acs.status == AcsStatus::kRead) (void)acs_control_text(acs.control);
  if (config.size() > kExtCapStart) {  // find_extended_capability()'s precondition
    auto aer = find_extended_capability(config, kExtCapAer);
    if (aer && *aer && **aer + 4u > config.size()) __builtin_trap();  // an offset past the image
  }
  return 0;
}
