#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "probes/counters/sysfs_counters.h"
#include "tests/support/temp_tree.h"

using namespace fabdiag;
using fabdiag::testing::TempTree;

namespace {

const Counter* find(const Snapshot& s, const std::string& device, const std::string& name,
                    CounterGroup g) {
  for (const auto& c : s.samples)
    if (c.device == device && c.name == name && c.group == g) return &c;
  return nullptr;
}

const PortInfo* port(const Snapshot& s, const std::string& device) {
  for (const auto& p : s.ports)
    if (p.device == device) return &p;
  return nullptr;
}

size_t failures(const Snapshot& s) {
  return static_cast<size_t>(std::count_if(s.gaps.begin(), s.gaps.end(), is_failure));
}

// A fake driver-statistics source: fixed stats per netdev, errors for the rest.
class FakeEthtool : public EthtoolStatsSource {
 public:
  std::map<std::string, std::vector<EthtoolStat>> stats;
  Result<EthtoolStats> read_stats(const std::string& netdev) const override {
    auto it = stats.find(netdev);
    if (it == stats.end())
      return make_error(ErrorCode::kUnsupported, "driver has no ethtool statistics", netdev);
    return EthtoolStats{it->second, "fake " + netdev};
  }
  std::string describe() const override { return "fake"; }
};

void mlx5_port(const TempTree& t, const std::string& ib = "mlx5_0") {
  std::string p = "class/infiniband/" + ib + "/ports/1/";
  t.file(p + "state", "4: ACTIVE");
  t.file(p + "phys_state", "5: LinkUp");
  t.file(p + "rate", "400 Gb/sec (4X NDR)");
  t.file(p + "link_layer", "InfiniBand");
}

}  // namespace

TEST_CASE("parse_counter_text: values, N/A (no PMA), garbage") {
  CHECK(parse_counter_text("0", "x").value() == 0);
  CHECK(parse_counter_text("3481\n", "x").value() == 3481);
  CHECK(parse_counter_text("  42 ", "x").value() == 42);
  CHECK(parse_counter_text("18446744073709551615", "x").value() == UINT64_MAX);
  auto na = parse_counter_text("N/A (no PMA)", "/sys/x/symbol_error");
  REQUIRE_FALSE(na.ok());
  CHECK(na.error().code == ErrorCode::kUnsupported);
  CHECK(na.error().source == "/sys/x/symbol_error");
  CHECK_FALSE(is_failure(na.error()));
  for (const char* bad : {"12abc", "-1", "", "18446744073709551616", "1.5", "abc"}) {
    auto r = parse_counter_text(bad, "f");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kParse);
    CHECK(is_failure(r.error()));
  }
  CHECK(parse_counter_text("12abc", "f").error().message.find("12abc") != std::string::npos);
}

TEST_CASE("make_counter: 4-octet words become bytes, widths and saturation") {
  Counter d = make_counter("mlx5_0/1", CounterGroup::kIbPortCounters, "port_xmit_data", 10,
                           "mlx5_core", "src");
  CHECK(d.raw == 10);
  CHECK(d.value == 40);
  CHECK(d.scale == 4);
  CHECK(d.unit == "bytes");
  CHECK(d.width_bits == 64);
  // 2880761508848 words (case 019) = 11 523 046 035 392 bytes (about 11.5 TB).
  CHECK(make_counter("m", CounterGroup::kIbPortCounters, "port_xmit_data", 2880761508848ull,
                     "mlx5_core", "s").value == 11523046035392ull);
  // Scaling never overflows: it saturates at UINT64_MAX.
  CHECK(make_counter("m", CounterGroup::kIbPortCounters, "port_rcv_data", UINT64_MAX / 2,
                     "mlx5_core", "s").value == UINT64_MAX);

  Counter s = make_counter("m", CounterGroup::kIbPortCounters, "symbol_error", 65535, "x", "s");
  CHECK(s.width_bits == 16);
  CHECK(s.saturated);
  CHECK_FALSE(make_counter("m", CounterGroup::kIbPortCounters, "symbol_error", 65534, "x", "s").saturated);
  CHECK(make_counter("m", CounterGroup::kIbPortCounters, "link_downed", 255, "x", "s").saturated);
  CHECK(make_counter("m", CounterGroup::kIbPortCounters, "local_link_integrity_errors", 15, "x", "s").saturated);
  CHECK(make_counter("m", CounterGroup::kIbPortCounters, "port_xmit_wait", 4294967295u, "x", "s").saturated);
  // 32-bit (non-extended) data counter saturates; the 64-bit one does not.
  CHECK(make_counter("m", CounterGroup::kIbPortCounters, "port_xmit_data", 4294967295u, "x", "s", false).saturated);
  CHECK_FALSE(make_counter("m", CounterGroup::kIbPortCounters, "port_xmit_data", 4294967295u, "x", "s", true).saturated);
  // mlx5 Q counters wrap instead of saturating.
  Counter q = make_counter("m", CounterGroup::kIbHwCounters, "out_of_sequence", 4294967295u, "mlx5_core", "s");
  CHECK(q.wraps);
  CHECK(q.width_bits == 32);
  CHECK_FALSE(q.saturated);
  // Aliases carry their meaning-level name.
  CHECK(make_counter("b", CounterGroup::kIbHwCounters, "to_retransmits", 1, "bnxt_en", "s").canonical ==
        "local_ack_timeout_err");
}

TEST_CASE("parse_numbered_state") {
  auto a = parse_numbered_state("4: ACTIVE");
  REQUIRE(a);
  CHECK(a->number == 4);
  CHECK(a->name == "ACTIVE");
  auto b = parse_numbered_state("5: LinkUp\n");
  REQUIRE(b);
  CHECK(b->number == 5);
  CHECK(b->name == "LinkUp");
  CHECK_FALSE(parse_numbered_state("ACTIVE"));
  CHECK_FALSE(parse_numbered_state(""));
  CHECK_FALSE(parse_numbered_state("x: y"));
  CHECK_FALSE(parse_numbered_state("-1: y"));
}

TEST_CASE("snapshot of an IB port: attributes, counters, hw_counters, lifespan skipped") {
  TempTree t;
  mlx5_port(t);
  t.file("class/infiniband/mlx5_0/ports/1/counters/symbol_error", "3");
  t.file("class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", "100");
  t.file("class/infiniband/mlx5_0/ports/1/counters/unicast_xmit_packets", "5");
  t.file("class/infiniband/mlx5_0/ports/1/hw_counters/lifespan", "10");
  t.file("class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence", "7");
  t.file("class/infiniband/mlx5_0/hw_counters/device_level", "9");
  t.dir("class/net");
  Snapshot s = read_counter_snapshot(FsRoot(t.root(), "/proc"), {});
  const PortInfo* p = port(s, "mlx5_0/1");
  REQUIRE(p);
  CHECK(p->ibdev == "mlx5_0");
  CHECK(p->port == 1);
  CHECK(p->is_rdma);
  CHECK(p->state == "4: ACTIVE");
  CHECK(p->phys_state == "5: LinkUp");
  CHECK(p->rate == "400 Gb/sec (4X NDR)");
  CHECK(p->link_layer == "InfiniBand");
  const Counter* se = find(s, "mlx5_0/1", "symbol_error", CounterGroup::kIbPortCounters);
  REQUIRE(se);
  CHECK(se->value == 3);
  CHECK(se->source == t.root() + "/class/infiniband/mlx5_0/ports/1/counters/symbol_error");
  const Counter* xd = find(s, "mlx5_0/1", "port_xmit_data", CounterGroup::kIbPortCounters);
  REQUIRE(xd);
  CHECK(xd->value == 400);
  CHECK(xd->width_bits == 64);  // unicast_* present: PortCountersExtended
  const Counter* oos = find(s, "mlx5_0/1", "out_of_sequence", CounterGroup::kIbHwCounters);
  REQUIRE(oos);
  CHECK(oos->width_bits == 32);  // mlx5 by ibdev name (no driver link in this tree)
  CHECK(oos->wraps);
  CHECK_FALSE(find(s, "mlx5_0/1", "lifespan", CounterGroup::kIbHwCounters));
  const Counter* dl = find(s, "mlx5_0", "device_level", CounterGroup::kIbHwCounters);
  REQUIRE(dl);
  CHECK(dl->value == 9);
  CHECK(s.gaps.empty());
  CHECK_FALSE(s.taken_at.empty());
}

TEST_CASE("32-bit data counters when the port has no PortCountersExtended") {
  TempTree t;
  mlx5_port(t, "mthca0");
  t.file("class/infiniband/mthca0/ports/1/counters/port_xmit_data", "4294967295");
  t.file("class/infiniband/mthca0/ports/1/counters/port_rcv_data", "12");
  t.dir("class/net");
  Snapshot s = read_counter_snapshot(FsRoot(t.root(), "/proc"), {});
  const Counter* xd = find(s, "mthca0/1", "port_xmit_data", CounterGroup::kIbPortCounters);
  REQUIRE(xd);
  CHECK(xd->width_bits == 32);
  CHECK(xd->saturated);
  CHECK(xd->value == 4294967295ull * 4);
}

TEST_CASE("gaps: irdma without counters/, N/A (no PMA), garbage, vanished counter, subdirectory") {
  TempTree t;
  mlx5_port(t, "irdma0");
  t.file("class/infiniband/irdma0/ports/1/hw_counters/cnpHandled", "12");
  mlx5_port(t, "qedr0");
  t.file("class/infiniband/qedr0/ports/1/counters/symbol_error", "N/A (no PMA)");
  t.file("class/infiniband/qedr0/ports/1/counters/link_downed", "N/A (no PMA)");
  mlx5_port(t);
  t.file("class/infiniband/mlx5_0/ports/1/counters/symbol_error", "12abc");
  t.file("class/infiniband/mlx5_0/ports/1/counters/link_downed", "1");
  t.link("class/infiniband/mlx5_0/ports/1/counters/port_rcv_errors", "gone_meanwhile");
  t.dir("class/infiniband/mlx5_0/ports/1/counters/some_subdir");
  t.dir("class/net");
  Snapshot s = read_counter_snapshot(FsRoot(t.root(), "/proc"), {});

  // irdma: the port is listed, its hw_counters are read, the missing counters/ is normal.
  REQUIRE(port(s, "irdma0/1"));
  CHECK(find(s, "irdma0/1", "cnpHandled", CounterGroup::kIbHwCounters));
  // Other counters survive the garbage.
  const Counter* ld = find(s, "mlx5_0/1", "link_downed", CounterGroup::kIbPortCounters);
  REQUIRE(ld);
  CHECK(ld->value == 1);
  CHECK_FALSE(find(s, "mlx5_0/1", "symbol_error", CounterGroup::kIbPortCounters));
  CHECK_FALSE(find(s, "qedr0/1", "symbol_error", CounterGroup::kIbPortCounters));

  int irdma = 0, no_pma = 0, garbage = 0, vanished = 0;
  for (const auto& g : s.gaps) {
    INFO(g.to_string());
    if (g.code == ErrorCode::kNotFound && g.source.find("irdma0") != std::string::npos) ++irdma;
    if (g.code == ErrorCode::kUnsupported && g.source.find("qedr0") != std::string::npos) {
      ++no_pma;
      CHECK(g.message.find("2 counter(s)") != std::string::npos);
      CHECK(g.message.find("symbol_error") != std::string::npos);
      CHECK(g.message.find("link_downed") != std::string::npos);
    }
    if (g.code == ErrorCode::kParse) {
      ++garbage;
      CHECK(g.source.find("mlx5_0/ports/1/counters/symbol_error") != std::string::npos);
    }
    if (g.code == ErrorCode::kNotFound && g.message.find("vanished") != std::string::npos) ++vanished;
  }
  CHECK(irdma == 1);
  CHECK(no_pma == 1);  // one gap for the directory, not one per counter
  CHECK(garbage == 1);
  CHECK(vanished == 1);
  CHECK(failures(s) == 1);  // only the garbage is a failure
  CHECK(s.gaps.size() == 4);
}

TEST_CASE("netdevs: statistics, attributes, pairing with the RDMA port, driver, ethtool source") {
  TempTree t;
  std::string pci = "devices/pci0000:00/0000:00:02.0/0000:17:00.0";
  t.dir("bus/pci/drivers/mlx5_core");
  t.link(pci + "/driver", "../../../../bus/pci/drivers/mlx5_core");
  t.link("class/infiniband/mlx5_0", "../../" + pci + "/infiniband/mlx5_0");
  t.link(pci + "/infiniband/mlx5_0/device", "../../../0000:17:00.0");
  t.link("class/net/ens1f0np0", "../../" + pci + "/net/ens1f0np0");
  t.link("class/net/ens1f1np1", "../../" + pci + "/net/ens1f1np1");
  t.link(pci + "/net/ens1f0np0/device", "../../../0000:17:00.0");
  t.link(pci + "/net/ens1f1np1/device", "../../../0000:17:00.0");
  t.file("class/net/ens1f0np0/dev_port", "0");
  t.file("class/net/ens1f1np1/dev_port", "1");
  mlx5_port(t);
  std::string p2 = "class/infiniband/mlx5_0/ports/2/";
  t.file(p2 + "state", "1: DOWN");
  t.file(p2 + "counters/link_downed", "0");
  t.file("class/net/ens1f0np0/operstate", "up");
  t.file("class/net/ens1f0np0/speed", "400000");
  t.file("class/net/ens1f0np0/type", "1");
  t.file("class/net/ens1f0np0/statistics/rx_bytes", "1000");
  t.file("class/net/ens1f0np0/statistics/rx_crc_errors", "2");
  t.file("class/net/ens1f1np1/operstate", "down");
  t.file("class/net/ens1f1np1/speed", "-1");
  t.file("class/net/lo/type", "772");
  t.file("class/net/lo/statistics/rx_bytes", "5");

  FakeEthtool eth;
  eth.stats["ens1f0np0"] = {{"rx_pause_ctrl_phy", 11}, {"rx_prio3_pause_duration", 250}};
  CounterReadOptions opts;
  opts.ethtool = &eth;
  Snapshot s = read_counter_snapshot(FsRoot(t.root(), "/proc"), opts);

  const PortInfo* p1 = port(s, "mlx5_0/1");
  const PortInfo* pp2 = port(s, "mlx5_0/2");
  REQUIRE(p1);
  REQUIRE(pp2);
  CHECK(p1->netdev == "ens1f0np0");
  CHECK(pp2->netdev == "ens1f1np1");
  CHECK(p1->driver == "mlx5_core");
  const PortInfo* nd = port(s, "ens1f0np0");
  REQUIRE(nd);
  CHECK_FALSE(nd->is_rdma);
  CHECK(nd->state == "up");
  CHECK(nd->rate == "400000 Mb/s");
  CHECK(nd->link_layer == "Ethernet");
  CHECK(nd->driver == "mlx5_core");
  const PortInfo* down = port(s, "ens1f1np1");
  REQUIRE(down);
  CHECK(down->rate.empty());  // speed -1: link down
  CHECK(port(s, "lo")->link_layer == "Loopback");

  const Counter* crc = find(s, "ens1f0np0", "rx_crc_errors", CounterGroup::kNetdevStats);
  REQUIRE(crc);
  CHECK(crc->value == 2);
  CHECK(crc->category == CounterCategory::kPhyError);
  const Counter* pause = find(s, "ens1f0np0", "rx_pause_ctrl_phy", CounterGroup::kEthtoolStats);
  REQUIRE(pause);
  CHECK(pause->value == 11);
  CHECK(pause->category == CounterCategory::kPause);
  CHECK(pause->source == "fake ens1f0np0");
  CHECK(find(s, "ens1f0np0", "rx_prio3_pause_duration", CounterGroup::kEthtoolStats)->unit == "us");
  // Netdevs without driver stats are unsupported gaps (not failures).
  CHECK(failures(s) == 0);
  int unsupported = 0;
  for (const auto& g : s.gaps)
    if (g.code == ErrorCode::kUnsupported) ++unsupported;
  CHECK(unsupported == 2);  // ens1f1np1 and lo

  SUBCASE("device filter") {
    CounterReadOptions only;
    only.devices = {"mlx5_0/2", "lo"};
    Snapshot f = read_counter_snapshot(FsRoot(t.root(), "/proc"), only);
    CHECK(f.ports.size() == 2);
    CHECK(port(f, "mlx5_0/2"));
    CHECK(port(f, "lo"));
    CHECK_FALSE(find(f, "ens1f0np0", "rx_bytes", CounterGroup::kNetdevStats));
    CounterReadOptions by_ibdev;
    by_ibdev.devices = {"mlx5_0"};
    CHECK(read_counter_snapshot(FsRoot(t.root(), "/proc"), by_ibdev).ports.size() == 2);
  }
}

TEST_CASE("a tree with neither class/net nor class/infiniband is a failure gap") {
  TempTree t;
  t.dir("devices");
  Snapshot s = read_counter_snapshot(FsRoot(t.root(), "/proc"), {});
  CHECK(s.samples.empty());
  REQUIRE(s.gaps.size() == 1);
  CHECK(s.gaps[0].message.find("not a sysfs tree") != std::string::npos);
  CHECK(s.gaps[0].code == ErrorCode::kInvalidArgument);
  CHECK(is_failure(s.gaps[0]));
}
