#include "probes/topo/pci.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "core/text.h"
#include "probes/topo/pcie_path.h"

namespace fabdiag {

namespace {

std::optional<uint32_t> parse_hex_field(std::string_view s, size_t min_digits, size_t max_digits) {
  if (s.size() < min_digits || s.size() > max_digits) return std::nullopt;
  uint32_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return std::nullopt;
    v = v * 16 + static_cast<uint32_t>(d);
  }
  return v;
}

// Reads one attribute; on failure records the gap and returns nullopt.
std::optional<std::string> read_attr(const FsRoot& fs, const std::string& rel,
                                     std::vector<Error>& gaps) {
  auto r = fs.read_sys(rel);
  if (!r) {
    gaps.push_back(r.error());
    return std::nullopt;
  }
  return *r;
}

Error parse_gap(const FsRoot& fs, const std::string& rel, const std::string& value,
                const std::string& expected) {
  return make_error(ErrorCode::kParse, "unexpected value '" + value + "' (expected " + expected + ")",
                    fs.sys_path(rel));
}

std::optional<uint32_t> read_hex_attr(const FsRoot& fs, const std::string& rel, uint64_t max,
                                      std::vector<Error>& gaps) {
  auto text = read_attr(fs, rel, gaps);
  if (!text) return std::nullopt;
  auto v = parse_u64(*text);
  if (!v || *v > max || !starts_with(trim(*text), "0x")) {
    gaps.push_back(parse_gap(fs, rel, *text, "a 0x-prefixed hex number"));
    return std::nullopt;
  }
  return static_cast<uint32_t>(*v);
}

}  // namespace

std::string PciAddress::to_string() const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", domain, bus, device, function);
  return buf;
}

std::optional<PciAddress> parse_pci_address(std::string_view text) {
  // dddd:bb:dd.f
  auto c1 = text.find(':');
  if (c1 == std::string_view::npos) return std::nullopt;
  auto c2 = text.find(':', c1 + 1);
  if (c2 == std::string_view::npos) return std::nullopt;
  auto dot = text.find('.', c2 + 1);
  if (dot == std::string_view::npos) return std::nullopt;
  auto domain = parse_hex_field(text.substr(0, c1), 4, 8);
  auto bus = parse_hex_field(text.substr(c1 + 1, c2 - c1 - 1), 2, 2);
  auto dev = parse_hex_field(text.substr(c2 + 1, dot - c2 - 1), 2, 2);
  auto fn = parse_hex_field(text.substr(dot + 1), 1, 1);
  if (!domain || !bus || !dev || !fn || *dev > 0x1f || *fn > 7) return std::nullopt;
  return PciAddress{*domain, *bus, *dev, *fn};
}

Result<std::optional<double>> parse_link_speed_gts(std::string_view raw) {
  std::string s = trim(raw);
  if (s == "Unknown" || starts_with(s, "Unknown ")) return std::optional<double>{};
  // Number, optional blanks, "GT/s", then anything ("PCIe" since kernel 5.x).
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  auto number = parse_double(s.substr(0, i));
  std::string rest = trim(std::string_view(s).substr(i));
  if (i == 0 || !number || !(*number > 0) || *number > 1024 || !starts_with(rest, "GT/s"))
    return make_error(ErrorCode::kParse,
                      "link speed '" + s + "' is not '<number> GT/s' or 'Unknown'");
  return std::optional<double>{*number};
}

Result<int> parse_link_width(std::string_view raw) {
  auto v = parse_u64(raw);
  if (!v || *v > 32 || starts_with(trim(raw), "0x"))
    return make_error(ErrorCode::kParse,
                      "link width '" + trim(raw) + "' is not a lane count between 0 and 32");
  return static_cast<int>(*v);
}

PciKind classify_pci(uint32_t vendor_id, uint32_t class_code) {
  uint32_t base_sub = class_code >> 8;  // drop the programming interface byte
  constexpr uint32_t kNvidia = 0x10de;
  if (vendor_id == kNvidia && (base_sub == 0x0300 || base_sub == 0x0302)) return PciKind::kGpu;
  if (vendor_id == kNvidia && base_sub == 0x0680) return PciKind::kNvSwitch;
  if (base_sub == 0x0200 || base_sub == 0x0207) return PciKind::kNic;
  if (base_sub == 0x0604) return PciKind::kBridge;
  return PciKind::kOther;
}

const char* to_string(PciKind kind) {
  switch (kind) {
    case PciKind::kGpu: return "gpu";
    case PciKind::kNvSwitch: return "nvswitch";
    case PciKind::kNic: return "nic";
    case PciKind::kBridge: return "bridge";
    case PciKind::kOther: return "other";
  }
  return "other";
}

Result<std::vector<std::string>> list_pci_devices(const FsRoot& fs) {
  auto names = fs.list_sys("bus/pci/devices");
  if (!names) return names.error().with_context("listing PCI devices");
  std::vector<PciAddress> addrs;
  for (const auto& n : *names)
    if (auto a = parse_pci_address(n)) addrs.push_back(*a);
  std::sort(addrs.begin(), addrs.end());
  std::vector<std::string> out;
  for (const auto& a : addrs) out.push_back(a.to_string());
  return out;
}

Result<PciDevice> read_pci_device(const FsRoot& fs, const std::string& bdf,
                                  std::vector<Error>& gaps) {
  auto addr = parse_pci_address(bdf);
  if (!addr) return make_error(ErrorCode::kInvalidArgument, "not a PCI address (expected dddd:bb:dd.f)", bdf);
  const std::string dir = "bus/pci/devices/" + bdf;
  if (!fs.exists_sys(dir))
    return make_error(ErrorCode::kNotFound, "no such PCI device", fs.sys_path(dir));

  PciDevice d;
  d.address = *addr;
  d.bdf = addr->to_string();
  d.vendor_id = read_hex_attr(fs, dir + "/vendor", 0xffff, gaps);
  d.device_id = read_hex_attr(fs, dir + "/device", 0xffff, gaps);
  d.class_code = read_hex_attr(fs, dir + "/class", 0xffffff, gaps);
  if (d.vendor_id && d.class_code) d.kind = classify_pci(*d.vendor_id, *d.class_code);

  // numa_node is absent on kernels built without NUMA: not a gap.
  if (auto numa = fs.read_sys(dir + "/numa_node")) {
    auto v = parse_i64(*numa);
    if (v && *v >= -1 && *v < 4096) d.numa_node = static_cast<int>(*v);
    else gaps.push_back(parse_gap(fs, dir + "/numa_node", *numa, "an integer >= -1"));
  } else if (numa.error().code != ErrorCode::kNotFound) {
    gaps.push_back(numa.error());
  }

  // CPU affinity: local_cpulist (2.6.27+), else the local_cpus hex mask.
  if (auto list = fs.read_sys(dir + "/local_cpulist")) {
    if (auto cpus = parse_cpulist(*list)) d.local_cpulist = format_cpulist(*cpus);
    else gaps.push_back(parse_gap(fs, dir + "/local_cpulist", *list, "a cpulist like 0-31,64-95"));
  } else if (auto mask = fs.read_sys(dir + "/local_cpus")) {
    if (auto cpus = parse_cpumask(*mask)) d.local_cpulist = format_cpulist(*cpus);
    else gaps.push_back(parse_gap(fs, dir + "/local_cpus", *mask, "a hex cpumask"));
  } else {
    gaps.push_back(mask.error().with_context("reading local_cpulist and local_cpus"));
  }

  // The kernel creates the link attributes only for PCIe functions: a missing file means
  // conventional PCI or a virtual device (virtio), not a failed read.
  auto link_attr = [&](const char* name) -> std::optional<std::string> {
    auto r = fs.read_sys(dir + "/" + name);
    if (r) return *r;
    if (r.error().code != ErrorCode::kNotFound) gaps.push_back(r.error());
    return std::nullopt;
  };
  auto speed = [&](const char* name) -> std::optional<double> {
    auto text = link_attr(name);
    if (!text) return std::nullopt;
    auto v = parse_link_speed_gts(*text);
    if (!v) {
      gaps.push_back(make_error(ErrorCode::kParse, v.error().message, fs.sys_path(dir + "/" + name)));
      return std::nullopt;
    }
    return *v;
  };
  auto width = [&](const char* name) -> std::optional<int> {
    auto text = link_attr(name);
    if (!text) return std::nullopt;
    auto v = parse_link_width(*text);
    if (!v) {
      gaps.push_back(make_error(ErrorCode::kParse, v.error().message, fs.sys_path(dir + "/" + name)));
      return std::nullopt;
    }
    return *v;
  };
  d.link.current_speed_gts = speed("current_link_speed");
  d.link.max_speed_gts = speed("max_link_speed");
  d.link.current_width = width("current_link_width");
  d.link.max_width = width("max_link_width");

  // An unbound device has no driver link: not a gap.
  if (auto drv = fs.link_name_sys(dir + "/driver")) d.driver = *drv;
  d.is_virtual_function = fs.exists_sys(dir + "/physfn");

  if (auto canon = fs.canonical_sys(dir)) d.sysfs_path = *canon;
  else gaps.push_back(canon.error().with_context("resolving the PCI device path"));
  return d;
}

std::vector<std::string> parent_bridge_chain(const PciDevice& dev) {
  auto path = parse_pcie_path(dev.sysfs_path);
  if (!path) return {};
  return path->bridges;
}

bool pci_bdf_less(const std::string& a, const std::string& b) {
  auto pa = parse_pci_address(a), pb = parse_pci_address(b);
  if (pa && pb) return *pa < *pb;
  return a < b;
}

}  // namespace fabdiag
