#include <doctest/doctest.h>

#include "probes/counters/device_filter.h"

using namespace fabdiag;

namespace {

PortInfo rdma_port(std::string ibdev, int port, std::string netdev) {
  PortInfo p;
  p.device = ibdev + "/" + std::to_string(port);
  p.ibdev = std::move(ibdev);
  p.port = port;
  p.netdev = std::move(netdev);
  p.is_rdma = true;
  return p;
}

PortInfo plain_netdev(std::string name) {
  PortInfo p;
  p.device = name;
  p.netdev = std::move(name);
  return p;
}

}  // namespace

TEST_CASE("device_selected: no selection picks everything, a name picks its device or an alias") {
  CHECK(device_selected({}, "mlx5_0/1"));
  CHECK(device_selected({"mlx5_0/1"}, "mlx5_0/1", "mlx5_0"));
  CHECK(device_selected({"mlx5_0"}, "mlx5_0/1", "mlx5_0"));  // an ibdev picks each of its ports
  CHECK_FALSE(device_selected({"mlx5_0/2"}, "mlx5_0/1", "mlx5_0"));
  CHECK_FALSE(device_selected({"mlx5_1"}, "mlx5_0/1", "mlx5_0"));
  CHECK(device_selected({"eth0"}, "mlx5_0/1", "mlx5_0", "eth0"));
  CHECK_FALSE(device_selected({"eth0"}, "mlx5_0/1", "mlx5_0"));  // the alias only when given
  CHECK(device_selected({"eth9", "eth0"}, "eth0"));
}

TEST_CASE("device_selected: an empty alias never matches an empty name") {
  CHECK_FALSE(device_selected({""}, "eth0"));
  CHECK_FALSE(device_selected({""}, "eth0", "", ""));
}

TEST_CASE("port_selected: device, ibdev and paired netdev of a port") {
  const PortInfo p = rdma_port("mlx5_0", 1, "ens1f0np0");
  CHECK(port_selected({"mlx5_0/1"}, p));
  CHECK(port_selected({"mlx5_0"}, p));
  CHECK(port_selected({"ens1f0np0"}, p));
  CHECK_FALSE(port_selected({"ens1f1np1"}, p));
  CHECK(port_selected({"eth0"}, plain_netdev("eth0")));
  CHECK_FALSE(port_selected({"mlx5_0"}, plain_netdev("eth0")));
}

TEST_CASE("unmatched_selection: names the first --device that picks no port") {
  const std::vector<PortInfo> ports = {rdma_port("mlx5_0", 1, "ens1f0np0"), plain_netdev("eth0")};
  CHECK_FALSE(unmatched_selection({}, ports).has_value());
  CHECK_FALSE(unmatched_selection({"mlx5_0", "eth0", "ens1f0np0", "mlx5_0/1"}, ports).has_value());
  auto missing = unmatched_selection({"eth0", "mlx5_3", "mlx5_4"}, ports);
  REQUIRE(missing.has_value());
  CHECK(*missing == "mlx5_3");
  CHECK(unmatched_selection({"eth0"}, {}) == std::optional<std::string>("eth0"));
}
