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
