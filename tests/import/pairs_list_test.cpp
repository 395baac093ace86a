// Pairs list import: case 028 (shared/cases/028-pairwise-busbw-one-slow-node) judged by the
// pairwise rules (perf/pairwise_analysis.h, fabric thresholds), and made-up variants: blank-
// separated pairs with units, a pair listed twice, a healthy control, a cut last line, a file
// that holds no pair.
#include <doctest/doctest.h>

#include <algorithm>

#include "import/pairs_list.h"
#include "perf/pairwise_analysis.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {
constexpr const char* kCase028 = "tests/fixtures/cases/028-pairwise-busbw-one-slow-node.input.txt";

PairsListImport read(const std::string& text) {
  auto r = import_pairs_list(text, "t.txt");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return *r;
}

perf::NodeStatus status(const PairsListImport& imp, const perf::PairwiseAnalysis& a, const std::string& host) {
  for (size_t i = 0; i < imp.matrix.hosts.size(); ++i)
    if (imp.matrix.hosts[i] == host) return a.status[i];
  FAIL("no host " << host);
  return perf::NodeStatus::kNotMeasured;
}

// A finding at warn or above that names `word`; slow_pair_inconclusive names a slow pair and
// says the data cannot tell which end (or the link) is at fault: it blames neither end.
bool blamed(const std::vector<Finding>& fs, const std::string& word) {
  for (const auto& f : fs)
    if (f.severity >= Severity::kWarn && f.code != "slow_pair_inconclusive" && (f.subject.find(word) != std::string::npos))
      return true;
  return false;
}
}  // namespace

TEST_CASE("case 028: node01 is slow, node05/node06 suspects, the ToR crossing is not blamed") {
  auto imp = read(repo_text(kCase028));
  CHECK(imp.gaps.empty());
  REQUIRE(imp.pairs.size() == 5);
  CHECK(imp.matrix.hosts.size() == 7);
  CHECK(imp.pairs[0].a == "node01");
  CHECK(imp.pairs[0].b == "node02");
  CHECK(imp.pairs[0].bytes_per_s == doctest::Approx(49.36e9));
  CHECK(imp.pairs[2].note == "crossing TOR");
  CHECK(imp.pairs[4].bytes_per_s == doctest::Approx(86.81e9));
  auto t = perf::fabric_thresholds();
  auto a = perf::analyze_pairwise(imp.matrix, t);
  CHECK(status(imp, a, "node01") == perf::NodeStatus::kSlow);
  CHECK(status(imp, a, "node05") == perf::NodeStatus::kSuspect);
  CHECK(status(imp, a, "node06") == perf::NodeStatus::kSuspect);
  for (const char* good : {"node02", "node03", "node04", "node07"}) CHECK(status(imp, a, good) == perf::NodeStatus::kHealthy);
  auto fs = perf::pairwise_findings(imp.matrix, a, t);
  REQUIRE_FALSE(fs.empty());
  CHECK(fs[0].code == "slow_node");
  CHECK(fs[0].severity == Severity::kError);
  CHECK(fs[0].subject == "node01");
  // must not: blame node02 or node04, the ToR crossing, or pick node05/node06 as the culprit
  CHECK_FALSE(blamed(fs, "node02"));
  CHECK_FALSE(blamed(fs, "node04"));
  CHECK_FALSE(blamed(fs, "node05"));
  CHECK_FALSE(blamed(fs, "node06"));
  CHECK_FALSE(blamed(fs, "node07"));
  for (const auto& f : fs) CHECK(f.message.find("TOR") == std::string::npos);
  // The slow pair node05<->node06 is not silent: a warning that it cannot be pinned yet.
  const auto pair = std::find_if(fs.begin(), fs.end(), [](const Finding& f) { return f.code == "slow_pair_inconclusive"; });
  REQUIRE(pair != fs.end());
  CHECK(pair->subject == "node05<->node06");
  CHECK(pair->severity == Severity::kWarn);
  CHECK(pair->message.find("a slow link or a slow node, the data cannot tell") != std::string::npos);
}

TEST_CASE("blank-separated pairs with units, a pair listed twice") {
  auto imp = read("### 2-node ib_write_bw\nh1 h2 200 Gb/s\nh2 h3 190 Gb/s\nh1,h3 24.5 GB/s\nh1,h2 180 Gb/s\n");
  CHECK(imp.gaps.empty());
  REQUIRE(imp.pairs.size() == 3);  // h1,h2 once: the mean of its two lines
  CHECK(imp.pairs[0].bytes_per_s == doctest::Approx(23.75e9));
  CHECK(imp.pairs[0].measurements == 2);
  CHECK(imp.pairs[0].line == 2);
  CHECK(imp.pairs[2].bytes_per_s == doctest::Approx(24.5e9));
  CHECK(perf::pair_value(imp.matrix, 0, 1) == doctest::Approx(23.75e9));  // the mean of 200 and 180 Gb/s
}

TEST_CASE("healthy control: no slow node, no slow link") {
  auto imp = read("n1,n2 88.1\nn3,n4 87.9\nn1,n3 88.4\nn2,n4 88.0\nn1,n4 87.7\n");
  auto t = perf::fabric_thresholds();
  auto fs = perf::pairwise_findings(imp.matrix, perf::analyze_pairwise(imp.matrix, t), t);
  for (const auto& f : fs) CHECK(f.severity < Severity::kWarn);
}

TEST_CASE("a cut last line and lines that are not a pair are gaps") {
  auto imp = read("n1,n2 88.1\nrun started at 10:00\nn3,n4 87.9\nn1,n3 8");
  REQUIRE(imp.gaps.size() == 2);
  CHECK(imp.gaps[0].message.find("NOT READ") != std::string::npos);
  CHECK(imp.gaps[1].source == "t.txt:2");
  CHECK(imp.pairs.size() == 2);
}

TEST_CASE("a file without a pair is refused") {
  auto r = import_pairs_list("CA 'mlx5_0'\n\tCA type: MT4123\n", "ibstat.txt");
  REQUIRE_FALSE(r);
  CHECK(r.error().code == ErrorCode::kParse);
  CHECK(r.error().source == "ibstat.txt:1");
  CHECK_FALSE(import_pairs_list("n1,n1 88\n", "self.txt"));  // a node with itself is no pair
}

TEST_CASE("many rounds over the same hosts: one entry per distinct pair, not per line") {
  std::string text;
  for (int round = 0; round < 2000; ++round)
    for (int a = 0; a < 8; a += 2) text += "n" + std::to_string(a) + ",n" + std::to_string((a + 1 + 2 * round) % 8) + " 88.0\n";
  auto imp = read(text);
  CHECK(imp.gaps.empty());
  CHECK(imp.pairs.size() <= 28);  // 8 hosts: at most 8 * 7 / 2 pairs
  CHECK(imp.matrix.hosts.size() == 8);
  size_t lines = 0;
  for (const auto& p : imp.pairs) lines += p.measurements;
  CHECK(lines == 8000);
}
