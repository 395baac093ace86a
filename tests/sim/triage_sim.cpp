// Localization simulation: runs the real triage walk (triage/walk.h: screen, confirmation,
// decision) against a simulated fabric of N nodes, to check the claims of
// docs/localization.md#simulation at scales the emulated cluster cannot reach (1k-16k nodes):
// rounds used, exact-set rate, false positives.
//
//   triage_sim --nodes 4096 --trials 50 --slow 3 [--fault 0.5] [--preset fabric|emulated]
//              [--slow-links 0] [--seed 1] [--min-exact 0.97] [--max-rounds 5]
//
// Exits 1 when the exact-set rate is below --min-exact or a trial used more than --max-rounds
// (so it doubles as a test), 2 on bad arguments.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <string>

#include "triage/walk.h"

using namespace fabdiag;
using namespace fabdiag::triage;

namespace {

struct Preset {
  double sigma;     // log-normal noise of one test
  double dip_prob;  // probability of a deep dip (a congested or descheduled test)
  double dip_max;   // dips divide by 2..dip_max
};

class SimCluster : public ClusterRunner {
 public:
  SimCluster(int n, Preset p, unsigned seed) : factor_(static_cast<size_t>(n), 1.0), preset_(p), rng_(seed) {
    for (int i = 0; i < n; ++i) hosts_.push_back("n" + std::to_string(i));
  }
  const std::vector<std::string>& hosts() const override { return hosts_; }
  std::vector<Result<nlohmann::json>> snapshot_counters() override {
    return std::vector<Result<nlohmann::json>>(hosts_.size(), nlohmann::json::object());
  }
  Result<nlohmann::json> run_collective(const CollectiveSpec&) override { return nlohmann::json::object(); }
  Result<std::vector<PairSample>> run_round(const std::vector<std::pair<int, int>>& pairs, int round_id, uint64_t,
                                            int) override {
    ++rounds_;
    std::lognormal_distribution<double> noise(0.0, preset_.sigma);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<PairSample> out;
    out.reserve(pairs.size());
    for (auto [a, b] : pairs) {
      double v = 4e10 * std::min(factor_[static_cast<size_t>(a)], factor_[static_cast<size_t>(b)]) * noise(rng_);
      if (slow_links_.count({std::min(a, b), std::max(a, b)})) v *= fault_;
      if (u(rng_) < preset_.dip_prob) v /= 2 + (preset_.dip_max - 2) * u(rng_);
      out.push_back(PairSample{a, b, v, round_id});
    }
    return out;
  }
  std::vector<double> factor_;
  std::set<std::pair<int, int>> slow_links_;
  double fault_ = 0.5;
  int rounds_ = 0;

 private:
  std::vector<std::string> hosts_;
  Preset preset_;
  std::mt19937 rng_;
};

double arg_d(int argc, char** argv, const char* name, double def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::atof(argv[i + 1]);
  return def;
}
std::string arg_s(int argc, char** argv, const char* name, const char* def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  return def;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = static_cast<int>(arg_d(argc, argv, "--nodes", 1024));
  const int trials = static_cast<int>(arg_d(argc, argv, "--trials", 20));
  const int slow = static_cast<int>(arg_d(argc, argv, "--slow", 1));
  const int slow_links = static_cast<int>(arg_d(argc, argv, "--slow-links", 0));
  const double fault = arg_d(argc, argv, "--fault", 0.5);
  const unsigned seed = static_cast<unsigned>(arg_d(argc, argv, "--seed", 1));
  const double min_exact = arg_d(argc, argv, "--min-exact", 0.97);
  const int max_rounds = static_cast<int>(arg_d(argc, argv, "--max-rounds", 5));
  const std::string preset_name = arg_s(argc, argv, "--preset", "fabric");
  if (n < 4 || trials < 1 || slow < 0 || slow + 2 * slow_links >= n || fault <= 0 || fault >= 1) {
    std::fprintf(stderr, "triage_sim: bad arguments (need --nodes >= 4, --trials >= 1, 0 < --fault < 1)\n");
    return 2;
  }
  // fabric: the preset of docs/localization.md#simulation (sigma 3 %, q 0.2 %); emulated: the
  // 2-core emulated cluster.
  Preset preset = preset_name == "emulated" ? Preset{0.3, 0.08, 6} : Preset{0.03, 0.002, 4};
  WalkParams params;
  params.sweeps.clear();
  if (preset_name != "emulated") params.localize = fabric_params();  // docs/localization.md#rules-for-deciding-under-noise

  int exact = 0, false_pos = 0, missed = 0, worst_rounds = 0, watched = 0;
  double sum_rounds = 0;
  std::mt19937 pick(seed * 7919u + 1);
  for (int t = 0; t < trials; ++t) {
    SimCluster c(n, preset, seed + static_cast<unsigned>(t) * 101u);
    c.fault_ = fault;
    params.seed = seed + static_cast<unsigned>(t);
    std::set<std::vector<std::string>> truth;
    std::vector<int> nodes(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) nodes[static_cast<size_t>(i)] = i;
    std::shuffle(nodes.begin(), nodes.end(), pick);
    for (int k = 0; k < slow; ++k) {
      c.factor_[static_cast<size_t>(nodes[static_cast<size_t>(k)])] = fault;
      truth.insert({c.hosts()[static_cast<size_t>(nodes[static_cast<size_t>(k)])]});
    }
    for (int k = 0; k < slow_links; ++k) {
      int a = nodes[static_cast<size_t>(slow + 2 * k)], b = nodes[static_cast<size_t>(slow + 2 * k + 1)];
      c.slow_links_.insert({std::min(a, b), std::max(a, b)});
      truth.insert({c.hosts()[static_cast<size_t>(std::min(a, b))], c.hosts()[static_cast<size_t>(std::max(a, b))]});
    }
    TriageReport rep = run_walk(c, params, nullptr, no_progress());
    std::set<std::vector<std::string>> got;
    for (const auto& s : rep.suspects) got.insert(s.hosts);
    if (got == truth) ++exact;
    for (const auto& g : got) false_pos += truth.count(g) ? 0 : 1;
    for (const auto& w : truth) missed += got.count(w) ? 0 : 1;
    watched += static_cast<int>(rep.watch.size());
    sum_rounds += c.rounds_;
    worst_rounds = std::max(worst_rounds, c.rounds_);
  }
  double exact_rate = static_cast<double>(exact) / trials;
  std::printf("nodes %d  preset %s  slow nodes %d  slow links %d  fault %.2fx  trials %d\n", n, preset_name.c_str(),
              slow, slow_links, fault, trials);
  std::printf("  pair rounds: mean %.1f  max %d  (all-pairs would need %d)\n", sum_rounds / trials, worst_rounds,
              n % 2 == 0 ? n - 1 : n);
  std::printf("  exact suspect set: %.3f  false positives/run: %.3f  missed/run: %.3f\n", exact_rate,
              static_cast<double>(false_pos) / trials, static_cast<double>(missed) / trials);
  std::printf("  watch (near misses)/run: %.3f\n", static_cast<double>(watched) / trials);
  bool ok = exact_rate >= min_exact && worst_rounds <= max_rounds;
  std::printf("%s\n", ok ? "PASS" : "FAIL (exact-set rate or rounds outside the target)");
  return ok ? 0 : 1;
}
