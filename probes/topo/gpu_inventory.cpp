#include "probes/topo/gpu_inventory.h"

#include "core/text.h"
#include "probes/topo/pci.h"

namespace fabdiag {

const char* to_string(NvlinkRemote r) {
  switch (r) {
    case NvlinkRemote::kGpu: return "gpu";
    case NvlinkRemote::kIbmNpu: return "ibmnpu";
    case NvlinkRemote::kSwitch: return "switch";
    case NvlinkRemote::kUnknown: return "unknown";
  }
  return "unknown";
}

NvlinkRemote nvlink_remote_from_nvml(unsigned int value) {
  switch (value) {
    case 0x00: return NvlinkRemote::kGpu;
    case 0x01: return NvlinkRemote::kIbmNpu;
    case 0x02: return NvlinkRemote::kSwitch;
    default: return NvlinkRemote::kUnknown;
  }
}

GpuInventory NoGpuInventory::read() const {
  GpuInventory inv;
  inv.why_not = why_not_;
  return inv;
}

std::optional<std::string> normalize_nvml_bus_id(const std::string& bus_id) {
  // parse_pci_address accepts 4..8 domain digits in either case and prints the sysfs form.
  auto addr = parse_pci_address(trim(bus_id));
  if (!addr) return std::nullopt;
  return addr->to_string();
}

}  // namespace fabdiag
