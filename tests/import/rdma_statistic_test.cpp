// rdma statistic import: case 025 (shared/cases/025-rdma-statistic-all-zero, healthy control):
// the default (wrapped) and -p forms give identical results.
#include <doctest/doctest.h>

#include "tests/support/import_test_util.h"
#include "import/rdma_statistic.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kCase025 = "tests/fixtures/cases/025-rdma-statistic-all-zero.input.txt";
const std::vector<std::string> kNames = {
    "rx_write_requests", "rx_read_requests", "rx_atomic_requests", "out_of_buffer",
    "duplicate_request", "rnr_nak_retry_err", "packet_seq_err", "implied_nak_seq_err",
    "local_ack_timeout_err", "resp_local_length_error", "resp_cqe_error", "req_cqe_error",
    "req_remote_invalid_request", "req_remote_access_errors", "resp_remote_access_errors",
    "resp_cqe_flush_error", "req_cqe_flush_error", "rp_cnp_ignored", "rp_cnp_handled",
    "np_ecn_marked_roce_packets", "np_cnp_sent"};

std::vector<std::pair<std::string, uint64_t>> readings(const CounterImport& imp) {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const auto& s : imp.series.at(0))
    for (const auto& c : s.samples) out.emplace_back(c.device + " " + c.name, c.value);
  return out;
}
}  // namespace

TEST_CASE("case 025: both formats, the same 21 counters, all 0, identical") {
  auto sections = split_sections(repo_text(kCase025));
  REQUIRE(sections.size() == 2);
  CHECK(sections[0].title == "rdma stat show");
  CHECK(sections[1].title == "rdma stat show -p");
  auto a = import_rdma_statistic(sections[0].text, "default");
  auto b = import_rdma_statistic(sections[1].text, "-p");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  auto ra = readings(*a), rb = readings(*b);
  CHECK(ra == rb);
  REQUIRE(ra.size() == 21);
  // The wrapped record: no counter lost or invented where a name and its value are split
  // across lines ("rx_atomic_requests" / "0 out_of_buffer").
  for (size_t i = 0; i < kNames.size(); ++i) {
    CHECK(ra[i].first == "mlx5_0/1 " + kNames[i]);
    CHECK(ra[i].second == 0);
  }
  CHECK(a->gaps.empty());  // all-zero counters are counters, not "unavailable"
  REQUIRE(a->ports.size() == 1);
  CHECK(a->ports[0].device == "mlx5_0/1");
  CHECK(a->ports[0].ibdev == "mlx5_0");
  CHECK(a->ports[0].port == 1);
}

TEST_CASE("case 025 verdict: healthy") {
  auto r = interpret_repo_file(CounterImportFormat::kRdmaStatistic, kCase025);
  CHECK(r.result.findings.empty());
  CHECK(r.result.unknown_counters == 0);
  REQUIRE(r.result.summaries.size() == 1);
  CHECK(r.result.summaries[0].healthy);
  CHECK(r.combined.gaps.empty());
}

TEST_CASE("rdma statistic: records, JSON, and what is not a pair") {
  auto two = import_rdma_statistic(
      "link mlx5_0/1 out_of_sequence 5 rp_cnp_ignored\n3\nlink mlx5_1/1 out_of_sequence 7\n", "t");
  REQUIRE(two.ok());
  auto r = readings(*two);
  REQUIRE(r.size() == 3);
  CHECK(r[1] == std::make_pair(std::string("mlx5_0/1 rp_cnp_ignored"), uint64_t{3}));
  CHECK(r[2] == std::make_pair(std::string("mlx5_1/1 out_of_sequence"), uint64_t{7}));
  // Widths come from the ibdev name: mlx5 Q counters are 32-bit and wrap.
  CHECK(two->series[0][0].samples[0].width_bits == 32);
  auto json = import_rdma_statistic(
      R"([{"ifindex":0,"ifname":"mlx5_0","port":1,"out_of_sequence":2,"np_cnp_sent":4}])", "j");
  REQUIRE(json.ok());
  auto rj = readings(*json);
  REQUIRE(rj.size() == 2);
  CHECK(rj[0] == std::make_pair(std::string("mlx5_0/1 out_of_sequence"), uint64_t{2}));
  auto broken = import_rdma_statistic("link mlx5_0/1 out_of_sequence x\n", "b");
  REQUIRE(broken.ok());
  CHECK(broken->gaps.size() == 1);
  CHECK_FALSE(import_rdma_statistic("hello world\n", "n").ok());
}
