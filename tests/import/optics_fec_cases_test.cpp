// ethtool -m case 031 (shared/cases/031-ethtool-m-sfp-10g-lr-rx-minus40dbm-loss-of-light) and
// ethtool --show-fec case 036 (shared/cases/036-ethtool-show-fec-per-lane-corrected-uncorrectable-blocks)
// through the same import and interpretation as `fabdiag import ethtool-m|ethtool-fec FILE`.
#include <doctest/doctest.h>

#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kCase031 = "tests/fixtures/cases/031-ethtool-m-sfp-10g-lr-rx-minus40dbm-loss-of-light.input.txt";
constexpr const char* kCase036 =
    "tests/fixtures/cases/036-ethtool-show-fec-per-lane-corrected-uncorrectable-blocks.input.txt";
}  // namespace

TEST_CASE("case 031: enp3s0f0 has no light, enp3s0f1 has no DOM and is not judged") {
  auto imp = import_repo_file(CounterImportFormat::kEthtoolM, kCase031);
  CHECK(imp.ports.size() == 2);  // two modules
  REQUIRE(imp.optics.size() == 1);  // one with diagnostics
  const auto& m = imp.optics[0];
  CHECK(m.netdev == "enp3s0f0");
  REQUIRE(m.lanes.size() == 1);
  CHECK(*m.lanes[0].rx_power_mw == doctest::Approx(0.0001));
  CHECK(*m.lanes[0].tx_bias_ma == doctest::Approx(32.066));
  CHECK(*m.temperature_c == doctest::Approx(41.05));
  CHECK(imp.facts["modules_without_diagnostics"][0] == "enp3s0f1");
  CHECK(imp.gaps.empty());  // the mail's wrapped continuation lines do not break parsing

  auto r = interpret_repo_file(CounterImportFormat::kEthtoolM, kCase031);
  const Finding* f = nullptr;
  for (const auto& x : r.result.findings)
    if (x.subject.find("enp3s0f0") != std::string::npos && x.severity >= Severity::kError) f = &x;
  REQUIRE(f);
  CHECK(f->message.find("RX power -40.00 dBm") != std::string::npos);
  CHECK(f->message.find("-13.10 dBm") != std::string::npos);
  // must not: a warn-or-worse finding on enp3s0f1
  for (const auto* p : problems(r.result)) CHECK(p->subject.find("enp3s0f1") == std::string::npos);
}

TEST_CASE("case 036: per-lane FEC counters, 145 uncorrectable blocks warn on eth0") {
  auto r = interpret_repo_file(CounterImportFormat::kEthtoolFec, kCase036);
  const auto& in = r.combined.input;
  const CounterChange* unc = change(in, "eth0", "fec-uncorrectable_blocks");
  REQUIRE(unc);
  CHECK(unc->counter.value == 145);
  CHECK(change(in, "eth0", "fec-uncorrectable_blocks_lane0")->counter.value == 128);
  CHECK(change(in, "eth0", "fec-uncorrectable_blocks_lane1")->counter.value == 17);
  CHECK(change(in, "eth0", "fec-corrected_blocks")->counter.value == 256);
  CHECK(change(in, "eth0", "fec-corrected_blocks_lane0")->counter.value == 255);
  CHECK(change(in, "eth0", "fec-corrected_blocks_lane1")->counter.value == 1);
  auto p = problems(r.result);
  REQUIRE(p.size() == 1);
  CHECK(p[0]->severity == Severity::kWarn);
  CHECK(p[0]->subject == "eth0");
  CHECK(p[0]->message.find("uncorrectable") != std::string::npos);
}
