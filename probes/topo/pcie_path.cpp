#include "probes/topo/pcie_path.h"

#include <algorithm>
#include <cctype>

#include "core/text.h"
#include "probes/topo/pci.h"

namespace fabdiag {

namespace {

// "pci0000:15" (domain and bus in hex): the kernel's name for a host bridge (root complex).
bool is_host_bridge_component(std::string_view c) {
  if (!starts_with(c, "pci")) return false;
  auto rest = c.substr(3);
  auto colon = rest.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 >= rest.size()) return false;
  return std::all_of(rest.begin(), rest.end(), [](char ch) {
    return ch == ':' || std::isxdigit(static_cast<unsigned char>(ch));
  });
}

}  // namespace

Result<PciePath> parse_pcie_path(std::string_view canonical_path) {
  auto parts = split(canonical_path, '/');
  size_t i = 0;
  while (i < parts.size() && !is_host_bridge_component(parts[i])) ++i;
  if (i == parts.size())
    return make_error(ErrorCode::kParse, "no PCI host bridge (pciDDDD:BB) in the device path",
                      std::string(canonical_path));
  PciePath path;
  path.host_bridge = parts[i];
  std::vector<std::string> bdfs;
  for (++i; i < parts.size(); ++i) {
    if (parts[i].empty()) continue;
    if (is_host_bridge_component(parts[i])) continue;  // VMD: a host bridge below an endpoint
    auto addr = parse_pci_address(parts[i]);
    if (!addr)
      return make_error(ErrorCode::kParse,
                        "path component '" + parts[i] + "' is not a PCI address",
                        std::string(canonical_path));
    bdfs.push_back(addr->to_string());
  }
  if (bdfs.empty())
    return make_error(ErrorCode::kParse, "the device path ends at the host bridge",
                      std::string(canonical_path));
  path.device = bdfs.back();
  bdfs.pop_back();
  path.bridges = std::move(bdfs);
  return path;
}

std::vector<std::string> pcie_switches(const PciePath& path) {
  std::vector<std::string> out;
  // bridges[0] is the root port; below it upstream/downstream ports alternate.
  for (size_t i = 1; i < path.bridges.size(); i += 2) out.push_back(path.bridges[i]);
  return out;
}

const char* to_string(PcieLevel level) {
  switch (level) {
    case PcieLevel::kSelf: return "X";
    case PcieLevel::kPix: return "PIX";
    case PcieLevel::kPxb: return "PXB";
    case PcieLevel::kPhb: return "PHB";
    case PcieLevel::kNode: return "NODE";
    case PcieLevel::kSys: return "SYS";
    case PcieLevel::kUnknown: return "N/A";
  }
  return "N/A";
}

PcieLevel derive_pcie_level(const PciePath& a, int numa_a, const PciePath& b, int numa_b) {
  if (a.device.empty() || b.device.empty()) return PcieLevel::kUnknown;
  if (a.device == b.device) return PcieLevel::kSelf;
  if (a.host_bridge != b.host_bridge) {
    bool same_numa = (numa_a < 0 && numa_b < 0) || (numa_a >= 0 && numa_a == numa_b);
    return same_numa ? PcieLevel::kNode : PcieLevel::kSys;
  }
  if (a.bridges.empty() || b.bridges.empty() || a.bridges.front() != b.bridges.front())
    return PcieLevel::kPhb;
  auto sa = pcie_switches(a), sb = pcie_switches(b);
  size_t common = 0;
  while (common < sa.size() && common < sb.size() && sa[common] == sb[common]) ++common;
  size_t crossed = (sa.size() - common) + (sb.size() - common) + (common > 0 ? 1 : 0);
  return crossed <= 1 ? PcieLevel::kPix : PcieLevel::kPxb;
}

}  // namespace fabdiag
