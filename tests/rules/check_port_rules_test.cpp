// RDMA port rules of fabdiag check, each alone: state, rate (peers and expected), RoCE MTU,
// RoCE v2 GID, ECN; plus the state normalization the importers rely on.
#include <doctest/doctest.h>

#include "core/text.h"
#include "rules/check_port_rules.h"
#include "probes/counters/sysfs_counters.h"

using namespace fabdiag;

namespace {

RdmaPortFacts port(const std::string& ibdev, const std::string& model, const std::string& rate,
                   const std::string& layer = "Ethernet", const std::string& state = "4: ACTIVE",
                   const std::string& phys = "5: LinkUp") {
  RdmaPortFacts p;
  p.ibdev = ibdev;
  p.port = 1;
  p.device = ibdev + "/1";
  p.model = model;
  p.rate = rate;
  p.rate_gbps = parse_leading_double(rate);
  p.link_layer = layer;
  p.state = state;
  p.phys_state = phys;
  p.source = "/sys/class/infiniband/" + ibdev + "/ports/1";
  p.from_sysfs = true;
  return p;
}

CounterChange reading(const std::string& name, uint64_t value) {
  CounterChange c;
  c.counter = make_counter("mlx5_0/1", CounterGroup::kIbHwCounters, name, value, "mlx5_core",
                           "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/" + name);
  return c;
}

}  // namespace

TEST_CASE("states from every tool normalize to the sysfs spelling") {
  CHECK(normalize_port_state("Active") == "4: ACTIVE");
  CHECK(normalize_port_state("Down") == "1: DOWN");
  CHECK(normalize_port_state("Initializing") == "2: INIT");
  CHECK(normalize_port_state("Armed") == "3: ARMED");
  CHECK(normalize_port_state("PORT_ACTIVE (4)") == "4: ACTIVE");
  CHECK(normalize_port_state("PORT_DOWN (1)") == "1: DOWN");
  CHECK(normalize_port_state(" 4: ACTIVE ") == "4: ACTIVE");
  CHECK(normalize_port_state("weird") == "weird");
  CHECK(normalize_phys_state("LinkUp") == "5: LinkUp");
  CHECK(normalize_phys_state("Polling") == "2: Polling");
  CHECK(normalize_phys_state("Disabled") == "3: Disabled");
  CHECK(normalize_phys_state("LINK_UP (5)") == "5: LinkUp");
  CHECK(normalize_phys_state("POLLING (2)") == "2: Polling");
  CHECK(normalize_phys_state("PORT_CONFIGURATION TRAINNING (4)") == "4: PortConfigurationTraining");
  CHECK(normalize_phys_state("4: ACTIVE") == "4: ACTIVE");  // case 019's non-standard value stays as is
}

TEST_CASE("port_state_rule reuses the counter rules: DOWN/Polling is an error, the rate is not a speed") {
  auto p = port("mlx5_11", "MT4129", "40", "Ethernet", "1: DOWN", "2: Polling");
  p.from_sysfs = false;
  p.source = "ibstat.txt line 59: CA 'mlx5_11' port 1";
  auto f = port_state_rule(p);
  REQUIRE(f.size() == 1);
  CHECK(f[0].code == "port_down");
  CHECK(f[0].severity == Severity::kError);
  CHECK(f[0].subject == "mlx5_11/1");
  CHECK(f[0].message.find("Polling") != std::string::npos);
  bool rate_not_speed = false;
  for (const auto& e : f[0].evidence) {
    CHECK(e.source.rfind("ibstat.txt line 59: CA 'mlx5_11' port 1, ", 0) == 0);
    if (e.metric == "rate") rate_not_speed = e.threshold_text.find("not a link speed") != std::string::npos;
  }
  CHECK(rate_not_speed);
  CHECK(port_state_rule(port("mlx5_0", "MT4129", "400")).empty());
  // Non-standard phys_state text (case 019) is never a fault.
  CHECK(port_state_rule(port("mlx5_0", "MT4118", "25 Gb/sec (1X EDR)", "InfiniBand", "4: ACTIVE", "4: ACTIVE")).empty());
  CHECK(port_is_up(port("mlx5_0", "MT4118", "25", "InfiniBand", "4: ACTIVE", "4: ACTIVE")));
}

TEST_CASE("parse_rate_expectation: GBPS or MODEL=GBPS") {
  auto all = parse_rate_expectation("400");
  REQUIRE(all);
  CHECK(all->model.empty());
  CHECK(all->rate_gbps == 400);
  auto one = parse_rate_expectation("MT4129=400");
  REQUIRE(one);
  CHECK(one->model == "MT4129");
  CHECK_FALSE(parse_rate_expectation("fast"));
  CHECK_FALSE(parse_rate_expectation("0"));
  CHECK_FALSE(parse_rate_expectation("-400"));
  CHECK_FALSE(parse_rate_expectation("=400"));
}

TEST_CASE("rate below the majority of the same model is a warning naming both readings") {
  std::vector<RdmaPortFacts> ports = {port("mlx5_0", "MT4129", "400 Gb/sec (4X NDR)"),
                                      port("mlx5_1", "MT4129", "400 Gb/sec (4X NDR)"),
                                      port("mlx5_2", "MT4129", "200 Gb/sec (2X NDR)"),
                                      port("mlx5_3", "MT4129", "400 Gb/sec (4X NDR)"),
                                      port("mlx5_4", "MT4125", "100 Gb/sec (4X EDR)")};
  auto f = port_rate_findings(ports, {});
  REQUIRE(f.size() == 1);
  CHECK(f[0].code == "port_rate_below_peers");
  CHECK(f[0].severity == Severity::kWarn);
  CHECK(f[0].subject == "mlx5_2/1");
  CHECK(f[0].message.find("200 Gb/sec (2X NDR)") != std::string::npos);
  CHECK(f[0].message.find("3 of the 4 active MT4129 Ethernet ports") != std::string::npos);
  CHECK(f[0].message.find("400 Gb/sec (4X NDR)") != std::string::npos);
  CHECK(f[0].message.find("not a lane width") != std::string::npos);  // Ethernet: no lane claim
  CHECK(f[0].message.find("mlx5_4") == std::string::npos);            // the 100G frontend is no peer
  REQUIRE(f[0].evidence.size() == 2);
  CHECK(f[0].evidence[0].value == 200.0);
  CHECK(f[0].evidence[0].threshold == 400.0);
  CHECK(f[0].evidence[0].unit == "Gb/s");
}

TEST_CASE("on InfiniBand a lower lane count is named") {
  std::vector<RdmaPortFacts> ports = {port("mlx5_0", "MT4129", "400 Gb/sec (4X NDR)", "InfiniBand"),
                                      port("mlx5_1", "MT4129", "400 Gb/sec (4X NDR)", "InfiniBand"),
                                      port("mlx5_2", "MT4129", "200 Gb/sec (2X NDR)", "InfiniBand")};
  auto f = port_rate_findings(ports, {});
  REQUIRE(f.size() == 1);
  CHECK(f[0].message.find("trained 2X instead of 4X lanes") != std::string::npos);
}

TEST_CASE("down ports are not compared (their 40 is no speed), different models are not peers") {
  std::vector<RdmaPortFacts> ports = {port("mlx5_0", "MT4129", "400"), port("mlx5_3", "MT4129", "400"),
                                      port("mlx5_5", "MT4129", "40", "Ethernet", "1: DOWN", "3: Disabled"),
                                      port("mlx5_11", "MT4129", "40", "Ethernet", "1: DOWN", "2: Polling"),
                                      port("mlx5_1", "MT4125", "100"), port("mlx5_2", "MT4125", "100")};
  CHECK(port_rate_findings(ports, {}).empty());
}

TEST_CASE("without a majority the mismatch lists every reading, unknown model asks for it") {
  auto a = port("mlx5_0", "", "200 Gb/sec (4X HDR)");
  auto b = port("mlx5_1", "", "400 Gb/sec (4X NDR)");
  a.from_sysfs = b.from_sysfs = false;
  auto f = port_rate_findings({a, b}, {});
  REQUIRE(f.size() == 1);
  CHECK(f[0].code == "port_rate_mismatch");
  CHECK(f[0].subject == "mlx5_0/1, mlx5_1/1");
  CHECK(f[0].message.find("mlx5_0/1 200 Gb/sec (4X HDR), mlx5_1/1 400 Gb/sec (4X NDR)") != std::string::npos);
  CHECK(f[0].message.find("does not name the device model") != std::string::npos);
}

TEST_CASE("--expect-rate: below is an error and replaces the peer comparison, per model") {
  std::vector<RdmaPortFacts> ports = {port("mlx5_0", "MT4129", "200"), port("mlx5_1", "MT4129", "200"),
                                      port("mlx5_2", "MT4129", "200"), port("mlx5_4", "MT4125", "100")};
  auto f = port_rate_findings(ports, {RateExpectation{"MT4129", 400}});
  REQUIRE(f.size() == 3);
  for (const auto& x : f) {
    CHECK(x.code == "port_rate_below_expected");
    CHECK(x.severity == Severity::kError);
    CHECK(x.evidence[0].threshold == 400.0);
  }
  CHECK(port_rate_findings(ports, {RateExpectation{"", 100}}).empty());
  auto all = port_rate_findings(ports, {RateExpectation{"", 400}});
  CHECK(all.size() == 4);  // the frontend too: the user asked for 400 everywhere
}

TEST_CASE("RoCE MTU from the netdev MTU follows the kernel's iboe_get_mtu") {
  CHECK(roce_mtu_from_netdev_mtu(9000) == 4096);
  CHECK(roce_mtu_from_netdev_mtu(4200) == 4096);
  CHECK(roce_mtu_from_netdev_mtu(4191) == 2048);
  CHECK(roce_mtu_from_netdev_mtu(1500) == 1024);
  CHECK(roce_mtu_from_netdev_mtu(1024) == 512);
  CHECK(roce_mtu_from_netdev_mtu(100) == 0);
}

TEST_CASE("RoCE MTU below 4096 warns, InfiniBand ports and unknown MTUs are not judged") {
  auto p = port("mlx5_1", "MT4129", "400");
  p.netdev = "ens27np0";
  p.netdev_mtu_bytes = 1500;
  auto f = roce_mtu_findings(p);
  REQUIRE(f.size() == 1);
  CHECK(f[0].code == "roce_mtu_low");
  CHECK(f[0].severity == Severity::kWarn);
  CHECK(f[0].evidence[0].value == 1024.0);
  CHECK(f[0].evidence[0].threshold == 4096.0);
  CHECK(f[0].evidence[1].source == "/sys/class/net/ens27np0/mtu");
  CHECK(f[0].action.find("ip link set dev ens27np0 mtu 9000") != std::string::npos);
  p.netdev_mtu_bytes = 9000;
  CHECK(roce_mtu_findings(p).empty());
  p.active_mtu_bytes = 2048;  // ibv_devinfo's active_mtu wins over the derived one
  CHECK(roce_mtu_findings(p).size() == 1);
  auto ib = port("mlx5_0", "MT4129", "400", "InfiniBand");
  ib.active_mtu_bytes = 2048;
  CHECK(roce_mtu_findings(ib).empty());
  CHECK(roce_mtu_findings(port("mlx5_2", "MT4129", "400")).empty());
}

TEST_CASE("RoCE v2 GID: none on an up RoCE port is an error, unknown, down or IB ports are not judged") {
  auto p = port("mlx5_0", "MT4129", "400");
  p.rocev2_gids = std::vector<std::string>{};
  auto f = roce_gid_findings(p);
  REQUIRE(f.size() == 1);
  CHECK(f[0].code == "rocev2_gid_missing");
  CHECK(f[0].severity == Severity::kError);
  CHECK(f[0].evidence[0].source == "/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types");
  p.rocev2_gids = std::vector<std::string>{"0000:0000:0000:0000:0000:ffff:c000:020a"};
  CHECK(roce_gid_findings(p).empty());
  p.rocev2_gids.reset();
  CHECK(roce_gid_findings(p).empty());
  auto down = port("mlx5_3", "MT4129", "40", "Ethernet", "1: DOWN", "2: Polling");
  down.rocev2_gids = std::vector<std::string>{};
  CHECK(roce_gid_findings(down).empty());
}

TEST_CASE("ECN: rp_cnp_ignored > 0 fires the existing counter rule, other counters stay with `counters`") {
  auto f = ecn_findings({reading("rp_cnp_ignored", 1234), reading("rp_cnp_handled", 99),
                         reading("out_of_sequence", 500)});
  REQUIRE(f.size() == 1);
  CHECK(f[0].code == "ecn_not_enabled");
  CHECK(f[0].severity == Severity::kWarn);
  CHECK(f[0].subject == "mlx5_0/1");
  CHECK(ecn_findings({reading("rp_cnp_ignored", 0)}).empty());
}
