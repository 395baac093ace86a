// syslog carrier-loss import: counting per interface, one event per flap, 24 h windows.
#include <doctest/doctest.h>

#include "tests/support/import_test_util.h"
#include "import/syslog.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kFlaps = "tests/fixtures/counters-faults/carrier-flaps.syslog.txt";
}

TEST_CASE("syslog fixture: carrier losses per interface, link up and downshift lines do not count") {
  auto imp = import_repo_file(CounterImportFormat::kSyslog, kFlaps);
  const auto& s = imp.series.at(0).at(0).samples;
  auto count = [&](const std::string& dev, const std::string& name) -> std::optional<uint64_t> {
    for (const auto& c : s)
      if (c.device == dev && c.name == name) return c.value;
    return std::nullopt;
  };
  // enp59s0f0: 5 "NIC Link is Down" + 1 standalone "Lost carrier"; the "Lost carrier" logged
  // with the 17:45:33 kernel line is the same flap.
  CHECK(count("enp59s0f0", "carrier_lost_events") == 6);
  CHECK(count("enp59s0f0", "carrier_lost_events_max_24h") == 6);
  CHECK(imp.facts["interfaces"]["enp59s0f0"]["lines_merged_into_one_event"] == 1);
  CHECK(count("ens1f0np0", "carrier_lost_events") == 1);
  CHECK_FALSE(count("eno1", "carrier_lost_events"));
  CHECK_FALSE(count("eno2", "carrier_lost_events"));
  CHECK(s.front().group == CounterGroup::kLogEvents);
}

TEST_CASE("syslog fixture verdict: >= 5 in 24 h is an error, one loss a warn, nothing else") {
  auto r = interpret_repo_file(CounterImportFormat::kSyslog, kFlaps);
  REQUIRE(r.result.findings.size() == 2);
  const Finding* e = finding(r.result, "link_flap", "enp59s0f0");
  REQUIRE(e);
  CHECK(e->severity == Severity::kError);
  CHECK(e->layer == Layer::kPhysical);
  bool nhc = false;
  for (const auto& ev : e->evidence) nhc = nhc || ev.threshold_text.find("Azure NHC") != std::string::npos;
  CHECK(nhc);
  const Finding* w = finding(r.result, "link_flap", "ens1f0np0");
  REQUIRE(w);
  CHECK(w->severity == Severity::kWarn);
}

TEST_CASE("syslog: phrases, interfaces, timestamps") {
  auto imp = import_syslog(
      "2024-01-10T00:00:00+00:00 h kernel: e1000e: eth0 NIC Link is Down\n"
      "2024-01-10T13:00:00+00:00 h kernel: tg3 0000:01:00.0 eth0: Link is down\n"
      "2024-01-11T02:00:00+00:00 h kernel: tg3 0000:01:00.0 eth0: Link is down\n"
      "2024-01-12T02:00:00+00:00 h kernel: tg3 0000:01:00.0 eth0: Link is up at 1000 Mbps\n"
      "[ 12.5] ib0: lost carrier\n",
      "l");
  REQUIRE(imp.ok());
  const auto& s = imp->series[0][0].samples;
  REQUIRE(s.size() == 4);
  CHECK(s[0].device == "eth0");
  CHECK(s[0].value == 3);
  CHECK(s[1].name == "carrier_lost_events_max_24h");
  CHECK(s[1].value == 2);  // 00:00 and 13:00 of the 10th, or 13:00 and 02:00: never all three
  CHECK(s[2].device == "ib0");
  CHECK(log_line_time_s("Jan 10 12:00:01 host x").has_value());
  CHECK(log_line_time_s("[Wed Jan 10 12:00:01 2024] x").has_value());
  CHECK(*log_line_time_s("[  100.5] x") == doctest::Approx(100.5));
  CHECK(*log_line_time_s("2024-01-11T00:00:00Z x") - *log_line_time_s("2024-01-10T00:00:00Z x") ==
        doctest::Approx(86400));
  CHECK_FALSE(log_line_time_s("no time here").has_value());
  // A healthy log is a valid input with no counters; an empty one is not.
  auto quiet = import_syslog("Jan 10 12:00:01 h kernel: all good\n", "q");
  REQUIRE(quiet.ok());
  CHECK(quiet->series[0][0].samples.empty());
  CHECK_FALSE(import_syslog("\n\n", "e").ok());
}

namespace {
std::optional<uint64_t> events_of(const CounterImport& imp, const std::string& dev) {
  for (const auto& c : imp.series.at(0).at(0).samples)
    if (c.device == dev && c.name == "carrier_lost_events") return c.value;
  return std::nullopt;
}
}  // namespace

TEST_CASE("syslog: one driver's losses seconds apart are separate flaps (cases w207, w208)") {
  auto w208 = import_repo_file(CounterImportFormat::kSyslog,
                               "tests/fixtures/cases/w208-dmesg-igb-ens4-link-up-down-every-few-seconds.input.txt");
  CHECK(events_of(w208, "ens4") == 4);  // 333.5, 337.3, 353.3, 357.0 s
  CHECK(w208.facts["interfaces"]["ens4"]["lines_merged_into_one_event"] == 0);
  auto w207 = import_repo_file(CounterImportFormat::kSyslog,
                               "tests/fixtures/cases/w207-dmesg-T-e1000e-eth1-link-flaps-over-13-hours.input.txt");
  CHECK(events_of(w207, "eth1") == 6);
  CHECK(events_of(w207, "eth0") == 2);  // 12:13:08 and 12:13:16, a link-up between
  auto r = interpret_repo_file(CounterImportFormat::kSyslog,
                               "tests/fixtures/cases/w207-dmesg-T-e1000e-eth1-link-flaps-over-13-hours.input.txt");
  REQUIRE(finding(r.result, "link_flap", "eth1"));
  CHECK(finding(r.result, "link_flap", "eth1")->severity == Severity::kError);
  CHECK(finding(r.result, "link_flap", "eth0")->severity == Severity::kWarn);
}

TEST_CASE("syslog: a line printed twice in one second is one event, two loggers within 10 s are one (case w209)") {
  auto w209 = import_repo_file(
      CounterImportFormat::kSyslog,
      "tests/fixtures/cases/w209-journalctl-asix-usb-nic-link-down-every-12-seconds.input.txt");
  CHECK(events_of(w209, "enx00000000000a") == 4);
  CHECK(w209.facts["interfaces"]["enx00000000000a"]["lines_merged_into_one_event"] == 1);
  auto two = import_syslog(
      "Mar 01 10:00:00 h kernel: mlx5_core 0000:17:00.0 ens1f0: Link down\n"
      "Mar 01 10:00:02 h NetworkManager[812]: <info> ens1f0: lost carrier\n"
      "Mar 01 10:00:05 h kernel: mlx5_core 0000:17:00.0 ens1f0: Link down\n"
      "Mar 01 10:00:20 h kernel: mlx5_core 0000:17:00.0 ens1f0: Link up\n"
      "Mar 01 10:00:21 h systemd-networkd[90]: ens1f0: Lost carrier\n",
      "l");
  REQUIRE(two.ok());
  // 10:00:00 kernel (counted), 10:00:02 NetworkManager (the same flap), 10:00:05 kernel again
  // (a second flap), 10:00:21 after a link-up (a third).
  CHECK(events_of(*two, "ens1f0") == 3);
  CHECK(two->facts["interfaces"]["ens1f0"]["lines_merged_into_one_event"] == 1);
}
