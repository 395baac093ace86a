// Baselines that know noise: history, median/MAD reference, roll-up to the node, drift,
// retention and the fleet baseline, on synthetic runs with a fixed seed.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "baseline/diff.h"
#include "baseline/fleet.h"
#include "baseline/history.h"
#include "baseline/rollup.h"
#include "baseline/store.h"
#include "baseline/trend.h"
#include "core/atomic_file.h"

using namespace fabdiag;
using namespace fabdiag::baseline;
using doctest::Approx;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Deterministic normal noise: a 64-bit LCG and Box-Muller, so every platform draws the same.
struct Noise {
  uint64_t state;
  explicit Noise(uint64_t seed) : state(seed) {}
  double uniform() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (static_cast<double>(state >> 11) + 0.5) / 9007199254740992.0;
  }
  double normal(double sigma) {
    double u1 = uniform(), u2 = uniform();
    return sigma * std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
};

const std::vector<std::string> kHosts = {"node01", "node02", "node03", "node04",
                                         "node05", "node06", "node07", "node08"};

// A pairwise run of kHosts at 20 GB/s per pair and an all_reduce sweep at 40 GB/s, every value
// times (1 + N(0, sigma)); pairs touching `slow` are at `slow_factor` of that.
Measurements run_of(Noise& n, double sigma, const std::string& slow = "", double slow_factor = 1.0,
                    double level = 1.0) {
  Measurements m;
  m.schema = "fabdiag.triage/1";
  m.hosts = kHosts;
  for (uint64_t size : {1u << 20, 1u << 24, 1u << 28}) {
    CollectivePoint p;
    p.collective = "all_reduce";
    p.size_bytes = size;
    p.busbw_bytes_per_s = 40e9 * level * (1 + n.normal(sigma));
    m.collectives.push_back(p);
  }
  PairMatrix pm;
  pm.hosts = kHosts;
  pm.bytes_per_s.assign(kHosts.size(), std::vector<std::optional<double>>(kHosts.size()));
  for (size_t i = 0; i < kHosts.size(); ++i)
    for (size_t j = i + 1; j < kHosts.size(); ++j) {
      double f = (kHosts[i] == slow || kHosts[j] == slow) ? slow_factor : 1.0;
      pm.bytes_per_s[i][j] = 20e9 * level * f * (1 + n.normal(sigma));
    }
  m.pairwise = pm;
  return m;
}

History history_of(Noise& n, size_t runs, double sigma) {
  History h;
  h.name = "nightly";
  for (size_t i = 0; i < runs; ++i)
    append_run(h, run_of(n, sigma), RunRecord{"2026-11-0" + std::to_string(i + 1) + "T03:00:00Z", "", "", "", "", kHosts});
  return h;
}

BaselineDiff diff(const History& h, const Measurements& cur, double tol = 0.10) {
  DiffOptions o;
  o.tolerance = tol;
  o.baseline_label = "nightly";
  o.current_label = "now.json";
  auto d = diff_history(h, cur, o);
  REQUIRE_MESSAGE(d.ok(), (d.ok() ? "" : d.error().to_string()));
  return *d;
}

size_t at_warn_or_above(const BaselineDiff& d) {
  size_t n = 0;
  for (const auto& f : d.findings) n += f.severity >= Severity::kWarn;
  return n;
}

// A fresh store directory under the build's temporary folder.
std::string temp_store(const std::string& tag) {
  fs::path dir = fs::temp_directory_path() / ("fabdiag-history-test-" + tag + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir.string();
}

// A fabdiag.bench/1 document of one host with one all_reduce value per size.
std::string bench_doc(const std::string& host, double busbw, const std::string& started_at) {
  json results = json::array();
  for (uint64_t size : {1u << 20, 1u << 28})
    results.push_back({{"size_bytes", size}, {"busbw_bytes_per_s", busbw}});
  json doc = {{"schema", "fabdiag.bench/1"}, {"tool_version", "test"}, {"hosts", {host}},
              {"started_at", started_at}, {"duration_s", 1}, {"params", json::object()},
              {"data", {{"collective", "all_reduce"}, {"backend", "mpi"}, {"results", results}}},
              {"findings", json::array()}};
  return doc.dump();
}

}  // namespace

TEST_CASE("history: five healthy runs with 3% noise raise nothing at warn or above against the history") {
  Noise n(20261202);
  History h = history_of(n, 5, 0.03);
  REQUIRE(h.runs.size() == 5);
  REQUIRE(h.series.size() == 3 + 28);  // 3 sizes + C(8,2) pairs
  for (int night = 0; night < 5; ++night) {
    auto d = diff(h, run_of(n, 0.03));
    for (const auto& f : d.findings)
      if (f.severity >= Severity::kWarn) MESSAGE(f.code << " " << f.subject << ": " << f.message);
    CHECK(at_warn_or_above(d) == 0);
    CHECK(d.count(DiffStatus::kRegression) == 0);
    CHECK(d.history_runs == 5);
    for (const auto& r : d.rows) {
      CHECK(r.runs == 5);
      REQUIRE(r.spread_bytes_per_s.has_value());
      // The MAD of 5 runs of 3 % noise, scaled to sigma: a few percent of the value.
      CHECK(*r.spread_bytes_per_s / *r.baseline_bytes_per_s < 0.08);
    }
  }
}

TEST_CASE("history: with one run the tolerance alone judges, and a drop is never an error") {
  Noise n(7);
  History h = history_of(n, 1, 0.0);
  Measurements cur = run_of(n, 0.0, "", 1.0, 0.75);  // everything 25 % down
  auto d = diff(h, cur);
  CHECK(d.count(DiffStatus::kRegression) == d.rows.size());
  for (const auto& r : d.rows) {
    CHECK(r.runs == 1);
    CHECK_FALSE(r.spread_bytes_per_s.has_value());
    CHECK(*r.severity == Severity::kWarn);  // beyond 2 x tolerance, still only warn
  }
  for (const auto& f : d.findings) CHECK(f.severity == Severity::kWarn);
  // The same drop against a 5-run history with a spread is an error.
  Noise q(8);
  auto d5 = diff(history_of(q, 5, 0.01), run_of(q, 0.0, "", 1.0, 0.75));
  CHECK(*d5.rows.front().severity == Severity::kError);
}

TEST_CASE("history: a drop beyond the tolerance but within k x spread is noise, not a regression") {
  History h;
  // Median 20, MAD 3: own spread 1.4826 x 1.206 x 3 = 5.36 GB/s; the steps 5, -8, 6, -4 give
  // 1.4826 x 1.363 x 5 / sqrt(2) = 7.15 GB/s, the pooled floor (the only series here).
  for (double v : {20e9, 25e9, 17e9, 23e9, 19e9}) {
    Measurements m;
    m.schema = "fabdiag.bench/1";
    m.collectives.push_back({"all_reduce", 1024, v, "", "", std::nullopt, 0, 0});
    append_run(h, m, RunRecord{});
  }
  Measurements cur;
  cur.schema = "fabdiag.bench/1";
  cur.collectives.push_back({"all_reduce", 1024, 15e9, "", "", std::nullopt, 0, 0});  // 75 %
  auto d = diff(h, cur);
  REQUIRE(d.rows.size() == 1);
  CHECK(*d.rows[0].baseline_bytes_per_s == Approx(20e9));
  CHECK(*d.rows[0].spread_bytes_per_s == Approx(1.4826 * 1.363 * 5e9 / std::sqrt(2.0)));
  CHECK(d.rows[0].status == DiffStatus::kOk);  // drop 5 GB/s, far inside 3.5 x 7.15 GB/s
  CHECK(d.rows[0].within_noise);
  CHECK(d.findings.empty());
}

TEST_CASE("rollup: a degraded node (all its pairs at 0.6x) is exactly one finding naming it") {
  Noise n(42);
  History h = history_of(n, 5, 0.03);
  Measurements cur = run_of(n, 0.03, "node06", 0.6);
  cur.collectives.clear();  // the pairs alone
  auto d = diff(h, cur);
  CHECK(d.count(DiffStatus::kRegression) == 7);
  REQUIRE(d.findings.size() == 1);
  const Finding& f = d.findings[0];
  CHECK(f.code == "node_bandwidth_regression");
  CHECK(f.subject == "node06");
  CHECK(f.severity == Severity::kError);
  CHECK(f.layer == Layer::kLocalization);
  CHECK(f.message.find("every pair touching node06 regressed (7 of 7 compared)") != std::string::npos);
  REQUIRE(f.evidence.size() == 2 + 7);
  CHECK(*f.evidence[0].value == Approx(0.6).epsilon(0.06));  // median ratio of its pairs
  CHECK(*f.evidence[1].value == 7);
  for (size_t i = 2; i < f.evidence.size(); ++i) {
    CHECK(f.evidence[i].metric.find("node06") != std::string::npos);
    CHECK(*f.evidence[i].value == Approx(0.6).epsilon(0.15));
  }
}

TEST_CASE("rollup: one slow pair between healthy nodes stays a link finding, and triage suspects come first") {
  Noise n(5);
  History h = history_of(n, 5, 0.0);
  Measurements cur = run_of(n, 0.0, "node06", 0.6);
  cur.collectives.clear();
  cur.pairwise->bytes_per_s[0][1] = 10e9;  // node01<->node02 at 0.5x
  cur.suspect_hosts = {"node02"};
  auto d = diff(h, cur);
  REQUIRE(d.findings.size() == 2);
  CHECK(d.findings[0].code == "pair_bandwidth_regression");  // the suspect's finding first
  CHECK(d.findings[0].subject == "node01<->node02");
  CHECK(d.findings[0].message.find("(a triage suspect)") != std::string::npos);
  CHECK(d.findings[1].code == "node_bandwidth_regression");
  CHECK(d.findings[1].subject == "node06");
}

TEST_CASE("drift: a steady 3%/night decline is found before it crosses the tolerance") {
  auto t = fit_trend({100, 97, 94.09, 91.27, 88.53});
  REQUIRE(t.has_value());
  CHECK(t->relative_slope == Approx(-0.0298).epsilon(0.02));
  CHECK(t->falling_share == 1.0);
  CHECK(t->slope_z < -kDefaultSpreadK);
  CHECK(is_drift(*t, kDefaultSpreadK));
  CHECK_FALSE(is_drift(*fit_trend({100, 97, 101, 98, 99}), kDefaultSpreadK));
  // Noise that happens to fall (3 % sigma, ends low): the slope is within its error.
  auto noisy = fit_trend({100, 103, 97, 99, 94, 92});
  REQUIRE(noisy.has_value());
  CHECK(noisy->relative_slope < -kDriftPerRun);
  CHECK_FALSE(is_drift(*noisy, kDefaultSpreadK));

  History h;
  double v = 40e9;
  for (int night = 0; night < 5; ++night, v *= 0.97) {
    Measurements m;
    m.schema = "fabdiag.bench/1";
    m.collectives.push_back({"all_reduce", 1 << 28, v, "", "", std::nullopt, 0, 0});
    append_run(h, m, RunRecord{});
  }
  Measurements cur;
  cur.schema = "fabdiag.bench/1";
  cur.collectives.push_back({"all_reduce", 1 << 28, v, "", "", std::nullopt, 0, 0});  // night 6
  auto d = diff(h, cur);
  REQUIRE(d.rows.size() == 1);
  CHECK(d.rows[0].status == DiffStatus::kOk);  // 91 % of the median: not a regression yet
  CHECK(d.rows[0].drift);
  CHECK(d.rows[0].trend->runs == 6);
  REQUIRE(d.findings.size() == 1);
  CHECK(d.findings[0].code == "busbw_drift");
  CHECK(d.findings[0].subject == "all_reduce");
  CHECK(d.findings[0].severity == Severity::kWarn);  // ~15 % over the window >= tolerance
}

TEST_CASE("store: --append keeps history, retention keeps the last N runs, pruned atomically") {
  std::string dir = temp_store("keep");
  BaselineStore store(dir);
  for (int i = 0; i < 5; ++i) {
    std::string at = "2026-11-0" + std::to_string(i + 1) + "T03:00:00Z";
    auto out = store.save_run("node01", bench_doc("node01", 40e9 + i * 1e9, at), "run.json",
                              i == 0 ? SaveMode::kNew : SaveMode::kAppend, 3, at);
    REQUIRE_MESSAGE(out.ok(), (out.ok() ? "" : out.error().to_string()));
    CHECK(out->history_runs == std::min(i + 1, 3));
    CHECK(out->pruned_points == (i >= 3 ? 2u : 0u));  // 2 sizes, one value each dropped
  }
  auto h = store.load_history("node01");
  REQUIRE(h.ok());
  REQUIRE(h->runs.size() == 3);
  CHECK(h->runs.front().at == "2026-11-03T03:00:00Z");
  REQUIRE(h->series.size() == 2);
  CHECK(h->series[0].scope == "node01");
  REQUIRE(h->series[0].points.size() == 3);
  CHECK(h->series[0].points[0].bytes_per_s == 42e9);
  CHECK(h->series[0].points[2].bytes_per_s == 44e9);
  struct stat st {};
  REQUIRE(::stat(store.history_path_of("node01").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
  for (const auto& e : fs::directory_iterator(dir)) CHECK(e.path().filename().string()[0] != '.');  // no temp left
  // Without --append or --force an existing name is refused; --force restarts the history.
  auto again = store.save_run("node01", bench_doc("node01", 1e9, "x"), "run.json", SaveMode::kNew, 3);
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().message.find("--append") != std::string::npos);
  REQUIRE(store.save_run("node01", bench_doc("node01", 1e9, "x"), "run.json", SaveMode::kReplace, 3).ok());
  CHECK(store.load_history("node01")->runs.size() == 1);
  fs::remove_all(dir);
}

TEST_CASE("store: an old store (NAME.json only) reads as one run and seeds the history on --append") {
  std::string dir = temp_store("legacy");
  fs::create_directories(dir);
  fs::copy_file("tests/fixtures/baseline/store/nightly-bench.json", dir + "/nightly-bench.json");
  BaselineStore store(dir);
  auto h = store.load_history("nightly-bench");
  REQUIRE_MESSAGE(h.ok(), (h.ok() ? "" : h.error().to_string()));
  CHECK(h->runs.size() == 1);
  size_t points = h->series.size();
  CHECK(points > 0);
  auto text = read_file(dir + "/nightly-bench.json");
  REQUIRE(text.ok());
  REQUIRE(store.save_run("nightly-bench", *text, "again.json", SaveMode::kAppend, 30).ok());
  h = store.load_history("nightly-bench");
  CHECK(h->runs.size() == 2);
  CHECK(h->series.front().points.size() == 2);
  fs::remove_all(dir);
}

TEST_CASE("store: a symlinked NAME.history is refused, never written through") {
  std::string dir = temp_store("link");
  fs::create_directories(dir);
  std::string target = dir + "/victim";
  REQUIRE(write_file_atomic(target, "keep me\n").ok());
  fs::create_symlink(target, dir + "/n.history");
  BaselineStore store(dir);
  auto out = store.save_run("n", bench_doc("node01", 1e9, "x"), "run.json", SaveMode::kNew, 3);
  REQUIRE_FALSE(out.ok());
  CHECK(out.error().message.find("symlink") != std::string::npos);
  CHECK(*read_file(target) == "keep me\n");
  CHECK_FALSE(store.load_history("n").ok());
  fs::remove_all(dir);
}

namespace {

// One single-node all_reduce result at 256 MiB per value, on node01, node02, ...
std::vector<FleetInput> fleet_inputs(const std::vector<double>& busbw_bytes_per_s) {
  std::vector<FleetInput> inputs;
  for (size_t i = 0; i < busbw_bytes_per_s.size(); ++i) {
    Measurements m;
    m.schema = "fabdiag.bench/1";
    m.hosts = {"node0" + std::to_string(i + 1)};
    m.collectives.push_back({"all_reduce", 1 << 28, busbw_bytes_per_s[i], "mpi", "", std::nullopt, 0, 0});
    inputs.push_back({"n" + std::to_string(i) + ".json", "2026-12-01T03:00:00Z", m});
  }
  return inputs;
}

}  // namespace

TEST_CASE("fleet: the median of many nodes with the outlier dropped, and a node diffed against it") {
  auto inputs = fleet_inputs({40e9, 41e9, 39e9, 40.5e9, 20e9, 39.5e9});  // node05 at half
  auto fb = build_fleet(inputs);
  REQUIRE(fb.ok());
  REQUIRE(fb->outliers.size() == 1);
  CHECK(fb->outliers[0].host == "node05");
  CHECK(fb->outliers[0].modified_z < -kFleetOutlierZ);
  REQUIRE(fb->history.series.size() == 1);
  CHECK(fb->history.series[0].points.size() == 5);
  CHECK(fb->history.series[0].scope.empty());
  // A node diffs against the fleet: reference = median of the 5 kept, 40 GB/s.
  Measurements slow = inputs[4].measurements;
  auto d = diff(fb->history, slow);
  REQUIRE(d.rows.size() == 1);
  CHECK(*d.rows[0].baseline_bytes_per_s == Approx(40e9));
  CHECK(d.rows[0].status == DiffStatus::kRegression);
  CHECK(*d.rows[0].severity == Severity::kError);
  CHECK_FALSE(d.rows[0].trend.has_value());  // no drift on a fleet
  CHECK(d.fleet);
  // Saved and read back through the store.
  std::string dir = temp_store("fleet");
  BaselineStore store(dir);
  auto info = store.save_fleet("fleet", fb->history, fb->document, false);
  REQUIRE_MESSAGE(info.ok(), (info.ok() ? "" : info.error().to_string()));
  CHECK(info->hosts.size() == 6);
  auto back = store.load_history("fleet");
  REQUIRE(back.ok());
  CHECK(back->fleet);
  CHECK(back->series[0].points[0].host == "node01");
  CHECK_FALSE(store.save_run("fleet", bench_doc("node01", 1e9, "x"), "r.json", SaveMode::kAppend, 3).ok());
  fs::remove_all(dir);
}

TEST_CASE("fleet: nodes that agree to 0.1% keep a node 2% off, and no z-score is infinite") {
  // Review find: MAD ~0 made a value 2-6% off score +-inf and be dropped as an outlier.
  auto fb = build_fleet(fleet_inputs({40.00e9, 40.01e9, 40.00e9, 39.99e9, 40.00e9, 39.2e9, 28e9}));  // node06 -2%, node07 -30%
  REQUIRE(fb.ok());
  REQUIRE(fb->outliers.size() == 1);
  CHECK(fb->outliers[0].host == "node07");
  CHECK(std::isfinite(fb->outliers[0].modified_z));
  CHECK(fb->outliers[0].modified_z == Approx(0.6745 * (28e9 - 40e9) / (0.02 * 40e9)));
  CHECK(fb->history.series[0].points.size() == 6);
}
