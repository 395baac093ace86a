// Localization simulation: runs the real triage walk (triage/walk.h: screen, uplink judge,
// confirmation, decision) against a simulated leaf/spine fabric of N nodes (tests/sim/sim_fabric.h),
// to check the claims of docs/localization.md#simulation at scales the emulated cluster cannot
// reach (1k-16k nodes): rounds used, exact-set rate, false positives, against targets.
//
//   triage_sim --nodes 4096 --trials 50 --slow 3 [--fault 0.5] [--preset fabric|emulated]
//              [--slow-links 0] [--link-on-ring 1] [--slow-uplinks 0] [--leaf-size 32] [--oversub 1] [--ecmp 0.05]
//              [--sigma S] [--topology 0|1] [--declared-oversub R] [--seed 1] [--name LABEL]
//              [--min-exact 0.97] [--max-rounds 5] [--max-fp 0]
//
// --declared-oversub: the walk's --oversubscription (default: the fabric's --oversub, as an operator
// who knows the fabric gives it; 1 plays one who does not).
//
// Prints one result line, `PASS` or `MISS` against the targets, and exits 1 on MISS (so it doubles
// as a test), 2 on bad arguments.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <string>

#include "tests/sim/sim_fabric.h"
#include "triage/walk.h"

using namespace fabdiag;
using namespace fabdiag::triage;

namespace {

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

struct Scenario {
  int nodes = 1024, trials = 20, slow = 1, slow_links = 0, slow_uplinks = 0;
  bool link_on_ring = true;  // the slow link joins rank neighbours: an edge of the all_reduce's ring
  double fault = 0.5;
  bool topology = true;
  unsigned seed = 1;
  sim::FabricModel model;
  WalkParams params;
};

// What a trial named, as (kind, sorted hosts), comparable with the injected faults.
using Named = std::set<std::pair<std::string, std::vector<std::string>>>;

Named named_of(const TriageReport& rep) {
  Named got;
  for (const auto& s : rep.suspects) {
    auto h = s.hosts;
    std::sort(h.begin(), h.end());
    got.insert({s.kind, h});
  }
  return got;
}

// Injects the scenario's faults at random places; returns what a right verdict names.
Named inject(sim::SimFabric& c, const Scenario& sc, std::mt19937& pick) {
  Named truth;
  const auto& hosts = c.hosts();
  std::vector<int> leaves(static_cast<size_t>(c.leaves()));
  for (int l = 0; l < c.leaves(); ++l) leaves[static_cast<size_t>(l)] = l;
  std::shuffle(leaves.begin(), leaves.end(), pick);
  std::set<int> busy;  // hosts under a slow uplink carry no other fault
  for (int k = 0; k < sc.slow_uplinks; ++k) {
    int l = leaves[static_cast<size_t>(k)];
    c.uplink_factor[static_cast<size_t>(l)] = sc.fault;
    std::vector<std::string> h;
    for (int x : c.hosts_of_leaf(l)) {
      h.push_back(hosts[static_cast<size_t>(x)]);
      busy.insert(x);
    }
    std::sort(h.begin(), h.end());
    truth.insert({"leaf_uplink", h});
  }
  std::vector<int> nodes;
  for (int i = 0; i < sc.nodes; ++i)
    if (!busy.count(i)) nodes.push_back(i);
  std::shuffle(nodes.begin(), nodes.end(), pick);
  for (int k = 0; k < sc.slow; ++k) {
    int x = nodes[static_cast<size_t>(k)];
    c.node_factor[static_cast<size_t>(x)] = sc.fault;
    truth.insert({"node", {hosts[static_cast<size_t>(x)]}});
  }
  std::set<int> taken(nodes.begin(), nodes.begin() + sc.slow);
  for (int k = 0, next = sc.slow; k < sc.slow_links; ++k) {
    int a = -1, b = -1;
    while (a < 0 || taken.count(a) || taken.count(b) || busy.count(b)) {  // off the slow nodes and each other
      a = nodes[static_cast<size_t>(next++)];
      b = sc.link_on_ring ? (a + 1) % sc.nodes : nodes[static_cast<size_t>(next++)];
    }
    taken.insert({a, b});
    c.slow_links.insert({std::min(a, b), std::max(a, b)});
    std::vector<std::string> h = {hosts[static_cast<size_t>(a)], hosts[static_cast<size_t>(b)]};
    std::sort(h.begin(), h.end());
    truth.insert({"link", h});
  }
  c.link_fault = sc.fault;
  return truth;
}

struct Tally {
  int exact = 0, false_pos = 0, missed = 0, worst_rounds = 0, watched = 0;
  double sum_rounds = 0, worst_s = 0, sum_s = 0;
};

Tally run_trials(Scenario sc) {
  Tally t;
  std::mt19937 pick(sc.seed * 7919u + 1);
  for (int k = 0; k < sc.trials; ++k) {
    sim::SimFabric c(sc.nodes, sc.model, sc.seed + static_cast<unsigned>(k) * 101u);
    sc.params.seed = sc.seed + static_cast<unsigned>(k);
    if (sc.topology && c.leaves() > 1) sc.params.topology = c.topology();
    Named truth = inject(c, sc, pick);
    auto t0 = std::chrono::steady_clock::now();
    TriageReport rep = run_walk(c, sc.params, nullptr, no_progress());
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    Named got = named_of(rep);
    if (got == truth) ++t.exact;
    for (const auto& g : got) t.false_pos += truth.count(g) ? 0 : 1;
    if (std::getenv("TRIAGE_SIM_VERBOSE"))
      for (const auto& g : got)
        if (!truth.count(g)) std::fprintf(stderr, "trial %d: false %s %s\n", k, g.first.c_str(), g.second[0].c_str());
    for (const auto& w : truth) t.missed += got.count(w) ? 0 : 1;
    if (std::getenv("TRIAGE_SIM_VERBOSE") && got != truth) {
      std::fprintf(stderr, "trial %d: rounds %d ring_probe %s\n", k, c.rounds, rep.ring_probe.dump().c_str());
      for (const auto& x : rep.inconclusive) std::fprintf(stderr, "   inconclusive: %s\n", x.c_str());
      for (const auto& [who, why] : rep.cleared)
        if (why.find("known-good") != std::string::npos) std::fprintf(stderr, "   cleared %s: %s\n", who.c_str(), why.c_str());
      for (const auto& [who, r] : rep.watch) std::fprintf(stderr, "   watch %s %.3f\n", who.c_str(), r);
      for (const auto& w : truth) if (!got.count(w)) std::fprintf(stderr, "   missed %s\n", w.second[0].c_str());
      for (const auto& sus : rep.suspects)
        for (const auto& e : sus.evidence)
          std::fprintf(stderr, "   %s %s = %g %s\n", sus.kind.c_str(), e.metric.c_str(), e.value.value_or(-1), e.value_text.c_str());
    }
    t.watched += static_cast<int>(rep.watch.size());
    t.sum_rounds += c.rounds;
    t.worst_rounds = std::max(t.worst_rounds, c.rounds);
    t.sum_s += s;
    t.worst_s = std::max(t.worst_s, s);
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  Scenario sc;
  sc.nodes = static_cast<int>(arg_d(argc, argv, "--nodes", 1024));
  sc.trials = static_cast<int>(arg_d(argc, argv, "--trials", 20));
  sc.slow = static_cast<int>(arg_d(argc, argv, "--slow", 1));
  sc.slow_links = static_cast<int>(arg_d(argc, argv, "--slow-links", 0));
  sc.slow_uplinks = static_cast<int>(arg_d(argc, argv, "--slow-uplinks", 0));
  sc.link_on_ring = arg_d(argc, argv, "--link-on-ring", 1) != 0;
  sc.fault = arg_d(argc, argv, "--fault", 0.5);
  sc.topology = arg_d(argc, argv, "--topology", 1) != 0;
  sc.seed = static_cast<unsigned>(arg_d(argc, argv, "--seed", 1));
  const double min_exact = arg_d(argc, argv, "--min-exact", 0.97);
  const int max_rounds = static_cast<int>(arg_d(argc, argv, "--max-rounds", 5));
  const double max_fp = arg_d(argc, argv, "--max-fp", 0);
  const std::string preset = arg_s(argc, argv, "--preset", "fabric");
  const std::string name = arg_s(argc, argv, "--name", "");
  // fabric: docs/localization.md#simulation (sigma 3 %, dips 0.2 %, ECMP 5 %); emulated: the
  // 2-core emulated cluster's noise on one flat switch, with its default thresholds.
  if (preset == "emulated") sc.model = sim::FabricModel{0.3, 0.08, 6, sc.nodes, 1, 0};
  sc.model.sigma = arg_d(argc, argv, "--sigma", sc.model.sigma);
  sc.model.leaf_size = static_cast<int>(arg_d(argc, argv, "--leaf-size", sc.model.leaf_size));
  sc.model.oversub = arg_d(argc, argv, "--oversub", sc.model.oversub);
  sc.model.ecmp_share = arg_d(argc, argv, "--ecmp", sc.model.ecmp_share);
  const double declared_oversub = arg_d(argc, argv, "--declared-oversub", sc.model.oversub);
  if (sc.nodes < 4 || sc.trials < 1 || sc.slow < 0 || sc.slow_links < 0 || sc.slow_uplinks < 0 ||
      sc.fault <= 0 || sc.fault >= 1 || sc.model.leaf_size < 1 || sc.model.oversub <= 0 || declared_oversub < 1 ||
      sc.slow_uplinks * sc.model.leaf_size + sc.slow + 2 * sc.slow_links >= sc.nodes ||
      (preset != "fabric" && preset != "emulated")) {
    std::fprintf(stderr, "triage_sim: bad arguments (need --nodes >= 4, --trials >= 1, 0 < --fault < 1, "
                         "--leaf-size >= 1, --oversub > 0, --declared-oversub >= 1, faults fewer than the nodes, --preset fabric|emulated)\n");
    return 2;
  }
  sc.params.sweeps = {CollectiveSpec{"all_reduce"}};  // the ring the slow-link stage probes (sim_fabric.h)
  if (preset == "fabric") sc.params.localize = fabric_params();  // docs/localization.md#parameters
  sc.params.localize.oversubscription = declared_oversub;
  Tally t = run_trials(sc);
  const double exact = static_cast<double>(t.exact) / sc.trials, fp = static_cast<double>(t.false_pos) / sc.trials;
  const bool ok = exact >= min_exact && t.worst_rounds <= max_rounds && fp <= max_fp;
  std::printf("%-26s %6d %5.1f %3d %6.3f %6.3f %6.3f %6.2f %6.2f   rounds<=%d exact>=%.2f fp<=%.2f  %s\n",
              name.empty() ? "-" : name.c_str(), sc.nodes, t.sum_rounds / sc.trials, t.worst_rounds, exact, fp,
              static_cast<double>(t.missed) / sc.trials, t.sum_s / sc.trials, t.worst_s, max_rounds, min_exact,
              max_fp, ok ? "PASS" : "MISS");
  return ok ? 0 : 1;
}
