#include "cmd/pairwise_rail.h"

#include <algorithm>
#include <cctype>

#include "probes/topo/rails.h"
#include "probes/topo/topology.h"

namespace fabdiag::cmd {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The topology's GPU whose BDF ("0000:03:00.0") begins with libcudart's bus id ("0000:03:00").
const TopoDevice* gpu_of(const TopologyReport& topo, const std::string& bus_id) {
  const std::string want = lower(bus_id);
  if (want.empty()) return nullptr;
  for (const auto& d : topo.devices)
    if (d.kind == TopoKind::kGpu && d.pci.bdf.rfind(want, 0) == 0) return &d;
  return nullptr;
}

const TopoDevice* device_named(const TopologyReport& topo, const std::string& name) {
  for (const auto& d : topo.devices)
    if (d.name == name) return &d;
  return nullptr;
}

}  // namespace

nlohmann::json rail_end_json(const FsRoot& fs, int rail, int rank, const std::string& host,
                             const perf::Comm::DeviceInfo& device) {
  nlohmann::json j = {{"rank", rank}, {"host", host},     {"rail", rail},        {"gpu", device.index},
                      {"pci_bdf", device.bus_id}, {"topology_gpu", nullptr}, {"nic", nullptr}, {"ibdev", nullptr},
                      {"netdevs", nlohmann::json::array()}, {"relation", nullptr}, {"note", ""}};
  const TopologyReport topo = discover_topology(fs);
  const TopoDevice* gpu = gpu_of(topo, device.bus_id);
  if (!gpu) {
    j["note"] = "no GPU of this node's topology has PCI bus id " + device.bus_id;
    return j;
  }
  j["topology_gpu"] = gpu->name;
  const Rails rails = compute_rails(topo);
  for (const auto& g : rails.gpus) {
    if (g.gpu != gpu->name) continue;
    if (g.relation != PcieLevel::kUnknown) j["relation"] = to_string(g.relation);
    const bool local = g.relation != PcieLevel::kUnknown && g.relation <= PcieLevel::kPxb;
    if (g.closest_nics.empty() || !local) {
      j["note"] = gpu->name + " has no RDMA NIC at PXB or better (no rail NIC; NCCL goes without GPUDirect RDMA)";
      return j;
    }
    const TopoDevice* nic = device_named(topo, g.closest_nics.front());
    j["nic"] = g.closest_nics.front();
    if (nic && nic->ibdev) j["ibdev"] = *nic->ibdev;
    if (nic) j["netdevs"] = nic->netdevs;
    if (g.closest_nics.size() > 1) j["note"] = gpu->name + " has " + std::to_string(g.closest_nics.size()) +
                                               " NICs at " + to_string(g.relation) + "; the first is named";
    return j;
  }
  j["note"] = gpu->name + " is not in the rails of this node's topology";
  return j;
}

nlohmann::json local_rail_end(const GlobalOptions& g, perf::Comm& comm, int rail) {
  auto fs = make_fs_root(g);
  if (!fs) return {{"rank", comm.rank()}, {"rail", rail}, {"note", fs.error().to_string()}};
  return rail_end_json(*fs, rail, comm.rank(), comm.hosts()[static_cast<size_t>(comm.rank())], comm.device_info());
}

std::string rail_end_text(const nlohmann::json& end) {
  auto text = [&](const char* key) {
    auto it = end.find(key);
    return it != end.end() && it->is_string() ? it->get<std::string>() : std::string("?");
  };
  auto gpu = end.find("gpu");
  std::string out = text("topology_gpu") + " (CUDA " + (gpu != end.end() && gpu->is_number() ? gpu->dump() : "?") +
                    ", " + text("pci_bdf") + ")";
  if (end.contains("nic") && end["nic"].is_string())
    out += " -> " + text("nic") + " " + text("ibdev") + " (" + text("relation") + ")";
  const std::string note = text("note");
  return note.empty() || note == "?" ? out : out + "; " + note;
}

Result<nlohmann::json> gather_rail(perf::Comm& world, const nlohmann::json& mine, int rail) {
  if (mine.is_null()) return nlohmann::json(nullptr);
  auto all = world.gather_strings(mine.dump(), 0);
  if (!all) return all.error().with_context("gathering the rail's ends");
  if (world.rank() != 0) return nlohmann::json(nullptr);
  nlohmann::json ends = nlohmann::json::array();
  for (const auto& s : *all) ends.push_back(nlohmann::json::parse(s, nullptr, false));
  return nlohmann::json{{"rail", rail}, {"ends", ends}};
}

}  // namespace fabdiag::cmd
