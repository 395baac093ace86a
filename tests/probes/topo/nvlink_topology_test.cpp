#include <doctest/doctest.h>

#include "probes/topo/gpu_inventory.h"
#include "probes/topo/nvlink_topology.h"
#include "probes/topo/topology.h"

using namespace fabdiag;

namespace {

FsRoot fixture(const std::string& name) {
  std::string root = std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/" + name;
  return FsRoot(root, root);
}

const char* const kDgx8Gpus[8] = {"0000:18:00.0", "0000:1a:00.0", "0000:2c:00.0", "0000:2e:00.0",
                                  "0000:9a:00.0", "0000:9c:00.0", "0000:bc:00.0", "0000:c0:00.0"};

// A GPU with `up` active links to NVSwitch and `down` inactive ones.
GpuInfo switch_gpu(unsigned index, const std::string& bdf, int up, int down = 0) {
  GpuInfo g;
  g.nvml_index = index;
  g.pci_bdf = bdf;
  g.name = "NVIDIA H100 80GB HBM3";
  g.uuid = "GPU-" + std::to_string(index);
  for (int l = 0; l < up + down; ++l) {
    NvlinkInfo info;
    info.link = static_cast<unsigned>(l);
    info.active = l < up;
    info.remote = info.active ? NvlinkRemote::kSwitch : NvlinkRemote::kUnknown;
    info.remote_pci_bdf = info.active ? "0000:05:00.0" : "";
    g.nvlinks.push_back(info);
  }
  return g;
}

void add_direct(GpuInfo& g, const std::string& peer, int links, bool active = true) {
  for (int i = 0; i < links; ++i) {
    NvlinkInfo info;
    info.link = static_cast<unsigned>(g.nvlinks.size());
    info.active = active;
    info.remote = NvlinkRemote::kGpu;
    info.remote_pci_bdf = peer;
    g.nvlinks.push_back(info);
  }
}

GpuInventory dgx8_inventory(int gpu3_up = 18) {
  GpuInventory inv;
  inv.available = true;
  inv.source = "fake";
  for (unsigned i = 0; i < 8; ++i) inv.gpus.push_back(switch_gpu(i, kDgx8Gpus[i], i == 3 ? gpu3_up : 18, i == 3 ? 18 - gpu3_up : 0));
  return inv;
}

}  // namespace

TEST_CASE("normalize_nvml_bus_id: NVML's 8-digit upper-case form becomes the sysfs form") {
  CHECK(normalize_nvml_bus_id("00000000:3B:00.0") == "0000:3b:00.0");
  CHECK(normalize_nvml_bus_id("0000:3B:00.0") == "0000:3b:00.0");
  CHECK(normalize_nvml_bus_id("00000001:C0:1F.0") == "0001:c0:1f.0");
  CHECK_FALSE(normalize_nvml_bus_id("3B:00.0"));
  CHECK_FALSE(normalize_nvml_bus_id(""));
  CHECK(nvlink_remote_from_nvml(0) == NvlinkRemote::kGpu);
  CHECK(nvlink_remote_from_nvml(2) == NvlinkRemote::kSwitch);
  CHECK(nvlink_remote_from_nvml(0xFF) == NvlinkRemote::kUnknown);
  CHECK(nvlink_remote_from_nvml(7) == NvlinkRemote::kUnknown);
}

TEST_CASE("nvlink_pair_links: through NVSwitch every pair gets the smaller switch-link count") {
  auto inv = dgx8_inventory(16);
  auto pairs = nvlink_pair_links(inv.gpus);
  CHECK(pairs.size() == 28);  // 8 choose 2
  CHECK(pairs.at({"0000:18:00.0", "0000:1a:00.0"}) == 18);
  CHECK(pairs.at({"0000:18:00.0", "0000:2e:00.0"}) == 16);
  CHECK(pairs.at({"0000:2e:00.0", "0000:c0:00.0"}) == 16);
  CHECK(active_nvlinks(inv.gpus[3]) == 16);
  CHECK(active_nvlinks(inv.gpus[0]) == 18);
}

TEST_CASE("nvlink_pair_links: direct links count from both ends, the smaller count wins") {
  GpuInfo a = switch_gpu(0, "0000:03:00.0", 0), b = switch_gpu(1, "0000:23:00.0", 0), c = switch_gpu(2, "0000:43:00.0", 0);
  add_direct(a, b.pci_bdf, 4);
  add_direct(b, a.pci_bdf, 3);
  add_direct(b, a.pci_bdf, 1, /*active=*/false);  // down at b only
  add_direct(a, c.pci_bdf, 4);
  add_direct(c, a.pci_bdf, 4);
  auto pairs = nvlink_pair_links({a, b, c});
  CHECK(pairs.at({"0000:03:00.0", "0000:23:00.0"}) == 3);
  CHECK(pairs.at({"0000:03:00.0", "0000:43:00.0"}) == 4);
  CHECK_FALSE(pairs.count({"0000:23:00.0", "0000:43:00.0"}));  // no link: the cell keeps its PCIe level
}

TEST_CASE("nvlink_pair_links: unknown far ends and a GPU without NVLink add nothing") {
  GpuInfo a = switch_gpu(0, "0000:03:00.0", 0), b = switch_gpu(1, "0000:23:00.0", 0);
  NvlinkInfo odd;
  odd.active = true;
  odd.remote = NvlinkRemote::kUnknown;
  a.nvlinks.push_back(odd);
  CHECK(nvlink_pair_links({a, b}).empty());
  // Only one GPU on a switch: no peer.
  CHECK(nvlink_pair_links({switch_gpu(0, "0000:03:00.0", 12), b}).empty());
}

TEST_CASE("apply_gpu_inventory: dgx8 with 18 switch links per GPU is NV18 between all GPUs, NICs keep PCIe") {
  auto r = discover_topology(fixture("dgx8"));
  REQUIRE(r.devices.size() == 16);
  apply_gpu_inventory(r, dgx8_inventory(), true);
  CHECK(r.gaps.empty());
  CHECK(r.nvlink.known);
  CHECK(r.nvlink.source == "fake");
  for (size_t i = 0; i < 8; ++i) {
    REQUIRE(r.devices[i].nvml);
    CHECK(r.devices[i].nvml->uuid == "GPU-" + std::to_string(i));
    for (size_t j = 0; j < 8; ++j) CHECK(relation_code(r.matrix[i][j]) == (i == j ? "X" : "NV18"));
  }
  CHECK(relation_code(r.matrix[0][8]) == "PIX");   // GPU0-NIC0 unchanged
  CHECK(relation_code(r.matrix[8][9]) == "PIX");   // NIC0-NIC1
  CHECK_FALSE(r.devices[8].nvml);
}

TEST_CASE("apply_gpu_inventory: a GPU with two links down is NV16 to every peer") {
  auto r = discover_topology(fixture("dgx8"));
  apply_gpu_inventory(r, dgx8_inventory(16), true);
  for (size_t j = 0; j < 8; ++j)
    if (j != 3) {
      CHECK(relation_code(r.matrix[3][j]) == "NV16");
      CHECK(relation_code(r.matrix[j][3]) == "NV16");
    }
  CHECK(relation_code(r.matrix[0][1]) == "NV18");
}

TEST_CASE("apply_gpu_inventory: NVML and sysfs disagreeing on GPUs are gaps, not guesses") {
  auto r = discover_topology(fixture("dgx8"));
  auto inv = dgx8_inventory();
  inv.gpus[7].pci_bdf = "0000:ff:00.0";  // NVML sees a GPU sysfs does not have, and misses GPU7
  apply_gpu_inventory(r, inv, false);
  REQUIRE(r.gaps.size() == 2);
  CHECK(r.gaps[0].message.find("0000:ff:00.0") != std::string::npos);
  CHECK(r.gaps[1].source == "0000:c0:00.0");
  CHECK(r.gaps[1].message.find("NVML does not list it") != std::string::npos);
  CHECK_FALSE(r.devices[7].nvml);
  CHECK(relation_code(r.matrix[7][6]) == "PXB");  // GPU7's cells keep their PCIe level
  CHECK(relation_code(r.matrix[0][6]) == "NV18");
}

TEST_CASE("apply_gpu_inventory: no NVML leaves NVLink unknown, a gap only when required") {
  auto r = discover_topology(fixture("dgx8"));
  apply_gpu_inventory(r, NoGpuInventory("libnvidia-ml.so.1 could not be loaded").read(), false);
  CHECK_FALSE(r.nvlink.known);
  CHECK(r.nvlink.reason == "libnvidia-ml.so.1 could not be loaded");
  CHECK(r.gaps.empty());
  CHECK(relation_code(r.matrix[0][1]) == "PIX");
  apply_gpu_inventory(r, NoGpuInventory("no driver").read(), true);
  REQUIRE(r.gaps.size() == 1);
  CHECK(r.gaps[0].code == ErrorCode::kUnsupported);
  CHECK(r.gaps[0].message == "NVLink unknown: no driver");
}

TEST_CASE("judge_nvlinks: a GPU with fewer active NVLinks than its peers is named, with its down links") {
  auto r = discover_topology(fixture("dgx8"));
  apply_gpu_inventory(r, dgx8_inventory(16), true);
  auto f = judge_nvlinks(r);
  REQUIRE(f.size() == 1);
  CHECK(f[0].severity == Severity::kWarn);
  CHECK(f[0].code == "nvlink_links_down");
  CHECK(f[0].subject == "0000:2e:00.0");
  CHECK(f[0].message.find("GPU3 has 16 active NVLinks, other GPUs of this node have 18 (links 16, 17 are not active)") == 0);
  CHECK(f[0].evidence[0].value == 16.0);
  CHECK(f[0].evidence[0].threshold == 18.0);
  CHECK(f[0].action.find("nvidia-smi nvlink -s -i 3") != std::string::npos);

  auto healthy = discover_topology(fixture("dgx8"));
  apply_gpu_inventory(healthy, dgx8_inventory(), true);
  CHECK(judge_nvlinks(healthy).empty());
  auto unknown = discover_topology(fixture("dgx8"));
  CHECK(judge_nvlinks(unknown).empty());
  // PCIe GPUs: links present but none active anywhere (no NVLink bridge): nothing to say.
  auto bridgeless = discover_topology(fixture("dgx8"));
  apply_gpu_inventory(bridgeless, dgx8_inventory(0), true);
  GpuInventory none;
  none.available = true;
  for (unsigned i = 0; i < 8; ++i) none.gpus.push_back(switch_gpu(i, kDgx8Gpus[i], 0, 18));
  auto pcie_only = discover_topology(fixture("dgx8"));
  apply_gpu_inventory(pcie_only, none, true);
  CHECK(judge_nvlinks(pcie_only).empty());
  CHECK(relation_code(pcie_only.matrix[0][1]) == "PIX");
  // One GPU with every link down while the others have 18.
  auto f0 = judge_nvlinks(bridgeless);
  REQUIRE(f0.size() == 1);
  CHECK(f0[0].message.find("GPU3 has 0 active NVLinks") == 0);
}
