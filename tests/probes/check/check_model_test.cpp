#include <doctest/doctest.h>

#include "probes/check/check_model.h"

using namespace fabdiag;

TEST_CASE("one RDMA port model: PortInfo and RdmaPortFacts convert both ways on their shared fields") {
  PortInfo info;
  info.device = "mlx5_3/1";
  info.ibdev = "mlx5_3";
  info.port = 1;
  info.netdev = "ens3f0np0";
  info.driver = "mlx5_core";  // not in RdmaPortFacts
  info.link_layer = "Ethernet";
  info.state = "4: ACTIVE";
  info.phys_state = "5: LinkUp";
  info.rate = "200 Gb/sec (4X HDR)";
  info.is_rdma = true;
  info.sysfs_dir = "/sys/devices/pci0000:00/0000:00:01.0/infiniband/mlx5_3/ports/1";

  RdmaPortFacts p = rdma_port_facts(info);
  CHECK(p.device == "mlx5_3/1");
  CHECK(p.ibdev == "mlx5_3");
  CHECK(p.port == 1);
  CHECK(p.netdev == "ens3f0np0");
  CHECK(p.link_layer == "Ethernet");
  CHECK(p.state == "4: ACTIVE");
  CHECK(p.phys_state == "5: LinkUp");
  CHECK(p.rate == "200 Gb/sec (4X HDR)");
  REQUIRE(p.rate_gbps.has_value());
  CHECK(*p.rate_gbps == doctest::Approx(200.0));
  CHECK(p.source == info.sysfs_dir);
  CHECK_FALSE(p.from_sysfs);  // the caller says where the facts come from
  CHECK(p.model.empty());

  PortInfo back = to_port_info(p);
  CHECK(back.device == info.device);
  CHECK(back.ibdev == info.ibdev);
  CHECK(back.port == info.port);
  CHECK(back.netdev == info.netdev);
  CHECK(back.link_layer == info.link_layer);
  CHECK(back.state == info.state);
  CHECK(back.phys_state == info.phys_state);
  CHECK(back.rate == info.rate);
  CHECK(back.sysfs_dir == info.sysfs_dir);
  CHECK(back.is_rdma);
  CHECK(back.driver.empty());

  PortInfo unknown_rate;
  unknown_rate.rate = "";
  CHECK_FALSE(rdma_port_facts(unknown_rate).rate_gbps.has_value());
}

TEST_CASE("listed_rdma_port: a port a tool's listing names") {
  RdmaPortFacts p = listed_rdma_port("mlx5_1", 2, "ibstat.txt line 9: CA 'mlx5_1' port 2");
  CHECK(p.ibdev == "mlx5_1");
  CHECK(p.port == 2);
  CHECK(p.device == "mlx5_1/2");
  CHECK(p.source == "ibstat.txt line 9: CA 'mlx5_1' port 2");
  CHECK(p.state.empty());
  CHECK_FALSE(p.from_sysfs);
}

TEST_CASE("port and physical states: every spelling to the sysfs form") {
  CHECK(normalize_port_state("ACTIVE_DEFER") == "5: ACTIVE_DEFER");
  CHECK(normalize_port_state("Active Defer") == "5: ACTIVE_DEFER");
  CHECK(normalize_port_state("Initialize") == "2: INIT");
  CHECK(normalize_port_state("PORT_NOP (0)") == "0: NOP");
  CHECK(normalize_port_state("PORT_X (6)") == "PORT_X (6)");  // out of range: as printed
  CHECK(normalize_phys_state("LINK_UP (5)") == "5: LinkUp");
  CHECK(normalize_phys_state("phy test") == "7: Phy Test");
  CHECK(normalize_phys_state("Initializing") == "Initializing");  // not a physical state
  CHECK(normalize_phys_state("NOSTATE (0)") == "NOSTATE (0)");
  CHECK(normalize_phys_state("") == "");
}
