// Links of the interpretation: an RDMA port with its netdev and single-port ibdev, or a lone device.
#include <doctest/doctest.h>

#include "probes/counters/sysfs_counters.h"
#include "rules/counter_links.h"

using namespace fabdiag;

namespace {

PortInfo rdma_port(const std::string& ibdev, int port, const std::string& netdev) {
  PortInfo p;
  p.device = ibdev + "/" + std::to_string(port);
  p.ibdev = ibdev;
  p.port = port;
  p.netdev = netdev;
  p.link_layer = "Ethernet";
  p.is_rdma = true;
  return p;
}

CounterChange change_on(const std::string& device, const std::string& name) {
  CounterChange ch;
  ch.counter = make_counter(device, CounterGroup::kEthtoolStats, name, 1, "mlx5_core", "/x/" + name);
  return ch;
}

}  // namespace

TEST_CASE("an RDMA port, its netdev and its single-port ibdev are one link") {
  std::vector<PortInfo> ports = {rdma_port("mlx5_0", 1, "ens1f0np0")};
  std::vector<CounterChange> changes = {change_on("mlx5_0/1", "symbol_error"),
                                        change_on("ens1f0np0", "rx_pause_ctrl_phy"),
                                        change_on("mlx5_0", "req_cqe_error")};
  CounterLinks ls = group_counter_links(ports, changes);
  REQUIRE(ls.links.size() == 1);
  const CounterLink& l = ls.links[0];
  CHECK(l.primary == "mlx5_0/1");
  CHECK(l.label == "mlx5_0/1 (ens1f0np0)");
  CHECK(l.netdev == "ens1f0np0");
  CHECK(l.link_layer == "Ethernet");
  CHECK(l.rdma);
  REQUIRE(l.changes.size() == 3);
  CHECK(l.changes[2] == &changes[2]);
  CHECK(ls.of("ens1f0np0") == 0);
  CHECK(ls.of("mlx5_0") == 0);
}

TEST_CASE("a two-port ibdev is not folded into either port, unknown devices get their own link") {
  std::vector<PortInfo> ports = {rdma_port("mlx5_0", 1, "p0"), rdma_port("mlx5_0", 2, "p1")};
  std::vector<CounterChange> changes = {change_on("mlx5_0", "req_cqe_error"), change_on("eth9", "rx_crc_errors")};
  CounterLinks ls = group_counter_links(ports, changes);
  REQUIRE(ls.links.size() == 4);
  CHECK(ls.links[0].label == "mlx5_0/1 (p0)");
  CHECK(ls.links[1].label == "mlx5_0/2 (p1)");
  CHECK(ls.links[2].label == "mlx5_0");
  CHECK_FALSE(ls.links[2].rdma);
  CHECK(ls.links[3].primary == "eth9");
  REQUIRE(ls.links[3].changes.size() == 1);
  CHECK(ls.links[3].changes[0]->counter.name == "rx_crc_errors");
}
