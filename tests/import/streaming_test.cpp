// Readers stream: fed a generated input of many records (never held in memory), they keep
// bounded state (three snapshots a series, max_listed tables and gaps) and summarise the rest.
#include <doctest/doctest.h>

#include <cstring>
#include <functional>

#include "import/ethtool_s.h"
#include "import/nccl_tests.h"
#include "import/syslog.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {

// Lines made on demand: `record(i)` gives record i (one or more lines) for i < records.
std::unique_ptr<LineSource> generated(size_t records, std::function<std::string(size_t)> record) {
  auto state = std::make_shared<std::pair<size_t, std::string>>(0, std::string());
  auto offset = std::make_shared<size_t>(0);
  return std::make_unique<ChunkLineSource>([=](char* buf, size_t size) -> Result<size_t> {
    auto& [next, pending] = *state;
    while (pending.size() - *offset < size && next < records) {
      pending.erase(0, *offset);
      *offset = 0;
      pending += record(next++);
    }
    size_t n = std::min(size, pending.size() - *offset);
    std::memcpy(buf, pending.data() + *offset, n);
    *offset += n;
    return n;
  });
}

uint64_t value_of(const Snapshot& s, const std::string& name) {
  for (const auto& c : s.samples)
    if (c.name == name) return c.value;
  FAIL("no " << name);
  return 0;
}

const std::string kTable =
    "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
    "   268435456      67108864     float     sum   122131    2.20    4.33  2e-06   122165    2.20    4.33  2e-06\n"
    "   536870912     134217728     float     sum   244833    2.19    4.32  2e-06   244844    2.19    4.32  2e-06\n"
    "# Out of bounds values : 0 OK\n"
    "# Avg bus bandwidth    : 4.32178\n";

}  // namespace

TEST_CASE("ethtool -S: 20,000 pasted snapshots of two NICs keep three snapshots a NIC") {
  const size_t n = 20000;
  auto lines = generated(n, [](size_t i) {
    std::string nd = i % 2 ? "ens1f1np1" : "ens1f0np0";
    return "root@node07:~# ethtool -S " + nd + "\nNIC statistics:\n     rx_packets: " + std::to_string(1000 + i) +
           "\n     rx_crc_errors_phy: " + std::to_string(i / 2) + "\n";
  });
  auto imp = import_ethtool_s(*lines, "paste.txt", "", ReadLimits{});
  REQUIRE(imp.ok());
  REQUIRE(imp->series.size() == 2);
  for (const auto& s : imp->series) {
    CHECK(s.read() == n / 2);
    CHECK(s.size() == SnapshotSeries::kKept);
  }
  const SnapshotSeries& first = imp->series[0];
  CHECK(first[0].samples[0].device == "ens1f0np0");
  CHECK(value_of(first[0], "rx_packets") == 1000);  // before
  CHECK(value_of(first[1], "rx_packets") == 1002);  // after: the window is the first two
  CHECK(value_of(first.back(), "rx_packets") == 1000 + n - 2);  // the latest
  CHECK(imp->gaps.empty());
  auto c = combine_imports({*imp}, std::nullopt);
  CHECK(c.snapshots == n);
  CHECK(*change(c.input, "ens1f0np0", "rx_packets")->delta == 2);
}

TEST_CASE("ethtool -S: repeated \"NIC statistics:\" headers are successive snapshots, prompts name the NIC") {
  auto imp = import_repo_file(CounterImportFormat::kEthtoolS, "tests/fixtures/import/ethtool-s-repeated-headers.txt");
  REQUIRE(imp.series.size() == 2);
  CHECK(imp.series[0].read() == 3);
  CHECK(imp.series[1].read() == 1);
  CHECK(imp.series[0][0].samples[0].device == "ens1f0np0");
  CHECK(imp.series[1][0].samples[0].device == "ens1f1np1");
  CHECK(value_of(imp.series[0][2], "rx_crc_errors_phy") == 12);
  CHECK(imp.gaps.empty());
  auto c = combine_imports({imp}, std::nullopt);
  CHECK(*change(c.input, "ens1f0np0", "rx_crc_errors_phy")->delta == 4);  // first two snapshots
  CHECK(change(c.input, "ens1f1np1", "rx_packets")->status == DeltaStatus::kSnapshot);
}

TEST_CASE("ethtool -S: bad lines in 5,000 sections give max_listed gaps and one summary") {
  auto lines = generated(5000, [](size_t i) {
    return "### ethtool -S eth" + std::to_string(i % 3) + "\nrx_packets: " + std::to_string(i) + "\n??? junk\n";
  });
  auto imp = import_ethtool_s(*lines, "f", "", ReadLimits{5});
  REQUIRE(imp.ok());
  REQUIRE(imp->gaps.size() == 6);
  CHECK(imp->gaps[4].message.find("1 line(s) are not \"name: number\"") == 0);
  CHECK(imp->gaps[5].message.find("... and 4995 more like this: not name: number") == 0);
  CHECK(imp->series.size() == 3);
}

TEST_CASE("nccl-tests: 3,000 concatenated sweeps list max_listed tables and summarise the rest") {
  auto lines = generated(3000, [](size_t i) {
    std::string oob = i == 2500 ? "# Out of bounds values : 3 FAILED\n" : "";
    return "### all_reduce_perf\n" + kTable.substr(0, kTable.find("# Out")) + (oob.empty() ? "# Out of bounds values : 0 OK\n" : oob) +
           "# Avg bus bandwidth    : 4.32178\n";
  });
  auto imp = baseline::parse_nccl_tests(*lines, "loop.log", "", ReadLimits{10});
  REQUIRE(imp.ok());
  // The first 10, and the one with wrong results (wrong tables are listed up to as many more).
  REQUIRE(imp->tables.size() == 11);
  CHECK(imp->tables.back().out_of_bounds_values == 3u);
  const auto& n = imp->not_listed;
  CHECK(n.tables == 2989);
  CHECK(n.wrong_tables == 0);
  REQUIRE(n.sizes.size() == 2);
  CHECK(n.sizes[0].collective == "all_reduce");
  CHECK(n.sizes[0].size_bytes == 268435456u);
  CHECK(n.sizes[0].runs == 2989);
  CHECK(n.sizes[0].busbw_min_bytes_per_s == doctest::Approx(4.33e9));
  CHECK(n.sizes[1].busbw_max_bytes_per_s == doctest::Approx(4.32e9));
  CHECK(imp->gaps.empty());
  auto data = baseline::to_bench_envelope_data(*imp);
  CHECK(data["tables"].size() == 11);
  CHECK(data["tables_not_listed"]["tables"] == 2989);
  CHECK(data["tables_not_listed"]["sizes"][0]["busbw_mean_bytes_per_s"].get<double>() == doctest::Approx(4.33e9));
  CHECK(baseline::nccl_tests_findings(*imp, "loop.log").size() == 1);
}

TEST_CASE("nccl-tests: 100,000 rows that fit no table give max_listed gaps and one count") {
  auto lines = generated(100000, [](size_t i) {
    return i == 0 ? "### all_reduce_perf\n" + kTable + kTable.substr(0, kTable.find('\n') + 1)
                  : "   " + std::to_string(i) + "  8 float sum x y z\n";
  });
  auto imp = baseline::parse_nccl_tests(*lines, "rows.log", "", ReadLimits{7});
  REQUIRE(imp.ok());
  CHECK(imp->tables.size() == 1);
  REQUIRE(imp->gaps.size() == 9);
  for (size_t i = 0; i < 7; ++i) CHECK(imp->gaps[i].message.find("row does not match") == 0);
  CHECK(imp->gaps[7].message.find("... and 99992 more like this: row does not match the table's columns (the last at rows.log:100006)") == 0);
  CHECK(imp->gaps[8].message == "result table has a header but no data rows");
}

TEST_CASE("syslog: 70,000 flaps on one interface are counted exactly, the 24 h count bounded") {
  const size_t n = 70000;
  // One event every 11 s (lines within 10 s of the last event are the same flap).
  auto lines = generated(n, [](size_t i) {
    size_t t = i * 11;
    char ts[64];
    std::snprintf(ts, sizeof ts, "2024-01-%02zuT%02zu:%02zu:%02zu", 1 + t / 86400, t / 3600 % 24, t / 60 % 60, t % 60);
    return std::string(ts) + " host kernel: ice 0000:3b:00.0 enp59s0f0: NIC Link is Down\n";
  });
  auto imp = import_syslog(*lines, "big.log", ReadLimits{});
  REQUIRE(imp.ok());
  const auto& s = imp->series[0][0].samples;
  REQUIRE(s.size() == 2);
  CHECK(s[0].value == n);
  CHECK(s[1].name == "carrier_lost_events_max_24h");
  CHECK(s[1].value == 86400 / 11 + 1);  // 7855 in any day
  CHECK(s[1].saturated);                // from the first 65,536 times kept: a lower bound
}
