#include "probes/topo/topology.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/text.h"

namespace fabdiag {

namespace {

// Vendor and class only: enough to know whether a function matters. Reading every attribute of
// every function would report gaps for chipset devices that simply have no PCIe link.
struct Classified {
  std::string bdf;
  PciKind kind = PciKind::kOther;
};

std::vector<Classified> classify_all(const FsRoot& fs, const std::vector<std::string>& bdfs,
                                     std::vector<Error>& gaps) {
  std::vector<Classified> out;
  for (const auto& bdf : bdfs) {
    const std::string dir = "bus/pci/devices/" + bdf;
    if (fs.exists_sys(dir + "/physfn")) continue;  // SR-IOV VF: listed under its PF
    auto vendor = fs.read_sys(dir + "/vendor");
    auto cls = fs.read_sys(dir + "/class");
    if (!vendor || !cls) {
      gaps.push_back((vendor ? cls.error() : vendor.error()).with_context("classifying PCI device " + bdf));
      continue;
    }
    auto v = parse_u64(*vendor);
    auto c = parse_u64(*cls);
    if (!v || !c) {
      gaps.push_back(make_error(ErrorCode::kParse,
                                "vendor '" + *vendor + "' or class '" + *cls + "' is not a hex number",
                                fs.sys_path(dir)));
      continue;
    }
    out.push_back({bdf, classify_pci(static_cast<uint32_t>(*v), static_cast<uint32_t>(*c))});
  }
  return out;
}

// BDF of the PCI function a class device's "device" link leads to: the last PCI address in
// its canonical path, so a virtio netdev (device -> .../0000:00:03.0/virtio0) maps to its PCI
// function. nullopt when it has no device link (lo, veth, bridges) or no PCI function above.
std::optional<std::string> class_device_bdf(const FsRoot& fs, const std::string& rel,
                                            std::vector<Error>& gaps) {
  if (!fs.exists_sys(rel + "/device")) return std::nullopt;
  auto canon = fs.canonical_sys(rel + "/device");
  if (!canon) {
    gaps.push_back(canon.error());
    return std::nullopt;
  }
  auto parts = split(*canon, '/');
  for (auto it = parts.rbegin(); it != parts.rend(); ++it)
    if (auto addr = parse_pci_address(*it)) return addr->to_string();
  return std::nullopt;
}

// bdf -> names of class entries (class/infiniband or class/net) whose device is that function.
std::map<std::string, std::set<std::string>> class_map(const FsRoot& fs, const std::string& cls,
                                                       std::vector<Error>& gaps) {
  std::map<std::string, std::set<std::string>> out;
  auto names = fs.list_sys("class/" + cls);
  if (!names) {
    // No class/infiniband = no RDMA stack loaded: nothing to map, not a gap.
    if (names.error().code != ErrorCode::kNotFound) gaps.push_back(names.error());
    return out;
  }
  for (const auto& n : *names)
    if (auto bdf = class_device_bdf(fs, "class/" + cls + "/" + n, gaps)) out[*bdf].insert(n);
  return out;
}

std::vector<std::string> natural_sorted(const std::set<std::string>& s) {
  std::vector<std::string> v(s.begin(), s.end());
  std::sort(v.begin(), v.end(), natural_less);
  return v;
}

// Ports of an RDMA device. A missing ports/ directory or attribute is left empty (not a gap:
// some providers lack files); a file that exists but cannot be read is a gap.
std::vector<RdmaPort> read_rdma_ports(const FsRoot& fs, const std::string& ibdev, std::vector<Error>& gaps) {
  std::vector<RdmaPort> out;
  const std::string dir = "class/infiniband/" + ibdev + "/ports";
  auto names = fs.list_sys(dir);
  if (!names) {
    if (names.error().code != ErrorCode::kNotFound) gaps.push_back(names.error());
    return out;
  }
  for (const auto& n : *names) {
    auto num = parse_u64(n);
    if (!num || *num == 0 || *num > 255) continue;
    RdmaPort p;
    p.port = static_cast<int>(*num);
    auto attr = [&](const char* name, std::string& into) {
      auto v = fs.read_sys(dir + "/" + n + "/" + name);
      if (v) into = *v;
      else if (v.error().code != ErrorCode::kNotFound && v.error().code != ErrorCode::kUnsupported)
        gaps.push_back(v.error().with_context("reading RDMA port " + ibdev + "/" + n));
    };
    attr("state", p.state);
    attr("phys_state", p.phys_state);
    attr("rate", p.rate);
    attr("link_layer", p.link_layer);
    // "400 Gb/sec (4X NDR)": the number is the effective rate in Gb/s
    // (docs/domain.md#rdma-port-attributes).
    if (auto gbps = parse_leading_double(p.rate); gbps && *gbps > 0) p.rate_bits_per_s = *gbps * 1e9;
    out.push_back(std::move(p));
  }
  return out;
}

// NICs with an RDMA device first, in natural ibdev order (how nvidia-smi numbers NIC0..), then
// the others by BDF (their input order).
void order_nics(std::vector<TopoDevice>& nics) {
  std::stable_sort(nics.begin(), nics.end(), [](const TopoDevice& a, const TopoDevice& b) {
    if (a.ibdev.has_value() != b.ibdev.has_value()) return a.ibdev.has_value();
    if (a.ibdev && b.ibdev) return natural_less(*a.ibdev, *b.ibdev);
    return false;
  });
}

}  // namespace

const char* to_string(TopoKind kind) { return kind == TopoKind::kGpu ? "gpu" : "nic"; }

std::string relation_code(const Relation& r) {
  if (r.missing) return "-";
  if (r.nvlink_links && *r.nvlink_links > 0) return "NV" + std::to_string(*r.nvlink_links);
  return to_string(r.pcie);
}

void set_nvlink_links(TopologyReport& report, size_t i, size_t j, int links) {
  report.matrix[i][j].nvlink_links = links;
  report.matrix[j][i].nvlink_links = links;
}

std::vector<std::vector<Relation>> build_relation_matrix(const std::vector<TopoDevice>& devices) {
  size_t n = devices.size();
  std::vector<std::vector<Relation>> m(n, std::vector<Relation>(n));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      m[i][j].pcie = i == j ? PcieLevel::kSelf
                            : derive_pcie_level(devices[i].path, devices[i].pci.numa_node,
                                                devices[j].path, devices[j].pci.numa_node);
  return m;
}

TopologyReport discover_topology(const FsRoot& fs, const Progress& progress) {
  TopologyReport report;
  auto& gaps = report.gaps;
  auto bdfs = list_pci_devices(fs);
  if (!bdfs) {
    gaps.push_back(bdfs.error());
    return report;
  }
  progress("reading " + std::to_string(bdfs->size()) + " PCI functions under " +
           fs.sys_path("bus/pci/devices"));
  auto classified = classify_all(fs, *bdfs, gaps);

  auto ib_map = class_map(fs, "infiniband", gaps);
  auto net_map = class_map(fs, "net", gaps);

  std::vector<TopoDevice> gpus, nics;
  for (const auto& c : classified) {
    if (c.kind != PciKind::kGpu && c.kind != PciKind::kNic) continue;
    auto pci = read_pci_device(fs, c.bdf, gaps);
    if (!pci) {
      gaps.push_back(pci.error());
      continue;
    }
    TopoDevice d;
    d.kind = c.kind == PciKind::kGpu ? TopoKind::kGpu : TopoKind::kNic;
    d.pci = std::move(*pci);
    if (auto path = parse_pcie_path(d.pci.sysfs_path)) d.path = *path;
    else if (!d.pci.sysfs_path.empty()) gaps.push_back(path.error());
    if (d.kind == TopoKind::kNic) {
      // class/<cls>/*/device links, plus the device's own infiniband/ and net/ directories.
      const std::string dir = "bus/pci/devices/" + d.pci.bdf;
      std::set<std::string> ib = ib_map[d.pci.bdf], net = net_map[d.pci.bdf];
      if (auto l = fs.list_sys(dir + "/infiniband")) ib.insert(l->begin(), l->end());
      if (auto l = fs.list_sys(dir + "/net")) net.insert(l->begin(), l->end());
      auto ib_sorted = natural_sorted(ib);
      if (!ib_sorted.empty()) d.ibdev = ib_sorted.front();
      d.netdevs = natural_sorted(net);
      d.rdma = d.ibdev.has_value();
      if (d.ibdev) d.ports = read_rdma_ports(fs, *d.ibdev, gaps);
    }
    (d.kind == TopoKind::kGpu ? gpus : nics).push_back(std::move(d));
  }
  order_nics(nics);
  for (size_t i = 0; i < gpus.size(); ++i) gpus[i].name = "GPU" + std::to_string(i);
  for (size_t i = 0; i < nics.size(); ++i) nics[i].name = "NIC" + std::to_string(i);
  report.devices = std::move(gpus);
  for (auto& n : nics) report.devices.push_back(std::move(n));
  progress("found " + std::to_string(report.devices.size() - nics.size()) + " GPUs and " +
           std::to_string(nics.size()) + " NICs");

  // Bridges on the devices' paths, each read once.
  std::map<std::string, PciDevice> bridges;
  auto bridge = [&](const std::string& bdf) -> const PciDevice* {
    auto it = bridges.find(bdf);
    if (it != bridges.end()) return &it->second;
    auto b = read_pci_device(fs, bdf, gaps);
    if (!b) {
      gaps.push_back(b.error());
      return nullptr;
    }
    return &bridges.emplace(bdf, std::move(*b)).first->second;
  };

  std::map<std::string, SwitchUplink, decltype(&pci_bdf_less)> uplinks(&pci_bdf_less);
  for (auto& d : report.devices) {
    if (d.path.bridges.empty()) continue;
    d.parent_bdf = d.path.bridges.back();
    if (const PciDevice* p = bridge(d.parent_bdf)) {
      d.parent_max_speed_gts = p->link.max_speed_gts;
      d.parent_max_width = p->link.max_width;
    }
    for (const auto& usp : pcie_switches(d.path)) {
      if (uplinks.count(usp)) continue;
      auto pos = std::find(d.path.bridges.begin(), d.path.bridges.end(), usp);
      const PciDevice* u = bridge(usp);
      if (!u || pos == d.path.bridges.begin()) continue;
      SwitchUplink up;
      up.upstream_port = *u;
      up.parent_bdf = *(pos - 1);
      if (const PciDevice* p = bridge(up.parent_bdf)) {
        up.parent_max_speed_gts = p->link.max_speed_gts;
        up.parent_max_width = p->link.max_width;
      }
      uplinks.emplace(usp, std::move(up));
    }
  }
  for (auto& [bdf, up] : uplinks) report.uplinks.push_back(std::move(up));

  report.matrix = build_relation_matrix(report.devices);

  return report;
}

std::vector<PcieLinkSubject> pcie_link_subjects(const TopologyReport& topo) {
  std::vector<PcieLinkSubject> out;
  for (const auto& d : topo.devices) {
    PcieLinkSubject s;
    s.bdf = d.pci.bdf;
    s.label = d.name + (d.ibdev ? " (" + *d.ibdev + ")" : "");
    s.is_gpu = d.kind == TopoKind::kGpu;
    s.link = d.pci.link;
    s.parent_bdf = d.parent_bdf;
    s.parent_max_speed_gts = d.parent_max_speed_gts;
    s.parent_max_width = d.parent_max_width;
    out.push_back(s);
  }
  for (const auto& up : topo.uplinks) {
    PcieLinkSubject s;
    s.bdf = up.upstream_port.bdf;
    s.label = "PCIe switch uplink " + up.upstream_port.bdf;
    s.link = up.upstream_port.link;
    s.parent_bdf = up.parent_bdf;
    s.parent_max_speed_gts = up.parent_max_speed_gts;
    s.parent_max_width = up.parent_max_width;
    out.push_back(s);
  }
  return out;
}

}  // namespace fabdiag
