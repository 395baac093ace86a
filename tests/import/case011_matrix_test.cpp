// Shared case 011: `fabdiag topo` on a fixture that mirrors the case's machine (built by
// scripts/make-topo-fixture.py, NVLink from the fake NVML with case011-a100.conf) must print
// the case's nvidia-smi matrix cell by cell, and the same affinity columns.
#include <doctest/doctest.h>

#include <cstdlib>

#include "core/atomic_file.h"
#include "import/nvsmi_topo.h"
#include "probes/topo/nvlink_topology.h"
#include "probes/topo/nvml_loader.h"
#include "probes/topo/topology.h"

using namespace fabdiag;

namespace {

struct FakeConfig {
  explicit FakeConfig(const std::string& path) { setenv("FAKE_NVML_CONFIG", path.c_str(), 1); }
  ~FakeConfig() { unsetenv("FAKE_NVML_CONFIG"); }
};

TopologyReport fabdiag_topo(const std::string& fixture, const std::string& config) {
  std::string root = std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/" + fixture;
  auto r = discover_topology(FsRoot(root, root));
  FakeConfig c(std::string(FABDIAG_SOURCE_DIR) + "/tests/fakes/nvml/" + config);
  apply_gpu_inventory(r, NvmlGpuInventory(FAKE_NVML_PATH).read(), true);
  return r;
}

TopologyReport imported(const std::string& rel) {
  auto text = read_file(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/" + rel);
  REQUIRE(text.ok());
  auto t = parse_nvsmi_topo(*text, rel);
  REQUIRE(t.ok());
  return nvsmi_topo_to_report(*t, rel);
}

// Every cell nvidia-smi printed must equal fabdiag's; returns how many were compared.
size_t compare(const TopologyReport& ours, const TopologyReport& theirs) {
  REQUIRE(ours.devices.size() == theirs.devices.size());
  size_t compared = 0;
  for (size_t i = 0; i < theirs.devices.size(); ++i) {
    CHECK(ours.devices[i].name == theirs.devices[i].name);
    bool row_printed = false;
    for (size_t j = 0; j < theirs.devices.size(); ++j) {
      if (theirs.matrix[i][j].missing) continue;
      row_printed = true;
      CAPTURE(theirs.devices[i].name);
      CAPTURE(theirs.devices[j].name);
      CHECK(relation_code(ours.matrix[i][j]) == relation_code(theirs.matrix[i][j]));
      ++compared;
    }
    if (!row_printed || theirs.devices[i].kind != TopoKind::kGpu) continue;
    CAPTURE(theirs.devices[i].name);
    CHECK(ours.devices[i].pci.local_cpulist == theirs.devices[i].pci.local_cpulist);
    CHECK(ours.devices[i].pci.numa_node == theirs.devices[i].pci.numa_node);
    CHECK(ours.devices[i].gpu_numa_id == theirs.devices[i].gpu_numa_id);
  }
  return compared;
}

}  // namespace

TEST_CASE("case 011: fabdiag topo on the mirrored fixture equals the case's nvidia-smi matrix cell by cell") {
  auto ours = fabdiag_topo("case011-a100", "case011-a100.conf");
  CHECK(ours.gaps.empty());
  auto theirs = imported("cases/011-topo-a100-2gpus-per-nic-sys-only-nics.input.txt");
  CHECK(compare(ours, theirs) == 7 * 14);  // rows GPU0-GPU6, 14 columns each
  CHECK_FALSE(ours.devices[0].gpu_numa_id);  // "N/A" in the case
}

TEST_CASE("dgx8 with NVSwitch: fabdiag topo equals the full tab-separated nvidia-smi output, NIC rows included") {
  auto ours = fabdiag_topo("dgx8", "dgx8-nvswitch.conf");
  auto theirs = imported("nvidia-smi-topo/dgx8-nvswitch-tabs.txt");
  CHECK(compare(ours, theirs) == 16 * 16);
  for (size_t n = 8; n < 16; ++n) CHECK(ours.devices[n].ibdev == theirs.devices[n].ibdev);
}

TEST_CASE("hgx4: direct NVLinks give NV4 between all pairs, NV3 for a pair with one link down") {
  auto healthy = fabdiag_topo("hgx4-a100", "hgx4-direct.conf");
  auto down = fabdiag_topo("hgx4-a100", "hgx4-link-down.conf");
  for (size_t i = 0; i < 4; ++i)
    for (size_t j = 0; j < 4; ++j) {
      if (i == j) continue;
      CAPTURE(i);
      CAPTURE(j);
      CHECK(relation_code(healthy.matrix[i][j]) == "NV4");
      bool pair01 = (i == 0 && j == 1) || (i == 1 && j == 0);
      CHECK(relation_code(down.matrix[i][j]) == (pair01 ? "NV3" : "NV4"));
    }
  CHECK(relation_code(healthy.matrix[0][4]) == "PIX");   // GPU0-NIC0
  CHECK(relation_code(healthy.matrix[0][5]) == "PHB");   // GPU0-NIC1: other root port
  CHECK(relation_code(healthy.matrix[0][6]) == "NODE");  // GPU0-NIC2: other host bridge
}
