#include "probes/topo/rails.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>

#include <nlohmann/json.hpp>

#include "core/text.h"

namespace fabdiag {

namespace {

std::string label(const TopoDevice& d) { return d.name + (d.ibdev ? " (" + *d.ibdev + ")" : ""); }

// Finding subject as the kernel names the device: ibdev for NICs, BDF for GPUs, else the name.
std::string subject_of(const TopoDevice& d) {
  if (d.ibdev) return *d.ibdev;
  if (!d.pci.bdf.empty()) return d.pci.bdf;
  return d.name;
}

bool known_cell(const Relation& c) { return !c.missing && c.pcie != PcieLevel::kUnknown; }

// Union-find over matrix indexes.
struct Groups {
  std::vector<size_t> parent;
  explicit Groups(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  size_t find(size_t x) { return parent[x] == x ? x : parent[x] = find(parent[x]); }
  void unite(size_t a, size_t b) { parent[find(a)] = find(b); }
};

const TopoDevice* by_name(const TopologyReport& r, const std::string& name) {
  for (const auto& d : r.devices)
    if (d.name == name) return &d;
  return nullptr;
}

std::string labels(const TopologyReport& r, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const auto& n : names) {
    const TopoDevice* d = by_name(r, n);
    out.push_back(d ? label(*d) : n);
  }
  return join_prose(out);
}

Evidence relation_evidence(const std::string& gpu, const std::string& nic, PcieLevel level, const std::string& source) {
  return Evidence::text(gpu + "-" + nic + " relation", to_string(level), source)
      .expect("PXB or better for GPUDirect RDMA (NCCL_NET_GDR_LEVEL default)");
}

}  // namespace

Rails compute_rails(const TopologyReport& r) {
  Rails out;
  std::vector<size_t> gpus, nics;
  for (size_t i = 0; i < r.devices.size(); ++i) {
    const auto& d = r.devices[i];
    if (d.kind == TopoKind::kGpu) gpus.push_back(i);
    else if (d.rdma) {
      nics.push_back(i);
      out.rdma_nics.push_back(d.name);
    }
  }
  if (r.matrix.size() != r.devices.size()) return out;

  Groups groups(r.devices.size());
  std::map<size_t, PcieLevel> best_of;  // GPU index -> best level (known GPUs)
  for (size_t g : gpus) {
    GpuRail rail;
    rail.gpu = r.devices[g].name;
    PcieLevel best = PcieLevel::kUnknown;
    std::vector<size_t> closest;
    for (size_t n : nics) {
      const Relation& c = r.matrix[g][n];
      if (!known_cell(c)) continue;
      if (c.pcie < best) {
        best = c.pcie;
        closest = {n};
      } else if (c.pcie == best) {
        closest.push_back(n);
      }
    }
    rail.known = best != PcieLevel::kUnknown;
    rail.relation = best;
    for (size_t n : closest) rail.closest_nics.push_back(r.devices[n].name);
    if (!nics.empty() && !rail.known) out.unknown_gpus.push_back(rail.gpu);
    if (rail.known) {
      best_of[g] = best;
      if (best > PcieLevel::kPxb) out.gpus_without_local_nic.push_back(rail.gpu);
      else
        for (size_t n : closest) groups.unite(g, n);
    }
    out.gpus.push_back(std::move(rail));
  }

  for (size_t n : nics) {
    bool any_known = false, close = false;
    for (size_t g : gpus) {
      const Relation& c = r.matrix[g][n];
      if (!known_cell(c)) continue;
      any_known = true;
      close |= c.pcie <= PcieLevel::kPxb;
    }
    if (any_known && !close) out.far_nics.push_back(r.devices[n].name);
  }

  // Groups of local GPUs and NICs, in matrix order of their first GPU (best_of is ordered).
  std::map<size_t, SharedNicGroup> comps;
  std::vector<size_t> comp_order;
  for (const auto& [g, best] : best_of) {
    if (best > PcieLevel::kPxb) continue;
    size_t root = groups.find(g);
    if (!comps.count(root)) comp_order.push_back(root);
    auto& c = comps[root];
    c.gpus.push_back(r.devices[g].name);
    c.relation = c.relation == PcieLevel::kUnknown ? best : std::max(c.relation, best);
  }
  for (size_t n : nics) {
    auto it = comps.find(groups.find(n));
    if (it != comps.end()) it->second.nics.push_back(r.devices[n].name);
  }
  for (size_t root : comp_order) {
    const auto& c = comps[root];
    if (c.nics.empty() || c.gpus.size() <= c.nics.size()) continue;
    for (auto& rail : out.gpus) {
      if (std::find(c.gpus.begin(), c.gpus.end(), rail.gpu) == c.gpus.end()) continue;
      for (const auto& g : c.gpus)
        if (g != rail.gpu) rail.shares_with.push_back(g);
    }
    out.shared.push_back(c);
  }
  return out;
}

std::vector<Finding> judge_rails(const Rails& rails, const TopologyReport& r, const std::string& source) {
  std::vector<Finding> out;
  for (const auto& grp : rails.shared) {
    Finding f;
    // Sharing is a design choice unless the node has NICs that serve no GPU (judge_rails' doc).
    f.severity = rails.far_nics.empty() ? Severity::kInfo : Severity::kWarn;
    f.layer = Layer::kPhysical;
    f.code = "nic_shared_by_gpus";
    std::vector<std::string> subjects;
    for (const auto& n : grp.nics) subjects.push_back(subject_of(*by_name(r, n)));
    f.subject = join(subjects);
    const std::string nics = labels(r, grp.nics);
    char share[64];
    std::snprintf(share, sizeof share, "%zu/%zu", grp.nics.size(), grp.gpus.size());
    f.message = (grp.nics.size() == 1 ? nics + " is the only GPU-local RDMA NIC of "
                                      : nics + " are the only GPU-local RDMA NICs of ") +
                join_prose(grp.gpus) + " (" + to_string(grp.relation) + "): when these GPUs use the network at once each gets about " +
                share + " of a NIC (topology, not a hardware fault" +
                (rails.far_nics.empty() ? std::string(")")
                                        : "; yet " + labels(r, rails.far_nics) + " serve" +
                                              (rails.far_nics.size() == 1 ? "s" : "") + " no GPU)");
    f.evidence.push_back(Evidence::number("GPUs per local NIC",
                                          static_cast<double>(grp.gpus.size()) / static_cast<double>(grp.nics.size()),
                                          "GPUs/NIC", source)
                             .expect(1, "one local NIC per GPU"));
    for (const auto& rail : rails.gpus)
      if (std::find(grp.gpus.begin(), grp.gpus.end(), rail.gpu) != grp.gpus.end())
        for (const auto& n : rail.closest_nics) f.evidence.push_back(relation_evidence(rail.gpu, n, rail.relation, source));
    f.action =
        "Expect about " + std::string(share) +
        " of a NIC's bandwidth per GPU when these GPUs communicate at once (all-reduce, all-to-all) and use that in "
        "the expected busbw; if the node should have one NIC per GPU, check that the other NICs are installed, "
        "visible (ls /sys/class/infiniband) and not disabled";
    out.push_back(std::move(f));
  }
  for (const auto& rail : rails.gpus) {
    if (std::find(rails.gpus_without_local_nic.begin(), rails.gpus_without_local_nic.end(), rail.gpu) ==
        rails.gpus_without_local_nic.end())
      continue;
    Finding f;
    f.severity = Severity::kWarn;
    f.layer = Layer::kPhysical;
    f.code = "gpu_without_local_nic";
    f.subject = subject_of(*by_name(r, rail.gpu));
    f.message = rail.gpu + " has no RDMA NIC within PXB: its closest " +
                (rail.closest_nics.size() == 1 ? "is " : "are ") + labels(r, rail.closest_nics) + " at " +
                to_string(rail.relation) +
                ", so NCCL sends its network traffic without GPUDirect RDMA (NCCL_NET_GDR_LEVEL default PXB) "
                "through the host bridge or the CPU interconnect";
    for (const auto& n : rail.closest_nics) f.evidence.push_back(relation_evidence(rail.gpu, n, rail.relation, source));
    f.action =
        "Check the node design: a GPU without a NIC under its PCIe switch is expected only when the node has fewer "
        "NICs than GPU switches; otherwise look for a missing or disabled NIC under that switch (lspci, "
        "/sys/class/infiniband)";
    out.push_back(std::move(f));
  }
  for (const auto& nic : rails.far_nics) {
    const TopoDevice* d = by_name(r, nic);
    size_t ni = static_cast<size_t>(d - r.devices.data());
    PcieLevel best = PcieLevel::kUnknown;
    Finding f;
    f.severity = Severity::kInfo;
    f.layer = Layer::kPhysical;
    f.code = "nic_far_from_gpus";
    f.subject = subject_of(*d);
    for (size_t g = 0; g < r.devices.size(); ++g) {
      if (r.devices[g].kind != TopoKind::kGpu || !known_cell(r.matrix[g][ni])) continue;
      best = std::min(best, r.matrix[g][ni].pcie);
    }
    f.message = label(*d) + " is not close to any GPU (best relation " + to_string(best) +
                "): GPU traffic through it would cross the host bridge or the CPU interconnect and lose GPUDirect RDMA";
    f.evidence.push_back(
        Evidence::text("best GPU relation of " + nic, to_string(best), source).expect("PXB or better to at least one GPU"));
    if (!rails.unknown_gpus.empty())
      f.evidence.push_back(Evidence::text("GPUs whose relation is unknown", join(rails.unknown_gpus), source));
    f.action = "Leave " + (d->ibdev ? *d->ibdev : nic) +
               " out of NCCL_IB_HCA, or confirm it is a frontend/storage NIC that GPU traffic is not meant to use";
    out.push_back(std::move(f));
  }
  return out;
}

nlohmann::json rails_to_json(const Rails& rails) {
  nlohmann::json j = nlohmann::json::object();
  j["rdma_nics"] = rails.rdma_nics;
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : rails.gpus) {
    gpus.push_back({{"gpu", g.gpu},
                    {"known", g.known},
                    {"relation", g.known ? nlohmann::json(to_string(g.relation)) : nlohmann::json(nullptr)},
                    {"closest_nics", g.closest_nics},
                    {"shares_with", g.shares_with}});
  }
  j["gpus"] = std::move(gpus);
  j["far_nics"] = rails.far_nics;
  j["unknown_gpus"] = rails.unknown_gpus;
  j["gpus_without_local_nic"] = rails.gpus_without_local_nic;
  nlohmann::json shared = nlohmann::json::array();
  for (const auto& s : rails.shared)
    shared.push_back({{"gpus", s.gpus}, {"nics", s.nics}, {"relation", to_string(s.relation)}});
  j["shared"] = std::move(shared);
  return j;
}

}  // namespace fabdiag
