#include "collect/check_sysfs.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/text.h"
#include "rules/check_host_rules.h"
#include "rules/check_pcie_rules.h"
#include "probes/topo/pci_config.h"
#include "collect/counter_pipeline.h"
#include "probes/topo/topology.h"

namespace fabdiag {

namespace {

std::string device_label(const TopoDevice& d) { return d.name + (d.ibdev ? " (" + *d.ibdev + ")" : ""); }

// Role of bridges[i] on a path: the root port, then upstream/downstream ports alternating.
std::string bridge_role(size_t index) {
  if (index == 0) return "root port";
  return index % 2 == 1 ? "switch upstream port" : "switch downstream port";
}


// aer_dev_* of one function; nullopt when the device has none of the files.
std::optional<AerSubject> read_aer(const FsRoot& fs, const std::string& bdf, const std::string& label,
                                   std::vector<Error>& gaps) {
  AerSubject s;
  s.bdf = bdf;
  s.label = label;
  bool any = false;
  auto one = [&](const char* file, AerGroup& g) {
    std::string rel = "bus/pci/devices/" + bdf + "/" + file;
    auto text = fs.read_sys(rel);
    if (!text) {
      if (text.error().code != ErrorCode::kNotFound) gaps.push_back(text.error().with_context("reading AER statistics"));
      return;
    }
    auto parsed = parse_aer_text(*text, fs.sys_path(rel));
    if (!parsed) {
      gaps.push_back(parsed.error());
      return;
    }
    g = *parsed;
    any = true;
  };
  one("aer_dev_correctable", s.correctable);
  one("aer_dev_fatal", s.fatal);
  one("aer_dev_nonfatal", s.nonfatal);
  if (!any) return std::nullopt;
  return s;
}

GdrFacts read_gdr(const FsRoot& fs, const TopologyReport& topo) {
  GdrFacts g;
  for (const auto& d : topo.devices) {
    if (d.kind == TopoKind::kGpu) ++g.gpus;
    else if (d.ibdev) ++g.rdma_nics;
  }
  for (const char* rel : {"module/nvidia_peermem", "kernel/mm/memory_peers/nv_mem/version",
                          "kernel/mm/memory_peers/nv_mem_nc/version"}) {
    g.peermem_checked.push_back(fs.sys_path(rel));
    if (fs.exists_sys(rel)) g.peermem_found.push_back(fs.sys_path(rel));
  }
  g.peermem_checked.push_back(fs.proc_path("modules"));
  if (auto mods = fs.read_proc("modules")) {
    for (const auto& line : split(*mods, '\n')) {
      auto words = split_ws(line);
      if (!words.empty() && (words[0] == "nvidia_peermem" || words[0] == "nv_peer_mem"))
        g.peermem_found.push_back(fs.proc_path("modules") + ": " + words[0]);
    }
  }
  if (auto v = fs.read_proc("driver/nvidia/version")) parse_nvidia_version(*v, g);
  if (auto r = fs.read_proc("sys/kernel/osrelease")) g.kernel_release = trim(*r);
  return g;
}

// The IOMMU evidence; nullopt (and the reason in `facts.not_read`) when none of it could be read:
// no class/iommu directory, no /proc/cmdline and no iommu_group of a GPU or NIC.
void read_iommu(const FsRoot& fs, const TopologyReport& topo, HostFacts& facts) {
  IommuFacts f;
  auto units = fs.list_sys("class/iommu");
  f.units = units.value_or({});
  if (auto c = fs.read_proc("cmdline")) f.cmdline = trim(*c);
  for (const auto& d : topo.devices)
    if (auto t = fs.read_sys("bus/pci/devices/" + d.pci.bdf + "/iommu_group/type"))
      f.device_domains.emplace_back(device_label(d), trim(*t));
  if (!units && !f.cmdline && f.device_domains.empty()) {
    facts.not_read["iommu"] = "no IOMMU evidence: " + fs.sys_path("class/iommu") + " does not exist, " +
                              (fs.procfs_root().empty() ? std::string("no procfs to read cmdline from")
                                                        : fs.proc_path("cmdline") + " cannot be read") +
                              ", no GPU or NIC has an iommu_group";
    return;
  }
  facts.iommu = std::move(f);
}

bool gid_is_zero(const std::string& gid) {
  return std::all_of(gid.begin(), gid.end(), [](char c) { return c == '0' || c == ':'; });
}

// RoCE v2 GIDs of a port; nullopt when the kernel has no gid_attrs (unknown).
std::optional<std::vector<std::string>> read_rocev2_gids(const FsRoot& fs, const std::string& pdir) {
  auto types = fs.list_sys(pdir + "/gid_attrs/types");
  if (!types) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& idx : *types) {
    auto type = fs.read_sys(pdir + "/gid_attrs/types/" + idx);
    if (!type || trim(*type) != "RoCE v2") continue;  // read errors = empty table entry
    auto gid = fs.read_sys(pdir + "/gids/" + idx);
    if (gid && !gid_is_zero(trim(*gid))) out.push_back(trim(*gid));
  }
  return out;
}

// Gaps for the state, phys_state and rate files of a port that are missing: without them the
// port cannot be judged, and `check` must say which file it could not read.
void note_unread_port_files(const FsRoot& fs, const std::string& pdir, const RdmaPortFacts& p, std::vector<Error>& gaps) {
  for (auto [file, value] : {std::pair{"state", &p.state}, {"phys_state", &p.phys_state}, {"rate", &p.rate}}) {
    if (!value->empty()) continue;
    auto r = fs.read_sys(pdir + "/" + file);
    if (!r && r.error().code == ErrorCode::kNotFound)
      gaps.push_back(r.error().with_context(std::string("reading the RDMA port's ") + file));
  }
}

// The link subjects of `topo` (pcie_link_subjects()), each GPU/NIC marked link_expected unless it
// is a virtio function (vendor 0x1af4), with its sysfs directory; a missing current_link_width or
// current_link_speed of such a device is a gap.
std::vector<PcieLinkSubject> link_subjects(const FsRoot& fs, const TopologyReport& topo, std::vector<Error>& gaps) {
  constexpr uint32_t kVirtioVendor = 0x1af4;
  std::vector<PcieLinkSubject> links = pcie_link_subjects(topo);
  for (size_t i = 0; i < topo.devices.size() && i < links.size(); ++i) {
    const PciDevice& d = topo.devices[i].pci;
    std::string dir = "bus/pci/devices/" + d.bdf;
    links[i].source = fs.sys_path(dir);
    links[i].link_expected = d.class_code && d.vendor_id && *d.vendor_id != kVirtioVendor &&
                             (d.kind == PciKind::kGpu || d.kind == PciKind::kNic);
    if (!links[i].link_expected) continue;
    for (const char* file : {"current_link_width", "current_link_speed"})
      if (auto r = fs.read_sys(dir + "/" + file); !r && r.error().code == ErrorCode::kNotFound)
        gaps.push_back(r.error().with_context("reading the PCIe link of " + links[i].label));
  }
  return links;
}

void read_ports(const FsRoot& fs, HostFacts& facts) {
  if (!fs.exists_sys("class/infiniband")) {  // no RDMA device here, or not a sysfs tree: nothing read
    const std::string why = fs.sys_path("class/infiniband") + " does not exist (no RDMA driver loaded, or not a sysfs tree)";
    facts.not_read["rdma_ports"] = "no RDMA port facts: " + why;
    facts.not_read["counters"] = "no RDMA counters: " + why;
    return;
  }
  CounterSources sources;  // the RDMA ports' attributes and counters; no netdevs, no ethtool
  sources.netdev = false;
  sources.ethtool = false;
  Snapshot snap = CounterPipeline(sources).snapshot(fs);
  for (const auto& e : snap.gaps)
    if (is_failure(e)) facts.gaps.push_back(e);
  std::vector<RdmaPortFacts> ports;
  for (const auto& pi : snap.ports) {
    if (!pi.is_rdma) continue;
    RdmaPortFacts p = rdma_port_facts(pi);
    p.from_sysfs = true;
    std::string dev = "class/infiniband/" + pi.ibdev;
    std::string pdir = dev + "/ports/" + std::to_string(pi.port);
    p.model = trim(fs.read_sys(dev + "/hca_type").value_or(""));
    p.board_id = trim(fs.read_sys(dev + "/board_id").value_or(""));
    p.fw_ver = trim(fs.read_sys(dev + "/fw_ver").value_or(""));
    p.lid = trim(fs.read_sys(pdir + "/lid").value_or(""));
    if (!p.netdev.empty())
      if (auto mtu = fs.read_sys("class/net/" + p.netdev + "/mtu"))
        if (auto v = parse_u64(*mtu); v && *v < 1000000) p.netdev_mtu_bytes = static_cast<int>(*v);
    if (p.link_layer == "Ethernet") p.rocev2_gids = read_rocev2_gids(fs, pdir);
    note_unread_port_files(fs, pdir, p, facts.gaps);
    ports.push_back(std::move(p));
  }
  facts.rdma_ports = std::move(ports);
  std::vector<CounterChange> kept;
  for (auto& ch : snapshot_readings(snap))
    if (ch.counter.canonical == "rp_cnp_ignored") kept.push_back(std::move(ch));
  facts.counters = std::move(kept);
}

}  // namespace

HostFacts read_host_facts(const FsRoot& fs, const Progress& progress) {
  HostFacts facts;
  facts.origin = "sysfs " + fs.sysfs_root() + ", procfs " + (fs.procfs_root().empty() ? std::string("none") : fs.procfs_root());
  if (!fs.exists_sys("bus/pci/devices")) {  // not a sysfs tree (an empty --sysfs-root): nothing to judge
    const std::string why = fs.sys_path("bus/pci/devices") + " does not exist";
    for (const char* fact : {"pcie_links", "acs_ports", "aer", "gdr"}) facts.not_read[fact] = "no PCI facts: " + why;
    read_iommu(fs, TopologyReport{}, facts);
    read_ports(fs, facts);
    return facts;
  }
  TopologyReport topo = discover_topology(fs, progress);
  for (auto& g : topo.gaps) facts.gaps.push_back(std::move(g));
  facts.pcie_links = link_subjects(fs, topo, facts.gaps);

  // Bridges on the GPU/NIC paths, with what sits below each.
  std::map<std::string, std::pair<std::string, std::vector<std::string>>, decltype(&pci_bdf_less)> bridges(&pci_bdf_less);
  for (const auto& d : topo.devices)
    for (size_t i = 0; i < d.path.bridges.size(); ++i) {
      auto& entry = bridges[d.path.bridges[i]];
      entry.first = bridge_role(i);
      entry.second.push_back(device_label(d));
    }
  progress("reading ACS and AER of " + std::to_string(bridges.size()) + " bridges above GPUs and NICs");
  std::vector<AcsPort> acs;
  std::vector<AerSubject> aer;
  for (const auto& d : topo.devices)
    if (auto a = read_aer(fs, d.pci.bdf, device_label(d), facts.gaps)) aer.push_back(std::move(*a));
  for (const auto& [bdf, role_below] : bridges) {
    AcsPort p;
    p.bdf = bdf;
    p.label = role_below.first + " " + bdf;
    p.position_known = true;
    p.below = role_below.second;
    p.source = fs.sys_path("bus/pci/devices/" + bdf + "/config");
    AcsLookup look = read_acs(fs, bdf);
    p.status = look.status;
    p.control = look.control;
    p.detail = look.detail;
    acs.push_back(std::move(p));
    if (auto a = read_aer(fs, bdf, role_below.first + " " + bdf, facts.gaps)) aer.push_back(std::move(*a));
  }
  facts.acs_ports = std::move(acs);
  facts.aer = std::move(aer);
  facts.gdr = read_gdr(fs, topo);
  read_iommu(fs, topo, facts);
  read_ports(fs, facts);
  return facts;
}

}  // namespace fabdiag
