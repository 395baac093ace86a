#include <doctest/doctest.h>


#include <nlohmann/json.hpp>

#include "core/text.h"
#include "probes/topo/topology.h"
#include "rules/pcie_link_rules.h"
#include "probes/topo/topology_json.h"
#include "tests/support/temp_tree.h"

using namespace fabdiag;

namespace {

FsRoot fixture(const std::string& name) {
  std::string root = std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/" + name;
  return FsRoot(root, root);
}

// Hand-derived in tests/fixtures/dgx8/README.md (rows/columns GPU0..7, NIC0..7).
const char* const kDgx8Matrix[16] = {
    "X    PIX  PHB  PHB  SYS  SYS  SYS  SYS  PIX  PIX  PHB  PHB  SYS  SYS  SYS  SYS",
    "PIX  X    PHB  PHB  SYS  SYS  SYS  SYS  PIX  PIX  PHB  PHB  SYS  SYS  SYS  SYS",
    "PHB  PHB  X    PIX  SYS  SYS  SYS  SYS  PHB  PHB  PIX  PIX  SYS  SYS  SYS  SYS",
    "PHB  PHB  PIX  X    SYS  SYS  SYS  SYS  PHB  PHB  PIX  PIX  SYS  SYS  SYS  SYS",
    "SYS  SYS  SYS  SYS  X    PIX  NODE NODE SYS  SYS  SYS  SYS  PIX  PIX  NODE NODE",
    "SYS  SYS  SYS  SYS  PIX  X    NODE NODE SYS  SYS  SYS  SYS  PIX  PIX  NODE NODE",
    "SYS  SYS  SYS  SYS  NODE NODE X    PXB  SYS  SYS  SYS  SYS  NODE NODE PIX  PXB",
    "SYS  SYS  SYS  SYS  NODE NODE PXB  X    SYS  SYS  SYS  SYS  NODE NODE PXB  PIX",
    "PIX  PIX  PHB  PHB  SYS  SYS  SYS  SYS  X    PIX  PHB  PHB  SYS  SYS  SYS  SYS",
    "PIX  PIX  PHB  PHB  SYS  SYS  SYS  SYS  PIX  X    PHB  PHB  SYS  SYS  SYS  SYS",
    "PHB  PHB  PIX  PIX  SYS  SYS  SYS  SYS  PHB  PHB  X    PIX  SYS  SYS  SYS  SYS",
    "PHB  PHB  PIX  PIX  SYS  SYS  SYS  SYS  PHB  PHB  PIX  X    SYS  SYS  SYS  SYS",
    "SYS  SYS  SYS  SYS  PIX  PIX  NODE NODE SYS  SYS  SYS  SYS  X    PIX  NODE NODE",
    "SYS  SYS  SYS  SYS  PIX  PIX  NODE NODE SYS  SYS  SYS  SYS  PIX  X    NODE NODE",
    "SYS  SYS  SYS  SYS  NODE NODE PIX  PXB  SYS  SYS  SYS  SYS  NODE NODE X    PXB",
    "SYS  SYS  SYS  SYS  NODE NODE PXB  PIX  SYS  SYS  SYS  SYS  NODE NODE PXB  X",
};

// A throw-away sysfs tree with the PCI devices the tests need.
struct FakeSys : testing::TempTree {
  FakeSys() : TempTree("topo-test") {}
  // An endpoint below root port 0000:00:01.0 with healthy Gen4 x16 link attributes.
  std::string endpoint(const std::string& bdf, const std::string& vendor, const std::string& cls) const {
    std::string dir = "devices/pci0000:00/0000:00:01.0/" + bdf;
    file(dir + "/vendor", vendor);
    file(dir + "/class", cls);
    file(dir + "/device", "0x1021");
    file(dir + "/numa_node", "0");
    file(dir + "/local_cpulist", "0-7");
    for (auto a : {"current_link_speed", "max_link_speed"}) file(dir + "/" + a, "16.0 GT/s PCIe");
    for (auto a : {"current_link_width", "max_link_width"}) file(dir + "/" + a, "16");
    link("bus/pci/devices/" + bdf, "../../../" + dir);
    return dir;
  }
  void root_port() const {
    std::string dir = "devices/pci0000:00/0000:00:01.0";
    file(dir + "/vendor", "0x1022");
    file(dir + "/class", "0x060400");
    file(dir + "/device", "0x1483");
    file(dir + "/numa_node", "0");
    file(dir + "/local_cpulist", "0-7");
    for (auto a : {"current_link_speed", "max_link_speed"}) file(dir + "/" + a, "16.0 GT/s PCIe");
    for (auto a : {"current_link_width", "max_link_width"}) file(dir + "/" + a, "16");
    link("bus/pci/devices/0000:00:01.0", "../../../" + dir);
  }
};

}  // namespace

TEST_CASE("dgx8: devices in matrix order with names, ibdevs, netdevs and affinity") {
  auto r = discover_topology(fixture("dgx8"));
  judge_topology_pcie_links(r);
  CHECK(r.gaps.empty());
  CHECK(r.findings.empty());
  REQUIRE(r.devices.size() == 16);
  const char* bdfs[16] = {"0000:18:00.0", "0000:1a:00.0", "0000:2c:00.0", "0000:2e:00.0",
                          "0000:9a:00.0", "0000:9c:00.0", "0000:bc:00.0", "0000:c0:00.0",
                          "0000:19:00.0", "0000:1b:00.0", "0000:2d:00.0", "0000:2f:00.0",
                          "0000:9b:00.0", "0000:9d:00.0", "0000:bd:00.0", "0000:c1:00.0"};
  const char* netdevs[8] = {"ibp25s0", "ibp27s0", "ibp45s0", "ibp47s0",
                            "ibp155s0", "ibp157s0", "ibp189s0", "ibp193s0"};
  for (size_t i = 0; i < 16; ++i) {
    const auto& d = r.devices[i];
    CAPTURE(i);
    CHECK(d.pci.bdf == bdfs[i]);
    bool gpu = i < 8;
    CHECK(d.kind == (gpu ? TopoKind::kGpu : TopoKind::kNic));
    CHECK(d.name == (gpu ? "GPU" : "NIC") + std::to_string(i % 8));
    int numa = (i % 8) < 4 ? 0 : 1;
    CHECK(d.pci.numa_node == numa);
    CHECK(d.pci.local_cpulist == (numa == 0 ? "0-31,64-95" : "32-63,96-127"));
    CHECK(d.pci.link.current_width == 16);
    CHECK(d.pci.link.current_speed_gts == 32.0);
    CHECK(d.parent_max_width == 16);
    if (gpu) {
      CHECK_FALSE(d.ibdev);
      CHECK(d.netdevs.empty());
      CHECK(d.pci.driver == "nvidia");
    } else {
      CHECK(d.ibdev == "mlx5_" + std::to_string(i - 8));
      CHECK(d.netdevs == std::vector<std::string>{netdevs[i - 8]});
      CHECK(d.pci.driver == "mlx5_core");
    }
  }
  CHECK(r.devices[0].parent_bdf == "0000:17:00.0");
  CHECK(r.devices[6].path.host_bridge == "pci0000:b7");
  CHECK(r.devices[6].pci.sysfs_path ==
        "devices/pci0000:b7/0000:b7:01.0/0000:b8:00.0/0000:b9:00.0/0000:ba:00.0/0000:bb:00.0/0000:bc:00.0");
  // Six switch uplinks (16, 2a, 98, b8, ba, be), each checked against the port above it.
  REQUIRE(r.uplinks.size() == 6);
  CHECK(r.uplinks[0].upstream_port.bdf == "0000:16:00.0");
  CHECK(r.uplinks[0].parent_bdf == "0000:15:01.0");
  CHECK(r.uplinks[4].upstream_port.bdf == "0000:ba:00.0");
  CHECK(r.uplinks[4].parent_bdf == "0000:b9:00.0");
  CHECK_FALSE(r.nvlink.known);
  CHECK(r.nvlink.reason == "NVML not loaded");
}

TEST_CASE("dgx8: the full matrix, cell by cell") {
  auto r = discover_topology(fixture("dgx8"));
  REQUIRE(r.matrix.size() == 16);
  for (size_t i = 0; i < 16; ++i) {
    auto expected = split_ws(kDgx8Matrix[i]);
    REQUIRE(expected.size() == 16);
    REQUIRE(r.matrix[i].size() == 16);
    for (size_t j = 0; j < 16; ++j) {
      CAPTURE(i);
      CAPTURE(j);
      CHECK(relation_code(r.matrix[i][j]) == expected[j]);
    }
  }
}

TEST_CASE("NVLink hook: a count overrides the PCIe level in both directions") {
  auto r = discover_topology(fixture("dgx8"));
  set_nvlink_links(r, 0, 4, 18);
  CHECK(relation_code(r.matrix[0][4]) == "NV18");
  CHECK(relation_code(r.matrix[4][0]) == "NV18");
  CHECK(r.matrix[0][4].pcie == PcieLevel::kSys);  // still there for PCIe questions
  set_nvlink_links(r, 0, 1, 0);
  CHECK(relation_code(r.matrix[0][1]) == "PIX");
}

TEST_CASE("dgx8-degraded: exactly the injected findings") {
  auto r = discover_topology(fixture("dgx8-degraded"));
  judge_topology_pcie_links(r);
  CHECK(r.gaps.empty());
  REQUIRE(r.findings.size() == 2);
  const Finding* width = nullptr;
  const Finding* idle = nullptr;
  for (const auto& f : r.findings) {
    if (f.code == "pcie_width_downgraded") width = &f;
    if (f.code == "pcie_speed_low_at_idle") idle = &f;
  }
  REQUIRE(width);
  REQUIRE(idle);
  CHECK(width->subject == "0000:2f:00.0");
  CHECK(width->severity == Severity::kError);
  CHECK(width->message.find("NIC3 (mlx5_3)") != std::string::npos);
  CHECK(width->evidence[0].value == 8.0);
  CHECK(width->evidence[0].threshold == 16.0);
  CHECK(idle->subject == "0000:9c:00.0");
  CHECK(idle->severity == Severity::kInfo);
  CHECK(idle->message.find("GPU5") != std::string::npos);
  CHECK(idle->evidence[0].value == 2.5);
  CHECK(idle->evidence[0].threshold == 32.0);
}

TEST_CASE("rdma-nogpu: IB and RoCE NICs, lower-end limits, local_cpus fallback") {
  auto r = discover_topology(fixture("rdma-nogpu"));
  judge_topology_pcie_links(r);
  CHECK(r.gaps.empty());
  CHECK(r.findings.empty());  // 16 GT/s links limited by one end are not downgrades
  REQUIRE(r.devices.size() == 2);
  CHECK(r.devices[0].name == "NIC0");
  CHECK(r.devices[0].ibdev == "mlx5_0");
  CHECK(r.devices[0].netdevs == std::vector<std::string>{"ibp65s0"});
  CHECK(r.devices[0].parent_max_speed_gts == 16.0);
  CHECK(r.devices[1].ibdev == "mlx5_1");
  CHECK(r.devices[1].netdevs == std::vector<std::string>{"enp193s0f0np0"});
  CHECK(r.devices[1].pci.local_cpulist == "0-15");  // from the local_cpus mask
  CHECK(relation_code(r.matrix[0][1]) == "NODE");
  CHECK(r.uplinks.empty());
}

TEST_CASE("cpu-only: no devices, empty matrix, no gaps, empty root: a gap") {
  auto r = discover_topology(fixture("cpu-only"));
  CHECK(r.devices.empty());
  CHECK(r.matrix.empty());
  CHECK(r.gaps.empty());
  FakeSys t;
  auto empty = discover_topology(t.fsroot());
  CHECK(empty.devices.empty());
  REQUIRE(empty.gaps.size() == 1);
  CHECK(empty.gaps[0].code == ErrorCode::kNotFound);
  CHECK(empty.gaps[0].source.find("bus/pci/devices") != std::string::npos);
}

TEST_CASE("synthetic: VFs skipped, NIC without RDMA, unresolvable path -> N/A plus a gap") {
  FakeSys t;
  t.root_port();
  t.endpoint("0000:01:00.0", "0x15b3", "0x020000");
  std::string vf = t.endpoint("0000:01:00.2", "0x15b3", "0x020000");
  t.file(vf + "/physfn", "");
  std::string eth = t.endpoint("0000:02:00.0", "0x8086", "0x020000");
  t.link(eth + "/net/eno1/device", "../../../0000:02:00.0");
  t.link("class/net/eno1", "../../" + eth + "/net/eno1");
  t.link("class/net/veth0", "../../devices/virtual/net/veth0");
  t.file("devices/virtual/net/veth0/mtu", "1500");
  // A GPU whose bus/pci/devices entry is a plain directory: no canonical PCI path.
  std::string odd = "bus/pci/devices/0000:03:00.0";
  t.file(odd + "/vendor", "0x10de");
  t.file(odd + "/class", "0x030200");

  auto r = discover_topology(t.fsroot());
  REQUIRE(r.devices.size() == 3);
  CHECK(r.devices[0].name == "GPU0");
  CHECK(r.devices[0].pci.bdf == "0000:03:00.0");
  CHECK(r.devices[1].pci.bdf == "0000:01:00.0");
  CHECK_FALSE(r.devices[1].ibdev);
  CHECK(r.devices[1].netdevs.empty());
  CHECK(r.devices[2].pci.bdf == "0000:02:00.0");
  CHECK(r.devices[2].netdevs == std::vector<std::string>{"eno1"});
  CHECK(relation_code(r.matrix[0][1]) == "N/A");
  CHECK(relation_code(r.matrix[1][2]) == "PIX");  // both directly below root port 00:01.0
  CHECK_FALSE(r.gaps.empty());
  bool path_gap = false;
  for (const auto& g : r.gaps) path_gap |= g.code == ErrorCode::kParse && g.source.find("0000:03:00.0") != std::string::npos;
  CHECK(path_gap);
}

TEST_CASE("topology_to_json follows the data contract") {
  auto r = discover_topology(fixture("dgx8-degraded"));
  nlohmann::json j = topology_to_json(r);
  REQUIRE(j["devices"].size() == 16);
  const auto& nic3 = j["devices"][11];
  CHECK(nic3["name"] == "NIC3");
  CHECK(nic3["kind"] == "nic");
  CHECK(nic3["pci_bdf"] == "0000:2f:00.0");
  CHECK(nic3["numa_node"] == 0);
  CHECK(nic3["cpu_affinity"] == "0-31,64-95");
  CHECK(nic3["ibdev"] == "mlx5_3");
  CHECK(nic3["netdev"] == nlohmann::json::array({"ibp47s0"}));
  CHECK(nic3["pcie"]["current_width"] == 8);
  CHECK(nic3["pcie"]["max_width"] == 16);
  CHECK(nic3["pcie"]["current_speed_gts"] == 32.0);
  CHECK(nic3["pcie"]["parent_max_width"] == 16);
  CHECK(nic3["pcie"]["parent_max_speed_gts"] == 32.0);
  const auto& gpu0 = j["devices"][0];
  CHECK(gpu0["kind"] == "gpu");
  CHECK_FALSE(gpu0.contains("ibdev"));
  CHECK(j["matrix"][0][0] == "X");
  CHECK(j["matrix"][6][15] == "PXB");
  CHECK(j["matrix"][15][6] == "PXB");
  CHECK(j["legend"].size() == 7);
  CHECK(j["legend"].contains("NV#"));
  CHECK(j["nvlink"]["state"] == "unknown");
  CHECK(j["nvlink"]["reason"] == "NVML not loaded");
  CHECK(j["pcie_uplinks"].size() == 6);

  FakeSys t;
  t.root_port();
  std::string nic = t.endpoint("0000:01:00.0", "0x15b3", "0x020700");
  t.file(nic + "/numa_node", "-1");
  t.file(nic + "/current_link_speed", "Unknown");
  nlohmann::json u = topology_to_json(discover_topology(t.fsroot()));
  CHECK(u["devices"][0]["numa_node"] == -1);
  CHECK(u["devices"][0]["ibdev"].is_null());
  CHECK(u["devices"][0]["netdev"] == nlohmann::json::array());
  CHECK(u["devices"][0]["pcie"]["current_speed_gts"].is_null());
}

TEST_CASE("virtio NIC in a VM: netdev found through virtioN, no link attributes is no gap") {
  FakeSys t;
  std::string dir = "devices/pci0000:00/0000:00:03.0";
  t.file(dir + "/vendor", "0x1af4");
  t.file(dir + "/class", "0x020000");
  t.file(dir + "/device", "0x1000");
  t.file(dir + "/numa_node", "-1");
  t.file(dir + "/local_cpulist", "0-1");
  t.link("bus/pci/devices/0000:00:03.0", "../../../" + dir);
  t.link(dir + "/virtio2/net/eth0/device", "../../../virtio2");
  t.link("class/net/eth0", "../../" + dir + "/virtio2/net/eth0");
  auto r = discover_topology(t.fsroot());
  judge_topology_pcie_links(r);
  CHECK(r.gaps.empty());
  REQUIRE(r.devices.size() == 1);
  CHECK(r.devices[0].netdevs == std::vector<std::string>{"eth0"});
  CHECK(r.devices[0].pci.numa_node == -1);
  CHECK_FALSE(r.devices[0].pci.link.current_width);
  CHECK(r.devices[0].parent_bdf.empty());
  CHECK(r.findings.empty());
}

TEST_CASE("NICs are numbered by RDMA device name (as nvidia-smi does), NICs without one last, ports are read") {
  FakeSys t;
  t.root_port();
  // BDF order: eth-only 01, mlx5_10 02, mlx5_2 03.
  std::string eth = t.endpoint("0000:01:00.0", "0x8086", "0x020000");
  std::string a = t.endpoint("0000:02:00.0", "0x15b3", "0x020700");
  std::string b = t.endpoint("0000:03:00.0", "0x15b3", "0x020000");
  t.link(a + "/infiniband/mlx5_10/device", "../../../0000:02:00.0");
  t.link("class/infiniband/mlx5_10", "../../" + a + "/infiniband/mlx5_10");
  t.file(a + "/infiniband/mlx5_10/ports/1/state", "4: ACTIVE");
  t.file(a + "/infiniband/mlx5_10/ports/1/phys_state", "5: LinkUp");
  t.file(a + "/infiniband/mlx5_10/ports/1/rate", "400 Gb/sec (4X NDR)");
  t.file(a + "/infiniband/mlx5_10/ports/1/link_layer", "InfiniBand");
  t.file(a + "/infiniband/mlx5_10/ports/2/state", "1: DOWN");
  t.file(a + "/infiniband/mlx5_10/ports/2/rate", "40 Gb/sec (4X QDR)");
  t.link(b + "/infiniband/mlx5_2/device", "../../../0000:03:00.0");
  t.link("class/infiniband/mlx5_2", "../../" + b + "/infiniband/mlx5_2");

  auto r = discover_topology(t.fsroot());
  CHECK(r.gaps.empty());
  REQUIRE(r.devices.size() == 3);
  CHECK(r.devices[0].ibdev == "mlx5_2");
  CHECK(r.devices[0].name == "NIC0");
  CHECK(r.devices[0].rdma);
  CHECK(r.devices[0].ports.empty());  // no ports/ directory: nothing, not a gap
  CHECK(r.devices[1].ibdev == "mlx5_10");
  CHECK(r.devices[1].name == "NIC1");
  CHECK(r.devices[2].pci.bdf == "0000:01:00.0");
  CHECK_FALSE(r.devices[2].rdma);
  REQUIRE(r.devices[1].ports.size() == 2);
  const auto& p1 = r.devices[1].ports[0];
  CHECK(p1.port == 1);
  CHECK(p1.state == "4: ACTIVE");
  CHECK(p1.phys_state == "5: LinkUp");
  CHECK(p1.rate_bits_per_s == 400e9);
  CHECK(p1.link_layer == "InfiniBand");
  CHECK(r.devices[1].ports[1].phys_state.empty());
  CHECK(r.devices[1].ports[1].rate_bits_per_s == 40e9);
  nlohmann::json j = topology_to_json(r);
  CHECK(j["nic_legend"] == nlohmann::json({{"NIC0", "mlx5_2"}, {"NIC1", "mlx5_10"}}));
  CHECK(j["devices"][1]["ports"][0]["rate_bits_per_s"] == 400e9);
  CHECK(j["devices"][2]["rdma"] == false);
}

TEST_CASE("dgx8: every NIC has one ACTIVE 400 Gb/s InfiniBand port") {
  auto r = discover_topology(fixture("dgx8"));
  for (size_t i = 8; i < 16; ++i) {
    CAPTURE(i);
    REQUIRE(r.devices[i].ports.size() == 1);
    CHECK(r.devices[i].ports[0].state == "4: ACTIVE");
    CHECK(r.devices[i].ports[0].rate == "400 Gb/sec (4X NDR)");
    CHECK(r.devices[i].ports[0].rate_bits_per_s == 400e9);
  }
  nlohmann::json j = topology_to_json(r);
  CHECK(j["devices"][0]["gpu_numa_id"].is_null());
  CHECK(j["devices"][0]["nvml"].is_null());
  CHECK(j["nvlink"]["source"] == "");
}

TEST_CASE("topo_envelope: fabdiag.topo/1 with rails, the report's findings first, its gaps as errors") {
  auto r = discover_topology(fixture("dgx8-degraded"));
  judge_topology_pcie_links(r);
  REQUIRE_FALSE(r.findings.empty());
  r.gaps.push_back(make_error(ErrorCode::kPermission, "needs root", "/sys/x"));
  Rails rails = compute_rails(r);
  Finding extra;
  extra.code = "extra_finding";
  Envelope env = topo_envelope(r, rails, {extra});
  CHECK(env.schema == "fabdiag.topo/1");
  nlohmann::json data = topology_to_json(r);
  data["rails"] = rails_to_json(rails);
  CHECK(env.data == data);
  REQUIRE(env.findings.size() == r.findings.size() + 1);
  CHECK(env.findings.front().code == r.findings.front().code);
  CHECK(env.findings.back().code == "extra_finding");
  REQUIRE(env.errors.size() == r.gaps.size());
  CHECK(env.errors.back().message == "needs root");
}
