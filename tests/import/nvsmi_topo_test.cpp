#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "import/nvsmi_topo.h"
#include "probes/topo/rails.h"
#include "probes/topo/topology_json.h"

using namespace fabdiag;

namespace {

std::string read_fixture(const std::string& rel) {
  auto t = read_file(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/" + rel);
  REQUIRE(t.ok());
  return *t;
}

const char* const kCase011 = "cases/011-topo-a100-2gpus-per-nic-sys-only-nics.input.txt";

}  // namespace

TEST_CASE("import nvidia-smi topo: case 011 (space aligned, rows GPU0-GPU6 only, no NIC rows, no legend)") {
  auto t = parse_nvsmi_topo(read_fixture(kCase011), "011.txt");
  REQUIRE(t.ok());
  CHECK(t->columns == std::vector<std::string>{"GPU0", "GPU1", "GPU2", "GPU3", "GPU4", "GPU5", "GPU6", "GPU7",
                                               "NIC0", "NIC1", "NIC2", "NIC3", "NIC4", "NIC5"});
  CHECK(t->extra_columns == std::vector<std::string>{"CPU Affinity", "NUMA Affinity", "GPU NUMA ID"});
  REQUIRE(t->rows.size() == 7);
  CHECK(t->rows[0].cells.size() == 14);
  CHECK(t->rows[0].cells[1] == "NV12");
  CHECK(t->rows[0].cells[9] == "PXB");
  CHECK(t->rows[6].name == "GPU6");
  CHECK(t->rows[6].cpu_affinity == "40-47,104-111");
  CHECK(t->rows[6].numa_affinity == "5");
  CHECK(t->rows[6].gpu_numa_id == "N/A");
  CHECK(t->nic_legend.empty());
  REQUIRE(t->gaps.size() == 2);
  CHECK(t->gaps[0].message.find("no row for GPU7, NIC0, NIC1, NIC2, NIC3, NIC4, NIC5") == 0);
  CHECK(t->gaps[1].message.find("no NIC legend") == 0);

  auto r = nvsmi_topo_to_report(*t, "011.txt");
  REQUIRE(r.devices.size() == 14);
  CHECK(r.devices[7].name == "GPU7");
  CHECK(r.devices[7].pci.numa_node == -1);  // not invented
  CHECK(r.devices[7].pci.local_cpulist.empty());
  CHECK_FALSE(r.devices[0].gpu_numa_id);
  CHECK(r.devices[0].pci.numa_node == 3);
  CHECK(r.devices[0].pci.local_cpulist == "24-31,88-95");
  CHECK(r.devices[9].kind == TopoKind::kNic);
  CHECK(r.devices[9].rdma);
  CHECK_FALSE(r.devices[9].ibdev);
  for (size_t j = 0; j < 14; ++j) CHECK(r.matrix[7][j].missing);       // GPU7 row
  for (size_t j = 0; j < 14; ++j) CHECK(r.matrix[10][j].missing);      // NIC rows
  CHECK_FALSE(r.matrix[6][7].missing);                                  // GPU6-GPU7 from GPU6's row
  CHECK(relation_code(r.matrix[6][7]) == "NV12");
  CHECK(relation_code(r.matrix[2][8]) == "PXB");
  CHECK(relation_code(r.matrix[3][3]) == "X");
  CHECK(r.nvlink.known);

  auto j = topology_to_json(r);
  CHECK(j["matrix"][7][6].is_null());
  CHECK(j["matrix"][6][7] == "NV12");
  CHECK(j["devices"][7]["pci_bdf"].is_null());
  CHECK(j["nic_legend"].empty());
}

TEST_CASE("import nvidia-smi topo: case 011 verdict: NICs shared by two GPUs, NIC3/NIC4 far, no GPU without a local NIC") {
  auto t = parse_nvsmi_topo(read_fixture(kCase011), "011.txt");
  REQUIRE(t.ok());
  auto r = nvsmi_topo_to_report(*t, "011.txt");
  auto rails = compute_rails(r);
  const char* nic_of[7] = {"NIC1", "NIC1", "NIC0", "NIC0", "NIC5", "NIC5", "NIC2"};
  for (size_t g = 0; g < 7; ++g) {
    CAPTURE(g);
    CHECK(rails.gpus[g].relation == PcieLevel::kPxb);
    CHECK(rails.gpus[g].closest_nics == std::vector<std::string>{nic_of[g]});
  }
  CHECK_FALSE(rails.gpus[7].known);
  CHECK(rails.unknown_gpus == std::vector<std::string>{"GPU7"});
  CHECK(rails.far_nics == std::vector<std::string>{"NIC3", "NIC4"});
  CHECK(rails.gpus_without_local_nic.empty());
  auto f = judge_rails(rails, r, "011.txt");
  REQUIRE(f.size() == 5);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(f[i].severity == Severity::kWarn);
    CHECK(f[i].code == "nic_shared_by_gpus");
  }
  CHECK(f[0].subject == "NIC1");
  CHECK(f[1].subject == "NIC0");
  CHECK(f[2].subject == "NIC5");
  CHECK(f[3].code == "nic_far_from_gpus");
  CHECK(f[3].subject == "NIC3");
  CHECK(f[3].severity == Severity::kInfo);
  CHECK(f[3].evidence.back().value_text == "GPU7");  // says what it could not see
  CHECK(f[4].subject == "NIC4");
  for (const auto& x : f) CHECK(x.code != "gpu_without_local_nic");
}

TEST_CASE("import nvidia-smi topo: tab-separated with NIC rows, empty affinity cells and both legends") {
  auto t = parse_nvsmi_topo(read_fixture("nvidia-smi-topo/dgx8-nvswitch-tabs.txt"), "tabs.txt");
  REQUIRE(t.ok());
  CHECK(t->gaps.empty());
  CHECK(t->columns.size() == 16);
  REQUIRE(t->rows.size() == 16);
  CHECK(t->rows[4].cpu_affinity == "32-63,96-127");
  CHECK(t->rows[4].numa_affinity == "1");
  CHECK(t->rows[4].gpu_numa_id == "N/A");  // after an empty tab field
  CHECK(t->rows[8].cpu_affinity.empty());  // NIC rows leave them blank
  REQUIRE(t->nic_legend.size() == 8);
  CHECK(t->nic_legend[7] == std::make_pair(std::string("NIC7"), std::string("mlx5_7")));
  auto r = nvsmi_topo_to_report(*t, "tabs.txt");
  CHECK(r.devices[15].ibdev == "mlx5_7");
  CHECK(r.devices[8].pci.numa_node == -1);
  CHECK(relation_code(r.matrix[15][14]) == "PXB");
  CHECK(relation_code(r.matrix[0][7]) == "NV18");
  CHECK(judge_rails(compute_rails(r), r, "tabs.txt").empty());
}

TEST_CASE("import nvidia-smi topo: older layouts, truncated rows, noise and CRLF") {
  const std::string old =
      "$ nvidia-smi topo -m\r\n"
      "\tGPU0\tGPU1\tmlx5_0\tCPU Affinity\r\n"
      "GPU0\t X \tSOC\tPHB\t0-11\r\n"
      "GPU1\tSOC\t X \r\n"
      "mlx5_0\tPHB\tSOC\t X \t\r\n"
      "GPU9\tSYS\tSYS\tSYS\r\n"
      "\r\n"
      "Legend:\r\n"
      "  X   = Self\r\n";
  auto t = parse_nvsmi_topo(old, "old.txt");
  REQUIRE(t.ok());
  CHECK(t->columns == std::vector<std::string>{"GPU0", "GPU1", "mlx5_0"});
  CHECK(t->extra_columns == std::vector<std::string>{"CPU Affinity"});
  REQUIRE(t->rows.size() == 3);
  CHECK(t->rows[1].cells.size() == 2);
  REQUIRE(t->gaps.size() == 2);
  CHECK(t->gaps[0].message.find("row GPU1 has 2 of 3 relation cells") == 0);
  CHECK(t->gaps[0].source == "old.txt:4");
  CHECK(t->gaps[1].message.find("row GPU9 is not one of the header's columns") == 0);
  auto r = nvsmi_topo_to_report(*t, "old.txt");
  CHECK(r.devices[2].kind == TopoKind::kNic);
  CHECK(r.devices[2].ibdev == "mlx5_0");  // old drivers name NIC columns by RDMA device
  CHECK(relation_code(r.matrix[0][1]) == "SYS");  // SOC = SYS
  CHECK(r.matrix[1][2].missing);                   // beyond the truncated row
  CHECK_FALSE(r.matrix[1][1].missing);
  CHECK(r.devices[0].pci.local_cpulist == "0-11");
  auto rails = compute_rails(r);
  CHECK(rails.gpus_without_local_nic == std::vector<std::string>{"GPU0"});  // PHB only
  CHECK_FALSE(rails.gpus[1].known);
}

TEST_CASE("import nvidia-smi topo: text without a matrix is a parse error") {
  auto t = parse_nvsmi_topo("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n", "x.txt");
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().code == ErrorCode::kParse);
  CHECK(t.error().source == "x.txt");
  CHECK_FALSE(parse_nvsmi_topo("", "empty").ok());
  CHECK(is_nvsmi_relation("NV18"));
  CHECK(is_nvsmi_relation("N/A"));
  CHECK_FALSE(is_nvsmi_relation("NVIDIA"));
  CHECK_FALSE(is_nvsmi_relation("24-31"));
}

TEST_CASE("import nvidia-smi topo: an NVLink count past 3 digits is no relation cell: the row is a gap, not a crash") {
  auto t = parse_nvsmi_topo("\tGPU0\tGPU1\tGPU2\n"
                            "GPU0\t X \tNV99999999999999999999\tNV18\n"
                            "GPU1\tNV999\t X \tSYS\n"
                            "GPU2\tNV18\tSYS\t X \n",
                            "garbled.txt");
  REQUIRE(t.ok());
  REQUIRE_FALSE(t->gaps.empty());
  CHECK(t->gaps[0].message.find("row GPU0 has 1 of 3 relation cells") == 0);
  auto r = nvsmi_topo_to_report(*t, "garbled.txt");
  CHECK(relation_code(r.matrix[1][0]) == "NV999");  // as printed; a row that parses is kept
  CHECK(relation_code(r.matrix[2][0]) == "NV18");
  CHECK(r.matrix[0][1].missing);
}
