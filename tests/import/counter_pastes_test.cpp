// Counter pastes as operators make them (cases w203, w204, w212, w213, w220): a command line
// naming the netdev of the counters after it ("# ethtool -S X | grep prio", four "sudo ethtool
// -S ethN | grep lsc_int" commands), a "=== ./name ===" cat loop under a sysfs prompt, a grep
// through /sys/devices with "N/A (no PMA)" values, bnxt_en per-ring lines and ring discards.
#include <doctest/doctest.h>

#include "import/format_detect.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kW203 = "tests/fixtures/cases/w203-ethtool-s-ice-e810-prio-xoff-per-tc-identical-counts.input.txt";
constexpr const char* kW204 = "tests/fixtures/cases/w204-ethtool-s-bnxt-en-ring-discards-no-pause.input.txt";
constexpr const char* kW212 = "tests/fixtures/cases/w212-sysfs-ib-counters-cat-loop-pinned-link-downed-discards.input.txt";
constexpr const char* kW213 = "tests/fixtures/cases/w213-sysfs-grep-iwarp-i40iw-counters-no-pma.input.txt";
constexpr const char* kW220 = "tests/fixtures/cases/w220-ethtool-s-grep-lsc-int-four-ports-eth11-link-changes.input.txt";

const Counter* reading(const InterpretInput& in, const std::string& dev, const std::string& name) {
  const CounterChange* c = change(in, dev, name);
  return c ? &c->counter : nullptr;
}
}  // namespace

TEST_CASE("w220: each command line names its netdev, lsc_int 115 on eth11 alone is a link flap") {
  CHECK(detect_counter_import_format(repo_text(kW220)) == CounterImportFormat::kEthtoolS);
  auto imp = import_repo_file(CounterImportFormat::kEthtoolS, kW220);
  REQUIRE(imp.series.size() == 4);  // four devices, not four snapshots of one
  CHECK(imp.gaps.empty());
  auto r = interpret_repo_file(CounterImportFormat::kEthtoolS, kW220);
  REQUIRE(reading(r.combined.input, "eth11", "lsc_int"));
  CHECK(reading(r.combined.input, "eth11", "lsc_int")->value == 115);
  CHECK(reading(r.combined.input, "eth8", "lsc_int")->value == 0);
  auto p = problems(r.result);
  REQUIRE(p.size() == 1);
  CHECK(p[0]->code == "link_flap");
  CHECK(p[0]->subject == "eth11");
  CHECK(p[0]->severity == Severity::kWarn);
}

TEST_CASE("w203: the '# ethtool -S IF | grep prio' line names the netdev, ice per-TC XOFF counts are info") {
  auto r = interpret_repo_file(CounterImportFormat::kEthtoolS, kW203);
  REQUIRE(reading(r.combined.input, "enp175s0f0", "tx_priority_2_xoff.nic"));
  CHECK(reading(r.combined.input, "enp175s0f0", "tx_priority_2_xoff.nic")->value == 14864);
  CHECK(reading(r.combined.input, "enp175s0f0", "tx_priority_5_xoff.nic")->value == 6434);
  CHECK_FALSE(change(r.combined.input, "netdev", "tx_priority_2_xoff.nic"));
  CHECK(problems(r.result).empty());
}

TEST_CASE("w204: bnxt_en ring discards (655 M) are receiver starvation, its ring lines are not port totals") {
  auto r = interpret_repo_file(CounterImportFormat::kEthtoolS, kW204);
  const Counter* d = reading(r.combined.input, "netdev", "rx_total_ring_discards");
  REQUIRE(d);
  CHECK(d->value == 655430134u);
  CHECK(d->canonical == "rx_out_of_buffer");
  auto p = problems(r.result);
  REQUIRE(p.size() == 1);
  CHECK(p[0]->code == "rx_starvation");
  CHECK(p[0]->severity == Severity::kWarn);
  for (const char* no : {"phy_degradation", "link_flap", "pfc_storm", "lossy_roce"}) CHECK_FALSE(finding(r.result, no));
}

TEST_CASE("w212: a '=== ./name ===' loop under a sysfs prompt, link_downed 255 and discards 65535 pinned") {
  CHECK(detect_counter_import_format(repo_text(kW212)) == CounterImportFormat::kEthtoolS);
  auto r = interpret_repo_file(CounterImportFormat::kEthtoolS, kW212);
  CHECK(r.combined.gaps.empty());
  const Counter* down = reading(r.combined.input, "mlx5_1/1", "link_downed");
  REQUIRE(down);
  CHECK(down->value == 255);
  CHECK(down->saturated);
  const Counter* disc = reading(r.combined.input, "mlx5_1/1", "port_xmit_discards");
  REQUIRE(disc);
  CHECK(disc->saturated);
  CHECK(reading(r.combined.input, "mlx5_1/1", "excessive_buffer_overrun_errors")->saturated);
  CHECK(reading(r.combined.input, "mlx5_1/1", "port_xmit_data")->value == 205143497464492ull * 4);
  const Finding* flap = finding(r.result, "link_flap", "mlx5_1/1");
  REQUIRE(flap);
  CHECK(flap->severity >= Severity::kWarn);
  REQUIRE(finding(r.result, "xmit_discards", "mlx5_1/1"));
  CHECK_FALSE(finding(r.result, "phy_degradation"));
}

TEST_CASE("w213: path:value lines through /sys/devices, 'N/A (no PMA)' is unavailable, not a failure") {
  CHECK(detect_counter_import_format(repo_text(kW213)) == CounterImportFormat::kEthtoolS);
  auto imp = import_repo_file(CounterImportFormat::kEthtoolS, kW213);
  REQUIRE(imp.ports.size() == 1);
  CHECK(imp.ports[0].device == "i40iw0/1");
  auto r = interpret_repo_file(CounterImportFormat::kEthtoolS, kW213);
  CHECK(problems(r.result).empty());
  for (const auto& g : r.combined.gaps) CHECK(g.code == ErrorCode::kUnsupported);
}
