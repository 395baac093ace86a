#include <doctest/doctest.h>

#include "probes/topo/pcie_path.h"

using namespace fabdiag;

namespace {
PciePath path(const std::string& canonical) {
  auto p = parse_pcie_path(canonical);
  REQUIRE_MESSAGE(p.ok(), canonical);
  return *p;
}
PcieLevel level(const std::string& a, const std::string& b, int numa_a = 0, int numa_b = 0) {
  return derive_pcie_level(path(a), numa_a, path(b), numa_b);
}
// Socket 0: host bridge pci0000:15, root ports 15:01.0 and 15:02.0, switches 16 and 2a.
const std::string kGpu0 = "devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0";
const std::string kNic0 = "devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:19:00.0";
const std::string kGpu2 = "devices/pci0000:15/0000:15:02.0/0000:2a:00.0/0000:2b:00.0/0000:2c:00.0";
// Socket 1: host bridges pci0000:97 and pci0000:b7; b7 has a two-level switch (b8 -> ba, be).
const std::string kGpu4 = "devices/pci0000:97/0000:97:01.0/0000:98:00.0/0000:99:00.0/0000:9a:00.0";
const std::string kGpu6 =
    "devices/pci0000:b7/0000:b7:01.0/0000:b8:00.0/0000:b9:00.0/0000:ba:00.0/0000:bb:00.0/0000:bc:00.0";
const std::string kNic6 =
    "devices/pci0000:b7/0000:b7:01.0/0000:b8:00.0/0000:b9:00.0/0000:ba:00.0/0000:bb:01.0/0000:bd:00.0";
const std::string kNic7 =
    "devices/pci0000:b7/0000:b7:01.0/0000:b8:00.0/0000:b9:01.0/0000:be:00.0/0000:bf:01.0/0000:c1:00.0";
// A device on the first-level switch b8, next to the second-level switches.
const std::string kNvmeB8 = "devices/pci0000:b7/0000:b7:01.0/0000:b8:00.0/0000:b9:02.0/0000:c2:00.0";
}  // namespace

TEST_CASE("parse_pcie_path splits host bridge, bridge chain and device") {
  auto p = path(kGpu6);
  CHECK(p.host_bridge == "pci0000:b7");
  CHECK(p.device == "0000:bc:00.0");
  CHECK(p.bridges == std::vector<std::string>{"0000:b7:01.0", "0000:b8:00.0", "0000:b9:00.0",
                                              "0000:ba:00.0", "0000:bb:00.0"});
  CHECK(pcie_switches(p) == std::vector<std::string>{"0000:b8:00.0", "0000:ba:00.0"});
  CHECK(pcie_switches(path(kGpu0)) == std::vector<std::string>{"0000:16:00.0"});
}

TEST_CASE("parse_pcie_path handles integrated devices, platform prefixes, VMD and upper case") {
  auto integrated = path("devices/pci0000:00/0000:00:1f.6");
  CHECK(integrated.bridges.empty());
  CHECK(integrated.device == "0000:00:1f.6");
  CHECK(pcie_switches(integrated).empty());
  auto arm = path("devices/platform/soc/a000000.pcie/pci0002:00/0002:00:00.0/0002:01:00.0");
  CHECK(arm.host_bridge == "pci0002:00");
  CHECK(arm.bridges == std::vector<std::string>{"0002:00:00.0"});
  auto vmd = path("devices/pci0000:64/0000:64:00.5/pci10000:00/10000:00:02.0/10000:01:00.0");
  CHECK(vmd.device == "10000:01:00.0");
  CHECK(vmd.bridges == std::vector<std::string>{"0000:64:00.5", "10000:00:02.0"});
  CHECK(path("devices/pci0000:AB/0000:AB:01.0/0000:AC:00.0").device == "0000:ac:00.0");
}

TEST_CASE("parse_pcie_path rejects paths without host bridge or with junk components") {
  CHECK(parse_pcie_path("").error().code == ErrorCode::kParse);
  CHECK_FALSE(parse_pcie_path("bus/pci/devices/0000:18:00.0").ok());
  CHECK_FALSE(parse_pcie_path("devices/pci0000:15").ok());
  CHECK_FALSE(parse_pcie_path("devices/pci0000:15/0000:15:01.0/net/eth0").ok());
  CHECK_FALSE(parse_pcie_path("devices/pcixyz/0000:15:01.0").ok());
}

TEST_CASE("derive_pcie_level: X, PIX, PXB, PHB, NODE, SYS") {
  CHECK(level(kGpu0, kGpu0) == PcieLevel::kSelf);
  CHECK(level(kGpu0, kNic0) == PcieLevel::kPix);   // one switch
  CHECK(level(kGpu6, kNic6) == PcieLevel::kPix);   // same second-level switch
  CHECK(level(kGpu6, kNic7) == PcieLevel::kPxb);   // ba, b8, be
  CHECK(level(kGpu6, kNvmeB8) == PcieLevel::kPxb); // ba, b8
  CHECK(level(kGpu0, kGpu2) == PcieLevel::kPhb);   // two root ports, one host bridge
  CHECK(level(kGpu4, kGpu6, 1, 1) == PcieLevel::kNode);
  CHECK(level(kGpu0, kGpu4, 0, 1) == PcieLevel::kSys);
  // Symmetric.
  CHECK(level(kNic7, kGpu6) == PcieLevel::kPxb);
  CHECK(level(kGpu4, kGpu0, 1, 0) == PcieLevel::kSys);
}

TEST_CASE("derive_pcie_level: functions of one device, root-port-only and integrated devices") {
  // Two functions of a dual-port NIC below one switch port: one bridge crossed -> PIX.
  CHECK(level("devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:03.0/0000:1b:00.0",
              "devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:03.0/0000:1b:00.1") == PcieLevel::kPix);
  // Two functions directly below a root port (no switch): PIX.
  CHECK(level("devices/pci0000:40/0000:40:01.1/0000:41:00.0",
              "devices/pci0000:40/0000:40:01.1/0000:41:00.1") == PcieLevel::kPix);
  // Different root ports without switches: PHB.
  CHECK(level("devices/pci0000:40/0000:40:01.1/0000:41:00.0",
              "devices/pci0000:40/0000:40:03.1/0000:42:00.0") == PcieLevel::kPhb);
  // Integrated devices on the host bridge bus: PHB.
  CHECK(level("devices/pci0000:00/0000:00:1f.6", "devices/pci0000:00/0000:00:01.0/0000:01:00.0") ==
        PcieLevel::kPhb);
  // A lone PCI-to-PCI bridge below the root port counts as a switch.
  CHECK(level("devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0",
              "devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0") == PcieLevel::kPix);
}

TEST_CASE("derive_pcie_level: unknown NUMA nodes") {
  const std::string a = "devices/pci0000:40/0000:40:01.1/0000:41:00.0";
  const std::string b = "devices/pci0000:c0/0000:c0:03.1/0000:c1:00.0";
  CHECK(level(a, b, -1, -1) == PcieLevel::kNode);  // no NUMA: one node
  CHECK(level(a, b, -1, 0) == PcieLevel::kSys);    // one side unknown: conservative
  CHECK(level(a, b, 0, 0) == PcieLevel::kNode);
  CHECK(level(a, b, 0, 1) == PcieLevel::kSys);
  CHECK(derive_pcie_level(PciePath{}, 0, path(a), 0) == PcieLevel::kUnknown);
}

TEST_CASE("PcieLevel names match nvidia-smi topo -m") {
  CHECK(std::string(to_string(PcieLevel::kSelf)) == "X");
  CHECK(std::string(to_string(PcieLevel::kPix)) == "PIX");
  CHECK(std::string(to_string(PcieLevel::kPxb)) == "PXB");
  CHECK(std::string(to_string(PcieLevel::kPhb)) == "PHB");
  CHECK(std::string(to_string(PcieLevel::kNode)) == "NODE");
  CHECK(std::string(to_string(PcieLevel::kSys)) == "SYS");
  CHECK(std::string(to_string(PcieLevel::kUnknown)) == "N/A");
}
