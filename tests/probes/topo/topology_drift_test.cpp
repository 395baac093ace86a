#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "probes/topo/gpu_inventory.h"
#include "probes/topo/nvlink_topology.h"
#include "probes/topo/topology.h"
#include "probes/topo/topology_drift.h"
#include "probes/topo/topology_json.h"

using namespace fabdiag;
using nlohmann::json;

namespace {

const char* const kDgx8Gpus[8] = {"0000:18:00.0", "0000:1a:00.0", "0000:2c:00.0", "0000:2e:00.0",
                                  "0000:9a:00.0", "0000:9c:00.0", "0000:bc:00.0", "0000:c0:00.0"};

// topo data of a fixture; with `gpu3_links` set, an NVSwitch inventory where GPU3 has that many
// active links of 18.
json topo(const std::string& fixture, std::optional<int> gpu3_links = std::nullopt) {
  std::string root = std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/" + fixture;
  auto r = discover_topology(FsRoot(root, root));
  if (gpu3_links) {
    GpuInventory inv;
    inv.available = true;
    inv.source = "fake";
    for (unsigned i = 0; i < 8; ++i) {
      GpuInfo g;
      g.nvml_index = i;
      g.pci_bdf = kDgx8Gpus[i];
      for (unsigned l = 0; l < 18; ++l) {
        NvlinkInfo n;
        n.link = l;
        n.active = i != 3 || static_cast<int>(l) < *gpu3_links;
        n.remote = n.active ? NvlinkRemote::kSwitch : NvlinkRemote::kUnknown;
        g.nvlinks.push_back(n);
      }
      inv.gpus.push_back(g);
    }
    apply_gpu_inventory(r, inv, true);
  }
  return topology_to_json(r);
}

std::vector<std::string> codes(const TopologyDrift& d) {
  std::vector<std::string> out;
  for (const auto& f : d.findings) out.push_back(to_string(f.severity) + std::string(" ") + f.code + " " + f.subject);
  return out;
}

json& device(json& data, const std::string& bdf) {
  for (auto& d : data["devices"])
    if (d["pci_bdf"] == bdf) return d;
  FAIL("no device " << bdf);
  return data;
}

}  // namespace

TEST_CASE("drift: a topology against itself has no change") {
  auto d = diff_topology(topo("dgx8"), topo("dgx8"), "base.json");
  REQUIRE(d.ok());
  CHECK(d->findings.empty());
  CHECK(d->devices_compared == 16);
  CHECK(d->not_checked == std::vector<std::string>{"NVLink: the baseline does not know it"});
}

TEST_CASE("drift: dgx8 -> dgx8-degraded names the narrower NIC link and the slower (idle) GPU link, nothing else") {
  auto d = diff_topology(topo("dgx8"), topo("dgx8-degraded"), "dgx8.json");
  REQUIRE(d.ok());
  // In matrix order (GPUs, then NICs); renderers sort by severity.
  CHECK(codes(*d) == std::vector<std::string>{"info pcie_speed_below_baseline 0000:9c:00.0",
                                              "error pcie_width_below_baseline 0000:2f:00.0"});
  const auto& w = d->findings[1];
  CHECK(w.layer == Layer::kPhysical);
  CHECK(w.message == "NIC3 (mlx5_3, 0000:2f:00.0) PCIe link is x8, it was x16 in the baseline");
  REQUIRE(w.evidence.size() == 1);
  CHECK(w.evidence[0].value == 8.0);
  CHECK(w.evidence[0].threshold == 16.0);
  CHECK(w.evidence[0].source == "/sys/bus/pci/devices/0000:2f:00.0/current_link_width");
  CHECK(d->findings[0].message.find("2.5 GT/s, it was 32 GT/s") != std::string::npos);
}

TEST_CASE("drift: a GPU that lost NVLinks (fake NVML, links down) is named once, per GPU") {
  auto d = diff_topology(topo("dgx8", 18), topo("dgx8", 16), "dgx8-nvswitch.json");
  REQUIRE(d.ok());
  CHECK(codes(*d) == std::vector<std::string>{"error nvlink_links_lost 0000:2e:00.0"});
  CHECK(d->findings[0].message == "GPU3 (0000:2e:00.0) has 16 active NVLinks, it had 18 in the baseline");
  CHECK(d->findings[0].evidence[0].value == 16.0);
  CHECK(d->not_checked.empty());
}

TEST_CASE("drift: NVLink pairs without per-GPU data are compared cell by cell") {
  auto base = topo("dgx8", 18), now = topo("dgx8", 18);
  for (auto* j : {&base, &now})
    for (auto& dev : (*j)["devices"])
      if (dev["kind"] == "gpu") dev["nvml"] = nullptr;  // e.g. an imported nvidia-smi baseline
  now["matrix"][0][1] = "NV12";
  now["matrix"][1][0] = "NV12";
  auto d = diff_topology(base, now, "b.json");
  REQUIRE(d.ok());
  CHECK(codes(*d) == std::vector<std::string>{"error nvlink_links_lost GPU0<->GPU1"});
  CHECK(d->findings[0].message.find("are joined by NV12, it was NV18 in the baseline") != std::string::npos);
}

TEST_CASE("drift: NVLink unknown now is not compared, and says so") {
  auto d = diff_topology(topo("dgx8", 18), topo("dgx8"), "b.json");
  REQUIRE(d.ok());
  CHECK(d->findings.empty());
  REQUIRE(d->not_checked.size() == 1);
  CHECK(d->not_checked[0] == "NVLink: unknown now (NVML not loaded)");
}

TEST_CASE("drift: a NIC on another socket, a lower port rate, a port down, devices gone and added") {
  auto base = topo("dgx8"), now = topo("dgx8");
  auto& nic0 = device(now, "0000:19:00.0");
  nic0["numa_node"] = 1;
  nic0["ports"][0]["rate"] = "200 Gb/sec (4X HDR)";
  nic0["ports"][0]["rate_bits_per_s"] = 2e11;
  device(now, "0000:1b:00.0")["ports"][0]["state"] = "1: DOWN";
  // GPU7 (index 7) is gone; a new NIC appears.
  now["devices"].erase(7);
  for (auto& row : now["matrix"]) row.erase(7);
  now["matrix"].erase(7);
  json extra = device(now, "0000:c1:00.0");
  extra["pci_bdf"] = "0000:e1:00.0";
  now["devices"].push_back(extra);
  for (auto& row : now["matrix"]) row.push_back("SYS");
  now["matrix"].push_back(json(now["devices"].size(), "SYS"));
  // NIC0 now SYS to GPU0 (it moved): relation got worse.
  now["matrix"][0][7] = "SYS";
  now["matrix"][7][0] = "SYS";

  auto d = diff_topology(base, now, "b.json");
  REQUIRE(d.ok());
  CHECK(codes(*d) == std::vector<std::string>{
                         "error topo_device_missing 0000:c0:00.0", "info topo_device_added 0000:e1:00.0",
                         "warn topo_numa_node_changed 0000:19:00.0", "error port_rate_below_baseline mlx5_0/1",
                         "error port_state_changed mlx5_1/1", "warn topo_relation_changed 0000:19:00.0"});
  CHECK(d->findings[3].evidence[0].value == 200.0);
  CHECK(d->findings[3].evidence[0].unit == "Gb/s");
  CHECK(d->findings[3].evidence[0].source == "/sys/class/infiniband/mlx5_0/ports/1/rate");
  CHECK(d->findings[5].evidence[0].metric == "GPU0-NIC0 relation");
  CHECK(d->findings[5].evidence[0].value_text == "SYS");
  CHECK(d->findings[5].evidence[0].threshold_text == "baseline: PIX");
}

TEST_CASE("drift: a baseline without ports says port rates were not compared, bad input is a parse error") {
  auto base = topo("dgx8");
  for (auto& dev : base["devices"]) dev.erase("ports");
  auto d = diff_topology(base, topo("dgx8"), "old.json");
  REQUIRE(d.ok());
  CHECK(d->findings.empty());
  CHECK(d->not_checked.back().find("port state and rate: the baseline has no ports") == 0);

  auto bad = diff_topology(json{{"bench", 1}}, topo("dgx8"), "bench.json");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::kParse);
  CHECK(bad.error().source == "bench.json");
  auto j = drift_to_json(*d, "old.json");
  CHECK(j["baseline"] == "old.json");
  CHECK(j["devices_compared"] == 16);
  CHECK(j["changes"] == 0);
}

TEST_CASE("drift: an imported nvidia-smi matrix as baseline pairs devices by name") {
  // The healthy tab-separated output of the dgx8 machine; now GPU3 lost two NVLinks.
  auto base = topo("dgx8", 18);
  for (auto& dev : base["devices"]) {
    dev["pci_bdf"] = nullptr;
    dev["nvml"] = nullptr;
  }
  auto d = diff_topology(base, topo("dgx8", 16), "nvsmi.json");
  REQUIRE(d.ok());
  CHECK(d->devices_compared == 16);
  // Seven pairs dropped, all with GPU3: one finding about GPU3.
  REQUIRE(d->findings.size() == 1);
  CHECK(d->findings[0].code == "nvlink_links_lost");
  CHECK(d->findings[0].subject == "0000:2e:00.0");
  CHECK(d->findings[0].message ==
        "GPU3 (0000:2e:00.0) has fewer NVLinks than in the baseline to 7 GPUs (GPU0, GPU1, GPU2, GPU4, GPU5, GPU6, GPU7)");
  REQUIRE(d->findings[0].evidence.size() == 7);
  CHECK(d->findings[0].evidence[0].metric == "GPU3-GPU0 matrix cell");
  CHECK(d->findings[0].evidence[0].value_text == "NV16");
  CHECK(d->findings[0].evidence[0].threshold_text == "baseline: NV18");
  CHECK(d->not_checked.back().find("paired by name") != std::string::npos);
}
