#include <doctest/doctest.h>

#include "rules/pcie_link_rules.h"

using namespace fabdiag;

namespace {
PcieLinkSubject subject(double cur_gts, double max_gts, int cur_w, int max_w, double parent_gts,
                        int parent_w, bool gpu = false) {
  PcieLinkSubject s;
  s.bdf = "0000:2f:00.0";
  s.label = gpu ? "GPU3" : "NIC3 (mlx5_3)";
  s.is_gpu = gpu;
  s.link = PcieLink{cur_gts, max_gts, cur_w, max_w};
  s.parent_bdf = "0000:2b:03.0";
  s.parent_max_speed_gts = parent_gts;
  s.parent_max_width = parent_w;
  return s;
}
}  // namespace

TEST_CASE("healthy links and links limited by the lower end give no finding (case 021)") {
  CHECK(judge_pcie_link(subject(32, 32, 16, 16, 32, 16)).empty());
  // Gen4 endpoint under a Gen5 port: 16 GT/s is the best the link can do.
  CHECK(judge_pcie_link(subject(16, 16, 16, 16, 32, 16)).empty());
  // Gen5 card in a Gen4 slot, x16 card in an x8 slot.
  CHECK(judge_pcie_link(subject(16, 32, 8, 16, 16, 8)).empty());
  // x4 NVMe-like endpoint under an x16 switch port.
  CHECK(judge_pcie_link(subject(16, 16, 4, 4, 32, 16)).empty());
}

TEST_CASE("width below the lower max of both ends is an error with evidence") {
  auto f = judge_pcie_link(subject(32, 32, 8, 16, 32, 16));
  REQUIRE(f.size() == 1);
  CHECK(f[0].code == "pcie_width_downgraded");
  CHECK(f[0].severity == Severity::kError);
  CHECK(f[0].layer == Layer::kPhysical);
  CHECK(f[0].subject == "0000:2f:00.0");
  CHECK(f[0].message.find("NIC3 (mlx5_3)") != std::string::npos);
  CHECK(f[0].message.find("x8") != std::string::npos);
  REQUIRE(f[0].evidence.size() == 3);
  CHECK(f[0].evidence[0].metric == "current_link_width");
  CHECK(f[0].evidence[0].value == 8.0);
  CHECK(f[0].evidence[0].threshold == 16.0);
  CHECK(f[0].evidence[0].unit == "lanes");
  CHECK(f[0].evidence[0].source == "/sys/bus/pci/devices/0000:2f:00.0/current_link_width");
  CHECK(f[0].evidence[2].source == "/sys/bus/pci/devices/0000:2b:03.0/max_link_width");
  CHECK(f[0].action.find("Reseat") != std::string::npos);
  // Width 0: the link is down.
  auto down = judge_pcie_link(subject(32, 32, 0, 16, 32, 16));
  REQUIRE(down.size() == 1);
  CHECK(down[0].message.find("down") != std::string::npos);
}

TEST_CASE("slow speed: warn on NICs, info on GPUs, both faults at once") {
  auto nic = judge_pcie_link(subject(16, 32, 16, 16, 32, 16));
  REQUIRE(nic.size() == 1);
  CHECK(nic[0].code == "pcie_speed_downgraded");
  CHECK(nic[0].severity == Severity::kWarn);
  CHECK(nic[0].evidence[0].value == 16.0);
  CHECK(nic[0].evidence[0].threshold == 32.0);
  CHECK(nic[0].evidence[0].unit == "GT/s");
  CHECK(nic[0].action.find("BIOS") != std::string::npos);

  auto gpu = judge_pcie_link(subject(2.5, 32, 16, 16, 32, 16, true));
  REQUIRE(gpu.size() == 1);
  CHECK(gpu[0].code == "pcie_speed_low_at_idle");
  CHECK(gpu[0].severity == Severity::kInfo);
  CHECK(gpu[0].message.find("re-check under load") != std::string::npos);

  auto both = judge_pcie_link(subject(8, 32, 4, 16, 32, 16));
  REQUIRE(both.size() == 2);
  CHECK(both[0].code == "pcie_width_downgraded");
  CHECK(both[1].code == "pcie_speed_downgraded");
}

TEST_CASE("unknown values give no finding, an unknown parent leaves the device's max") {
  PcieLinkSubject s = subject(16, 32, 16, 16, 32, 16);
  s.link.current_speed_gts.reset();
  CHECK(judge_pcie_link(s).empty());
  s = subject(16, 32, 8, 16, 32, 16);
  s.link.max_width.reset();
  s.link.max_speed_gts.reset();
  CHECK(judge_pcie_link(s).empty());
  s = subject(32, 32, 8, 16, 0, 0);
  s.parent_max_speed_gts.reset();
  s.parent_max_width.reset();
  CHECK(link_limit_width(s) == 16);
  auto f = judge_pcie_link(s);
  REQUIRE(f.size() == 1);
  CHECK(f[0].evidence.size() == 2);  // no parent evidence
  CHECK(f[0].message.find("max unknown") != std::string::npos);
  // No parent at all (device on the host bridge).
  s.parent_bdf.clear();
  CHECK(judge_pcie_link(s).size() == 1);
}
