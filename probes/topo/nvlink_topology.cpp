#include "probes/topo/nvlink_topology.h"

#include <algorithm>
#include <set>

namespace fabdiag {

namespace {

std::pair<std::string, std::string> ordered(const std::string& a, const std::string& b) {
  return a < b ? std::make_pair(a, b) : std::make_pair(b, a);
}

}  // namespace

int active_nvlinks(const GpuInfo& gpu) {
  int n = 0;
  for (const auto& l : gpu.nvlinks) n += l.active;
  return n;
}

std::map<std::pair<std::string, std::string>, int> nvlink_pair_links(const std::vector<GpuInfo>& gpus) {
  std::set<std::string> known;
  for (const auto& g : gpus) known.insert(g.pci_bdf);
  // directed[(a, b)] = active links of a that end at GPU b.
  std::map<std::pair<std::string, std::string>, int> directed;
  std::map<std::string, int> switch_links;
  for (const auto& g : gpus) {
    for (const auto& l : g.nvlinks) {
      if (!l.active) continue;
      if (l.remote == NvlinkRemote::kSwitch) ++switch_links[g.pci_bdf];
      else if (l.remote == NvlinkRemote::kGpu && !l.remote_pci_bdf.empty() && l.remote_pci_bdf != g.pci_bdf)
        ++directed[{g.pci_bdf, l.remote_pci_bdf}];
    }
  }
  std::map<std::pair<std::string, std::string>, int> out;
  for (const auto& [ab, n] : directed) {
    const auto& [a, b] = ab;
    auto key = ordered(a, b);
    if (out.count(key)) continue;
    auto back = directed.find({b, a});
    // A far end NVML does not list cannot confirm the link: count it from this end only.
    int links = known.count(b) ? std::min(n, back == directed.end() ? 0 : back->second) : n;
    if (links > 0) out[key] = links;
  }
  for (auto i = switch_links.begin(); i != switch_links.end(); ++i)
    for (auto j = std::next(i); j != switch_links.end(); ++j) out[ordered(i->first, j->first)] += std::min(i->second, j->second);
  return out;
}

void apply_gpu_inventory(TopologyReport& report, const GpuInventory& inv, bool require) {
  for (const auto& e : inv.gaps) report.gaps.push_back(e);
  if (!inv.available) {
    report.nvlink.known = false;
    report.nvlink.reason = inv.why_not;
    report.nvlink.source.clear();
    if (require)
      report.gaps.push_back(make_error(ErrorCode::kUnsupported, "NVLink unknown: " + inv.why_not, "NVML"));
    return;
  }
  report.nvlink.known = true;
  report.nvlink.reason.clear();
  report.nvlink.source = inv.source;

  std::map<std::string, size_t> by_bdf;
  for (size_t i = 0; i < report.devices.size(); ++i)
    if (report.devices[i].kind == TopoKind::kGpu) by_bdf[report.devices[i].pci.bdf] = i;
  std::set<std::string> seen;
  for (const auto& g : inv.gpus) {
    auto it = by_bdf.find(g.pci_bdf);
    if (it == by_bdf.end()) {
      report.gaps.push_back(make_error(ErrorCode::kNotFound,
                                       "NVML lists GPU " + std::to_string(g.nvml_index) + " (" + g.name +
                                           ") at " + g.pci_bdf +
                                           " but sysfs shows no GPU there; its NVLinks are left out of the matrix",
                                       inv.source));
      continue;
    }
    report.devices[it->second].nvml = g;
    seen.insert(g.pci_bdf);
  }
  for (const auto& [bdf, i] : by_bdf)
    if (!seen.count(bdf))
      report.gaps.push_back(make_error(ErrorCode::kNotFound,
                                       report.devices[i].name + " is in sysfs but NVML does not list it (driver "
                                           "lost it? look for Xid 79 'fallen off the bus' in dmesg); its NVLinks are unknown",
                                       bdf));
  for (const auto& [pair, links] : nvlink_pair_links(inv.gpus)) {
    auto a = by_bdf.find(pair.first), b = by_bdf.find(pair.second);
    if (a != by_bdf.end() && b != by_bdf.end()) set_nvlink_links(report, a->second, b->second, links);
  }
}

std::vector<Finding> judge_nvlinks(const TopologyReport& report) {
  std::vector<Finding> out;
  if (!report.nvlink.known) return out;
  int best = 0;
  for (const auto& d : report.devices)
    if (d.nvml) best = std::max(best, active_nvlinks(*d.nvml));
  if (best == 0) return out;
  for (const auto& d : report.devices) {
    if (!d.nvml) continue;
    int active = active_nvlinks(*d.nvml);
    if (active >= best) continue;
    std::string down;
    int n_down = 0;
    for (const auto& l : d.nvml->nvlinks)
      if (!l.active) {
        down += (down.empty() ? "" : ", ") + std::to_string(l.link);
        ++n_down;
      }
    Finding f;
    f.severity = Severity::kWarn;
    f.layer = Layer::kPhysical;
    f.code = "nvlink_links_down";
    f.subject = d.pci.bdf;
    f.message = d.name + " has " + std::to_string(active) + " active NVLinks, other GPUs of this node have " +
                std::to_string(best) + (down.empty() ? "" : n_down == 1 ? " (link " + down + " is not active)" : " (links " + down + " are not active)") +
                ": GPU-to-GPU bandwidth through this GPU is lower, and collectives run at its pace";
    f.evidence.push_back(Evidence::number("active NVLinks", active, "links", "NVML nvmlDeviceGetNvLinkState")
                             .expect(best, "most active NVLinks of a GPU on this node"));
    f.action = "Run nvidia-smi nvlink -s -i " + (d.nvml ? std::to_string(d.nvml->nvml_index) : std::string("<gpu>")) +
               " and nvidia-smi nvlink -e, look for Xid 74 in dmesg, run dcgmi diag -r 2; if links stay down, have the "
               "GPU baseboard serviced";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace fabdiag
