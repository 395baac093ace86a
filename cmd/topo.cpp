// `fabdiag topo`: reads the topology from sysfs (probes/topology.h), puts it in the envelope
// (probes/topology_json.h) and draws the nvidia-smi-like matrix, legends and PCIe link table.
#include <chrono>
#include <cstdio>

#include "cmd/commands.h"
#include "core/exit_codes.h"
#include "probes/topology.h"
#include "probes/topology_json.h"

namespace fabdiag::cmd {

namespace {

std::string gts(const std::optional<double>& v) {
  if (!v) return "?";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g GT/s", *v);
  return buf;
}

std::string lanes(const std::optional<int>& v) { return v ? "x" + std::to_string(*v) : "?"; }

std::string nic_legend_line(const TopoDevice& d) {
  std::string netdevs;
  for (const auto& n : d.netdevs) netdevs += (netdevs.empty() ? "" : ", ") + n;
  if (d.ibdev) return "  " + d.name + ": " + *d.ibdev + (netdevs.empty() ? "" : " (" + netdevs + ")");
  if (!netdevs.empty()) return "  " + d.name + ": " + netdevs + " (no RDMA device)";
  return "  " + d.name + ": " + d.pci.bdf + " (no RDMA device, no netdev)";
}

Table matrix_table(const TopologyReport& r) {
  Table t;
  t.columns.push_back("");
  for (const auto& d : r.devices) t.columns.push_back(d.name);
  t.columns.push_back("CPU Affinity");
  t.columns.push_back("NUMA Affinity");
  for (size_t i = 0; i < r.devices.size(); ++i) {
    const auto& d = r.devices[i];
    std::vector<std::string> row{d.name};
    for (const auto& cell : r.matrix[i]) row.push_back(relation_code(cell));
    row.push_back(d.pci.local_cpulist.empty() ? "N/A" : d.pci.local_cpulist);
    row.push_back(d.pci.numa_node < 0 ? "N/A" : std::to_string(d.pci.numa_node));
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back("");
  t.notes.push_back("Legend:");
  for (const auto& [code, meaning] : topology_legend()) {
    std::string c = code;
    c.resize(4, ' ');
    t.notes.push_back("  " + c + " = " + meaning);
  }
  bool any_nic = false;
  for (const auto& d : r.devices) any_nic |= d.kind == TopoKind::kNic;
  if (any_nic) {
    t.notes.push_back("");
    t.notes.push_back("NIC Legend:");
    for (const auto& d : r.devices)
      if (d.kind == TopoKind::kNic) t.notes.push_back(nic_legend_line(d));
  }
  return t;
}

// "ok", or what the findings about `bdf` say, or "unknown" when a value could not be read.
std::string link_status(const TopologyReport& r, const std::string& bdf, const PcieLink& l) {
  std::string s;
  for (const auto& f : r.findings) {
    if (f.subject != bdf) continue;
    std::string what = f.code == "pcie_width_downgraded"    ? "WIDTH DOWNGRADED"
                       : f.code == "pcie_speed_downgraded"  ? "SPEED DOWNGRADED"
                       : f.code == "pcie_speed_low_at_idle" ? "low speed (idle?)"
                                                            : f.code;
    s += (s.empty() ? "" : ", ") + what;
  }
  if (!s.empty()) return s;
  if (!l.current_speed_gts && !l.max_speed_gts && !l.current_width && !l.max_width)
    return "n/a (no PCIe link attributes)";
  if (!l.current_speed_gts || !l.max_speed_gts || !l.current_width || !l.max_width) return "unknown";
  return "ok";
}

Table pcie_table(const TopologyReport& r) {
  Table t;
  t.columns = {"Device", "PCI BDF", "Speed now", "Speed max", "Width now", "Width max", "Upstream port", "Port max", "Status"};
  t.align = {Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight,
             Align::kLeft, Align::kRight, Align::kLeft};
  auto port_max = [](const std::optional<double>& s, const std::optional<int>& w, const std::string& bdf) {
    return bdf.empty() ? std::string("-") : gts(s) + " " + lanes(w);
  };
  for (const auto& d : r.devices) {
    const auto& l = d.pci.link;
    t.rows.push_back({d.name, d.pci.bdf, gts(l.current_speed_gts), gts(l.max_speed_gts), lanes(l.current_width),
                      lanes(l.max_width), d.parent_bdf.empty() ? "-" : d.parent_bdf,
                      port_max(d.parent_max_speed_gts, d.parent_max_width, d.parent_bdf),
                      link_status(r, d.pci.bdf, l)});
  }
  for (const auto& u : r.uplinks) {
    const auto& l = u.upstream_port.link;
    t.rows.push_back({"switch uplink", u.upstream_port.bdf, gts(l.current_speed_gts), gts(l.max_speed_gts),
                      lanes(l.current_width), lanes(l.max_width), u.parent_bdf,
                      port_max(u.parent_max_speed_gts, u.parent_max_width, u.parent_bdf),
                      link_status(r, u.upstream_port.bdf, l)});
  }
  t.notes.push_back("Speeds are per lane. A link is judged against the lower max of its two ends (device, upstream port).");
  return t;
}

Document topo_document(const TopologyReport& r, const FsRoot& fs) {
  Document doc;
  doc.title = "fabdiag topo";
  Section topo;
  topo.title = "Topology";
  size_t gpus = 0;
  for (const auto& d : r.devices) gpus += d.kind == TopoKind::kGpu;
  topo.fields.push_back({"GPUs", std::to_string(gpus)});
  topo.fields.push_back({"NICs", std::to_string(r.devices.size() - gpus)});
  topo.fields.push_back({"NVLink", r.nvlink.known ? "known" : "unknown (" + r.nvlink.reason + ")"});
  if (r.devices.empty()) {
    topo.lines.push_back(r.gaps.empty()
                             ? "No GPU and no NIC found under " + fs.sys_path("bus/pci/devices") +
                                   ": the matrix is empty."
                             : "No GPU and no NIC could be read under " + fs.sys_path("bus/pci/devices") +
                                   " (see NOT READ below): the matrix is empty.");
    doc.sections.push_back(std::move(topo));
    return doc;
  }
  topo.tables.push_back(matrix_table(r));
  doc.sections.push_back(std::move(topo));
  Section pcie;
  pcie.title = "PCIe links";
  pcie.tables.push_back(pcie_table(r));
  doc.sections.push_back(std::move(pcie));
  return doc;
}

}  // namespace

int run_topo(const GlobalOptions& g, const TopoOptions&) {
  auto started = std::chrono::steady_clock::now();
  auto fs = make_fs_root(g);
  if (!fs) {
    print_error(fs.error().to_string() +
                ": --sysfs-root and --procfs-root must name a directory (for example /sys, or a "
                "fixture such as tests/fixtures/dgx8)");
    return kExitUsage;
  }
  TopologyReport report = discover_topology(*fs, stderr_progress(g));

  Envelope env = make_envelope(kTopoSchema);
  env.params = {{"sysfs_root", g.sysfs_root}};
  env.data = topology_to_json(report);
  env.findings = report.findings;
  env.errors = report.gaps;
  finish_envelope(env, started);
  return emit(g, env, topo_document(report, *fs));
}

}  // namespace fabdiag::cmd
