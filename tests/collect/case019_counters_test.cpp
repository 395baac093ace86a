// Case 019 (shared/cases/019-sysfs-ib-cqe-errors-25g-1x): sysfs tree of hfi1_0, mlx4_0, mlx5_0,
// committed as tests/fixtures/case019 (built by scripts/sysfs-from-lines.sh).
#include <doctest/doctest.h>

#include "rules/counter_rules.h"
#include "probes/counters/sysfs_counters.h"

using namespace fabdiag;

namespace {

Snapshot case019() {
  FsRoot fs(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/case019", "/proc");
  return read_counter_snapshot(fs, {});
}

uint64_t value(const Snapshot& s, const std::string& device, const std::string& name) {
  for (const auto& c : s.samples)
    if (c.device == device && c.name == name) return c.value;
  FAIL("counter not found: " << device << " " << name);
  return 0;
}

const PortInfo& port(const Snapshot& s, const std::string& device) {
  for (const auto& p : s.ports)
    if (p.device == device) return p;
  FAIL("port not found: " << device);
  static PortInfo none;
  return none;
}

}  // namespace

TEST_CASE("case 019: expected values") {
  Snapshot s = case019();
  REQUIRE(s.ports.size() == 4);  // hfi1_0/1, mlx4_0/1, mlx4_0/2, mlx5_0/1
  const char* hw[][2] = {{"req_cqe_error", "3481"},        {"resp_cqe_error", "8109"},
                         {"resp_cqe_flush_error", "4708"}, {"req_cqe_flush_error", "80"},
                         {"local_ack_timeout_err", "131"}, {"roce_adp_retrans", "99"},
                         {"roce_adp_retrans_to", "4"},     {"roce_slow_restart_cnps", "131"},
                         {"duplicate_request", "41"},      {"out_of_sequence", "1"},
                         {"packet_seq_err", "1"},          {"rnr_nak_retry_err", "0"},
                         {"out_of_buffer", "0"}};
  for (auto& counter : hw) {
    auto& [name, v] = counter;
    INFO(counter[0]);  // clang 14 cannot capture a structured binding
    CHECK(value(s, "mlx5_0/1", name) == std::stoull(v));
  }
  const PortInfo& m5 = port(s, "mlx5_0/1");
  CHECK(m5.rate == "25 Gb/sec (1X EDR)");
  CHECK(m5.link_layer == "InfiniBand");
  CHECK(m5.state == "4: ACTIVE");
  CHECK(m5.phys_state == "4: ACTIVE");
  for (const char* d : {"mlx4_0/1", "mlx4_0/2"}) {
    CHECK(port(s, d).rate == "40 Gb/sec (4X QDR)");
    CHECK(port(s, d).state == "4: ACTIVE");
    CHECK(port(s, d).phys_state == "5: LinkUp");
  }
  CHECK(value(s, "mlx4_0/1", "port_xmit_wait") == 3599);
  CHECK(value(s, "mlx4_0/2", "port_xmit_wait") == 3846);
  CHECK(port(s, "hfi1_0/1").rate == "100 Gb/sec (4X EDR)");
  CHECK(value(s, "hfi1_0/1", "port_xmit_wait") == 0);
  for (const char* d : {"hfi1_0/1", "mlx4_0/1", "mlx4_0/2", "mlx5_0/1"})
    for (const char* n : {"symbol_error", "link_downed", "link_error_recovery", "port_rcv_errors",
                          "port_xmit_discards", "local_link_integrity_errors",
                          "excessive_buffer_overrun_errors", "VL15_dropped"}) {
      INFO(d << " " << n);
      CHECK(value(s, d, n) == 0);
    }
  // 4-octet words: 2880761508848 words = 11.52 TB.
  CHECK(value(s, "mlx5_0/1", "port_xmit_data") == 2880761508848ull * 4);
  // Nothing failed to read (the only gap is the absent class/net).
  for (const auto& g : s.gaps) CHECK_FALSE(is_failure(g));
}

TEST_CASE("case 019: verdict warn L3 on mlx5_0/1, no physical-layer finding, no rates") {
  Snapshot s = case019();
  auto readings = snapshot_readings(s);
  for (const auto& r : readings) {
    CHECK_FALSE(r.rate_per_s.has_value());
    CHECK_FALSE(r.delta.has_value());
  }
  auto fs = evaluate_counter_rules(s.ports, readings, std::nullopt);
  bool cqe = false, loss = false;
  for (const auto& f : fs) {
    INFO(f.code << " " << f.subject << " " << f.message);
    CHECK(f.layer != Layer::kPhysical);  // PHY counters are all zero; "1X EDR" is not a fault
    CHECK(f.subject == "mlx5_0/1");      // mlx4_0 (port_xmit_wait) and hfi1_0 are healthy
    CHECK(f.severity == Severity::kWarn);
    CHECK(f.layer == Layer::kTransport);
    CHECK(f.message.find("no rate") != std::string::npos);
    if (f.code == "rdma_cqe_errors") cqe = true;
    if (f.code == "rdma_packet_loss") {
      loss = true;
      bool ack = false;
      for (const auto& e : f.evidence)
        if (e.metric.find("local_ack_timeout_err") == 0) {
          ack = true;
          CHECK(*e.value == 131.0);
        }
      CHECK(ack);
    }
  }
  CHECK(cqe);
  CHECK(loss);
  CHECK(fs.size() == 2);
}
