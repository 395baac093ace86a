#include "triage/walk.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "core/stats.h"
#include "core/text.h"
#include "perf/pairwise.h"
#include "triage/dead_direction_report.h"
#include "triage/link_bisection.h"
#include "triage/matchings.h"
#include "triage/screen_matrix.h"
#include "triage/small_cluster.h"
#include "triage/straggler.h"
#include "triage/suspect_evidence.h"
#include "triage/suspect_findings.h"
#include "triage/uplink_report.h"

namespace fabdiag::triage {

namespace {

using Clock = std::chrono::steady_clock;
using Snapshots = std::vector<Result<nlohmann::json>>;
using Schedule = std::vector<std::vector<std::pair<int, int>>>;

nlohmann::json num_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

const std::string& host_of(const TriageReport& rep, int node) { return rep.hosts[static_cast<size_t>(node)]; }

std::pair<int, int> ordered(int a, int b) { return {std::min(a, b), std::max(a, b)}; }

// Counter findings that name a hardware fault on the node (not congestion or info).
bool is_hard(const Finding& f) {
  return f.severity >= Severity::kError && (f.layer == Layer::kPhysical || f.layer == Layer::kTransport);
}

std::vector<Finding> judge_node(const CounterJudge& judge, const Result<nlohmann::json>& before,
                                const Result<nlohmann::json>& after, double window_s) {
  if (!judge || !before.ok() || !after.ok()) return {};
  return judge(*before, *after, window_s);
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct ScreenRun;
struct ConfirmRun;

// What the walk needs at every step.
struct Walk {
  ClusterRunner& cluster;
  const WalkParams& params;
  const CounterJudge& judge;
  const Progress& progress;
  const WalkStepSink& on_step;
  TriageReport& rep;
  int n = 0;                // nodes
  uint64_t pair_size_bytes = 0;  // of every pair test: params.pair_size_bytes, or as pair sizing chose
  Clock::time_point t0{};   // the first counter snapshot: start of the counter windows
  Snapshots before;         // that snapshot, per node
  const ScreenRun* screen = nullptr;    // the screen so far, once it started
  const ConfirmRun* confirm = nullptr;  // the confirmation so far, once it started
  std::vector<PairSample> tested;       // every pair test so far (screen and confirmation)
};

// The stages of the walk, in order: what a cut names as not run. The screen runs before the
// collective sweeps: a dead pair stalls a collective forever, a pair test gives up on it.
enum class Stage { kCountersBefore, kScreen, kSweeps, kCountersMid, kConfirm, kCountersAfter };

// The stages after `s`, for a cut's "not run".
std::string stages_after(const Walk& w, Stage s) {
  std::vector<std::string> parts;
  if (s < Stage::kScreen) parts.push_back("the pairwise screen");
  if (s < Stage::kSweeps && !w.params.sweeps.empty()) parts.push_back("the collective sweeps");
  if (s < Stage::kCountersMid) parts.push_back("counters after the screen");
  if (s < Stage::kConfirm) parts.push_back("the confirmation");
  if (s < Stage::kCountersAfter) parts.push_back("the final counters");
  parts.push_back("the decision");
  return join(parts);
}

// What follows item `k` (0-based) of `total` in a stage: "pairwise rounds 4..7", "pairwise
// round 7", "" after the last, then the stages after it.
std::string after_item(const Walk& w, Stage s, const std::string& what, size_t k, size_t total) {
  std::string rest;
  if (k + 2 == total) rest = what + " " + std::to_string(total);
  if (k + 2 < total) rest = what + "s " + std::to_string(k + 2) + ".." + std::to_string(total);
  return rest.empty() ? stages_after(w, s) : rest + ", " + stages_after(w, s);
}

// Tells on_step where the walk stands (defined below, with the report's JSON).
void publish(const Walk& w, const std::string& during, const std::string& not_run);

// The pairwise screen as run: its schedule, samples and the last value of each (a < b) pair.
struct ScreenRun {
  bool full = false;  // every pair once (round-robin); else random matchings
  Schedule schedule;
  std::vector<PairSample> samples;
  std::map<std::pair<int, int>, double> value;
  Screen screen;
  LeafMap leaves;       // --topology: each node's leaf (empty without one)
  UplinkScreen uplinks; // leaf-uplink suspects judged from the screen
  std::vector<int> explained;  // node candidates explained by an uplink suspect
  uint64_t size_bytes = 0;      // pair test size (per direction)
  nlohmann::json sizing;        // how it was chosen (PairSizing), null when fixed
};

// The confirmation as run: the planned rounds and their samples (round = plan round).
struct ConfirmRun {
  std::vector<PlannedRound> plan;
  std::vector<PairSample> samples;
};

// ---- counters before ----
void counters_before(Walk& w) {
  publish(w, "counters before the tests on " + std::to_string(w.n) + " nodes", stages_after(w, Stage::kCountersBefore));
  w.progress("counters: snapshot on " + std::to_string(w.n) + " nodes");
  w.t0 = Clock::now();
  w.before = w.cluster.snapshot_counters();
  for (int i = 0; i < w.n && i < static_cast<int>(w.before.size()); ++i)
    if (!w.before[static_cast<size_t>(i)].ok())
      w.rep.errors.push_back(w.before[static_cast<size_t>(i)].error().with_context("counters on " + host_of(w.rep, i)));
}

// ---- L0/L1: collective sweeps ----
void run_sweeps(Walk& w) {
  const auto& sweeps = w.params.sweeps;
  const auto dead = judge_dead(w.n, w.tested);
  if (!dead.empty() && !sweeps.empty()) {  // a collective over a dead pair would never return
    w.rep.inconclusive.push_back("collective sweeps not run: " + dead_text(dead[0], w.rep.hosts) +
                                 " would stall them");
    return;
  }
  // The screen ran first: a fault it names lets each sweep stop at the first size that shows it.
  const perf::SweepStop stop = w.screen ? sweep_stop_after(w.screen->screen, w.rep.hosts, w.params.sweep_stop) : perf::SweepStop{};
  for (size_t k = 0; k < sweeps.size(); ++k) {
    CollectiveSpec sweep = sweeps[k];
    sweep.stop = stop;
    std::vector<std::string> later;
    for (size_t j = k + 1; j < sweeps.size(); ++j) later.push_back("the " + sweeps[j].collective + " sweep");
    later.push_back(stages_after(w, Stage::kSweeps));
    publish(w, "the " + sweep.collective + " sweep (" + std::to_string(k + 1) + " of " + std::to_string(sweeps.size()) + ")",
            join(later));
    w.progress("bench: " + sweep.collective + " on " + std::to_string(w.n) + " nodes");
    auto r = w.cluster.run_collective(sweep);
    if (r.ok()) w.rep.bench.push_back(*r);
    else w.rep.errors.push_back(r.error().with_context("bench " + sweep.collective));
  }
}

// Round r of `rounds` (screen or confirmation), counted in rep.rounds. Empty when it failed (the
// error is in rep.errors as "<stage> round N"); progress says "<label>: round N/M (P pairs)".
std::optional<std::vector<PairSample>> run_pair_round(Walk& w, const std::vector<std::pair<int, int>>& pairs,
                                                      const char* label, const char* stage, size_t r,
                                                      size_t rounds) {
  const Stage st = std::string(stage) == "pairwise" ? Stage::kScreen : Stage::kConfirm;
  publish(w, std::string(stage) + " round " + std::to_string(r + 1) + " of " + std::to_string(rounds),
          after_item(w, st, std::string(stage) + " round", r, rounds));
  const auto dead = judge_dead(w.n, w.tested);  // never tested again: it would wait behind the first test
  std::vector<std::pair<int, int>> live;
  for (const auto& [a, b] : pairs)
    if (!known_dead(a, b, dead)) live.emplace_back(a, b);
  w.progress(std::string(label) + ": round " + std::to_string(r + 1) + "/" + std::to_string(rounds) + " (" +
             std::to_string(live.size()) + " pairs)");
  if (live.empty()) return std::vector<PairSample>{};
  auto res = w.cluster.run_round(live, w.rep.rounds, w.pair_size_bytes, w.params.pair_iters);
  ++w.rep.rounds;
  if (res.ok()) {
    w.tested.insert(w.tested.end(), res->begin(), res->end());
    return *res;
  }
  w.rep.errors.push_back(res.error().with_context(std::string(stage) + " round " + std::to_string(r + 1)));
  return std::nullopt;
}

// The screen's first round at growing sizes until the rates settle (triage/pair_sizing.h); the
// size found serves every later pair test. Returns the round at that size.
std::optional<std::vector<PairSample>> size_first_round(Walk& w, ScreenRun& s) {
  auto measure = [&](uint64_t size) {
    w.pair_size_bytes = size;
    w.progress("pairwise: sizing the pair tests: " + std::to_string(size >> 10) + " KiB per direction");
    return run_pair_round(w, s.schedule[0], "pairwise", "pairwise", 0, s.schedule.size());
  };
  PairSizing ps = size_pair_tests(measure, w.params.pair_iters, *w.params.pair_sizing);
  w.pair_size_bytes = ps.size_bytes;
  s.size_bytes = ps.size_bytes;
  s.sizing = ps;
  w.progress("pairwise: pair tests of " + std::to_string(ps.size_bytes >> 10) + " KiB per direction (" + ps.stop + ")");
  if (ps.samples.empty()) return std::nullopt;
  return ps.samples;
}

// ---- L2 screen: round-robin pairs ----
// Small clusters: every pair once (circle method, N-1 rounds). Large ones: a few random
// matchings, so the rounds do not grow with N (docs/localization.md#the-screen).
ScreenRun run_screen(Walk& w) {
  ScreenRun s;
  s.full = w.n <= w.params.round_robin_max_nodes;
  if (w.params.topology) s.leaves = map_leaves(w.rep.hosts, *w.params.topology);
  if (s.full) s.schedule = perf::round_robin_schedule(w.n);
  else if (!s.leaves.empty()) s.schedule = leaf_matchings(s.leaves, w.params.matching_rounds, w.params.seed);
  else s.schedule = random_matchings(w.n, w.params.matching_rounds, w.params.seed);
  s.size_bytes = w.pair_size_bytes;
  w.screen = &s;  // run_walk points it at the returned copy
  for (size_t r = 0; r < s.schedule.size(); ++r) {
    auto res = r == 0 && w.params.pair_sizing ? size_first_round(w, s)
                                              : run_pair_round(w, s.schedule[r], "pairwise", "pairwise", r, s.schedule.size());
    if (!res) continue;
    for (const auto& x : *res) {
      s.samples.push_back(x);
      s.value[ordered(x.a, x.b)] = x.bytes_per_s;
    }
  }
  s.screen = screen_pairs(w.n, s.samples, w.params.localize);
  if (!s.leaves.empty()) {  // a leaf's uplink explains its hosts' cross-leaf slowness
    s.uplinks = screen_uplinks(s.samples, s.leaves, w.params.localize);
    s.explained = explain_by_uplinks(s.screen, s.uplinks, s.leaves);
  }
  w.screen = nullptr;
  return s;
}

// Each node's counter findings from the first snapshot to `after` (nodes with both snapshots).
NodeFindings judge_window(const Walk& w, const Snapshots& after, double window_s) {
  NodeFindings out;
  for (int i = 0; i < w.n && i < static_cast<int>(after.size()) && i < static_cast<int>(w.before.size()); ++i)
    out[i] = judge_node(w.judge, w.before[static_cast<size_t>(i)], after[static_cast<size_t>(i)], window_s);
  return out;
}

// ---- hard suspects: counters that moved during the screen ----
std::vector<int> hard_suspects(Walk& w) {
  publish(w, "counters after the screen", stages_after(w, Stage::kCountersMid));
  w.progress("counters: snapshot after the screen");
  auto c_mid = w.cluster.snapshot_counters();
  std::vector<int> hard;
  for (const auto& [i, fs] : judge_window(w, c_mid, seconds_since(w.t0)))
    if (std::any_of(fs.begin(), fs.end(), is_hard)) hard.push_back(i);
  return hard;
}

// ---- confirmation ----
// Runs plan round r of `c` (decide() indexes samples by plan round).
void run_confirm_round(Walk& w, ConfirmRun& c, size_t r) {
  std::vector<std::pair<int, int>> pairs;
  for (const auto& pp : c.plan[r].pairs) pairs.emplace_back(pp.a, pp.b);
  auto res = run_pair_round(w, pairs, "confirm", "confirmation", r, c.plan.size());
  if (!res) return;
  for (auto x : *res) {
    x.round = static_cast<int>(r);
    c.samples.push_back(x);
  }
}

// `ring`: the all_reduce was sick, so the control pairs probe its ring (triage/link_bisection.h).
ConfirmRun run_confirmation(Walk& w, const Screen& screen, const std::vector<int>& hard, bool ring) {
  ConfirmRun c;
  c.plan = plan_confirmation(screen, w.params.localize, hard, ring);
  w.confirm = &c;  // run_walk points it at the returned copy
  for (size_t r = 0; r < c.plan.size(); ++r) run_confirm_round(w, c, r);
  w.confirm = nullptr;
  return c;
}

// The decision, with more re-test rounds for links slow in every re-test but short of the
// screen's family-wise count (Screen::link_retests); `ring`: their controls probe the ring.
Localization decide_confirmed(Walk& w, const Screen& s, ConfirmRun& c, bool ring) {
  Localization loc = decide(s, c.plan, c.samples, w.params.localize);
  for (int k = 0; k < s.link_retests && !loc.awaiting_retests.empty(); ++k) {
    c.plan.push_back(plan_retest_round(s, loc.awaiting_retests, ring ? static_cast<int>(c.plan.size() % 2) : -1));
    run_confirm_round(w, c, c.plan.size() - 1);
    loc = decide(s, c.plan, c.samples, w.params.localize);
  }
  return loc;
}

// ---- stage 3: the ring of a sick all_reduce, when nothing named explains it ----
void probe_sick_ring(Walk& w, const ScreenRun& sr, const ConfirmRun& c, Localization& loc) {
  const bool explained = !sr.uplinks.suspects.empty() ||
                         std::any_of(loc.suspects.begin(), loc.suspects.end(), [](const Suspect& x) {
                           return x.kind == "node" || x.kind == "link" || x.kind == "cluster";
                         });
  if (explained) return;
  RingProbeParams rpp = w.params.ring_probe;  // the rounds the confirmation left
  rpp.max_rounds = std::max(0, rpp.max_rounds - static_cast<int>(c.plan.size()));
  const int max_rounds = rpp.max_rounds;
  int k = 0;
  auto run = [&](const std::vector<std::pair<int, int>>& pairs) {
    return run_pair_round(w, pairs, "ring", "ring probe", static_cast<size_t>(k++), static_cast<size_t>(max_rounds));
  };
  RingProbe rp = probe_ring(sr.screen, loc, w.tested, w.params.localize, rpp, run);
  loc.suspects.insert(loc.suspects.end(), rp.links.begin(), rp.links.end());
  loc.inconclusive.insert(loc.inconclusive.end(), rp.inconclusive.begin(), rp.inconclusive.end());
  w.rep.ring_probe = {{"rounds", rp.rounds}, {"dark_edges", rp.dark_edges}, {"needed_retests", rp.needed_retests},
                      {"links", rp.links.size()}};
}

// {host, links, optics} of each node's snapshot (the members the counter pipeline fills).
nlohmann::json node_link_facts(const TriageReport& rep, const Snapshots& snaps) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < snaps.size() && i < rep.hosts.size(); ++i) {
    if (!snaps[i].ok() || !snaps[i]->is_object()) continue;
    const nlohmann::json& s = *snaps[i];
    out.push_back({{"host", rep.hosts[i]},
                   {"links", s.value("links", nlohmann::json::array())},
                   {"optics", s.value("optics", nlohmann::json::array())}});
  }
  return out;
}

// ---- counters after ----
// Each node's counter findings over the whole walk, subjects prefixed with the host; sets
// rep.window_s.
NodeFindings counters_after(Walk& w) {
  publish(w, "the final counters", stages_after(w, Stage::kCountersAfter));
  w.progress("counters: final snapshot");
  auto c1 = w.cluster.snapshot_counters();
  w.rep.window_s = seconds_since(w.t0);
  w.rep.nodes = node_link_facts(w.rep, c1);
  NodeFindings node_findings = judge_window(w, c1, w.rep.window_s);
  for (auto& [i, fs] : node_findings)
    for (auto& f : fs) f.subject = host_of(w.rep, i) + ":" + f.subject;
  return node_findings;
}

// ---- suspects with evidence (triage/suspect_evidence.h) ----
// A slow link whose ends are both fast with other partners: the screen value first, then the re-tests.
void fill_link_suspect(TriageSuspect& ts, const Suspect& sp, const TriageReport& rep, const ScreenRun& sr,
                       const LocalizeParams& lp) {
  int a = sp.nodes[0], b = sp.nodes[1];
  for (size_t k = 0; k < sp.tests.size(); ++k)
    ts.evidence.push_back(pair_evidence(rep, sp.tests[k], sp.test_ratios[k], "re-test"));
  Evidence e;
  e.metric = "screen bandwidth " + link_name(rep.hosts, a, b);
  auto sv = sr.value.find(ordered(a, b));
  if (sv != sr.value.end()) e.value = sv->second;
  else e.metric = "not in the screen: a ring edge of the slow all_reduce, first probe at ratio " + std::to_string(sp.screen_ratio).substr(0, 5);
  e.unit = "bytes/s";
  e.threshold = lp.pair_ratio * sr.screen.pair_ref_bytes_per_s;
  e.threshold_text = std::to_string(lp.pair_ratio).substr(0, 4) + " x the median healthy pair";
  e.source = "pairwise screen (round-robin)";
  ts.evidence.insert(ts.evidence.begin(), e);
  ts.action = "Only this pair is slow; both ends are fast with other partners. Check the path between " +
              ts.hosts[0] + " and " + ts.hosts[1] +
              " (routes, MTU, GID/VLAN, the switch ports and ECMP path), then re-run `fabdiag pairwise`.";
}

// ---- decision: suspects, cleared, inconclusive ----
void decide_suspects(TriageReport& rep, const ScreenRun& sr, const Localization& loc, const LocalizeParams& lp,
                     const NodeFindings& node_findings, const std::vector<PairSample>& tested) {
  std::set<int> named;
  for (const auto& d : judge_dead(static_cast<int>(rep.hosts.size()), tested)) {  // never completed
    rep.suspects.push_back(dead_suspect(d, rep.hosts));
    if (d.kind == "node") named.insert(d.nodes[0]);
  }
  for (const auto& sp : loc.suspects) {
    TriageSuspect ts;
    ts.kind = sp.kind;
    for (int x : sp.nodes) ts.hosts.push_back(host_of(rep, x));
    ts.layer = Layer::kLocalization;
    if (sp.kind == "node" && sp.tests.empty()) {  // a small cluster's verdict: the screen is all there is
      named.insert(sp.nodes[0]);
      ts.evidence.push_back(ratio_evidence(sp, "both of its pairs, against the fastest pair or the reference"));
      ts.action = "Both pairs with " + ts.hosts[0] + " are slow while the other pair is not: check its NICs with `fabdiag check`.";
    } else if (sp.kind == "node") {
      named.insert(sp.nodes[0]);
      fill_node_suspect(ts, sp, rep, sr.screen, node_findings);
    } else if (sp.kind == "pair") {
      ts.evidence.push_back(ratio_evidence(sp, "the only pair, against the reference"));
      ts.action = "One of these two is slow (two nodes cannot tell which): test each with a third, known-good node.";
    } else if (sp.kind == "cluster") {
      ts.evidence.push_back(ratio_evidence(sp, "median node against the reference (baseline or expected rate)"));
      ts.action = "Every node is equally slow against the reference: check the fabric-wide settings (link speed, MTU, "
                  "congestion control, the switch firmware) before any node.";
    } else {
      fill_link_suspect(ts, sp, rep, sr, lp);
    }
    if (sp.kind == "node") add_direction(ts, node_direction(sp.nodes[0], tested, lp.node_ratio));
    if (sp.kind == "pair") add_direction(ts, pair_direction(sp.nodes[0], sp.nodes[1], tested, lp.node_ratio));
    rep.suspects.push_back(std::move(ts));
  }
  for (const auto& us : sr.uplinks.suspects) {  // leaf uplinks: the hosts' counters as evidence
    TriageSuspect ts = uplink_suspect(us, sr.uplinks, sr.leaves, rep.hosts);
    const std::string action = ts.action;  // a host port's action would not fit an uplink
    for (int x : us.nodes) add_counter_evidence(ts, node_findings, x);
    ts.action = action;
    rep.suspects.push_back(std::move(ts));
  }
  for (int x : sr.explained) rep.cleared.emplace_back(host_of(rep, x), uplink_cleared_reason(sr.uplinks, sr.leaves, x));
  // Nodes with hardware counter faults are suspects even when their bandwidth is normal.
  for (const auto& [i, fs] : node_findings) {
    if (named.count(i) || !std::any_of(fs.begin(), fs.end(), is_hard)) continue;
    rep.suspects.push_back(counter_fault_suspect(rep, i, node_findings, loc));
    named.insert(i);
  }
  for (const auto& [node, reason] : loc.cleared)
    if (!named.count(node)) rep.cleared.emplace_back(host_of(rep, node), name_nodes(reason, rep.hosts));
  for (const auto& text : loc.inconclusive) rep.inconclusive.push_back(name_nodes(text, rep.hosts));
  for (const auto& wt : loc.watch)
    if (!named.count(wt.node)) rep.watch.push_back({host_of(rep, wt.node), wt.ratio});
}

// ---- data for the report ----
// fabdiag.pairwise/1-shaped data of the screen.
nlohmann::json pairwise_json(const TriageReport& rep, const WalkParams& params, const ScreenRun& sr) {
  const int n = static_cast<int>(rep.hosts.size());
  nlohmann::json pw;
  pw["hosts"] = rep.hosts;
  pw["size_bytes"] = sr.size_bytes;
  if (!sr.sizing.is_null()) pw["pair_sizing"] = sr.sizing;
  pw["node_threshold"] = sr.screen.node_threshold;
  pw["iters"] = params.pair_iters;
  pw["rounds"] = sr.schedule;
  if (sr.full) {  // only where it is small enough to read
    pw["matrix_bytes_per_s"] = screen_matrix(n, sr.value);
    pw["directed_bytes_per_s"] = directed_matrix(n, sr.samples);
  }
  else pw["samples"] = sr.samples;
  pw["schedule"] = sr.full ? "round_robin" : "random_matchings";
  nlohmann::json med = nlohmann::json::object();
  for (int i = 0; i < n; ++i) med[host_of(rep, i)] = num_or_null(sr.screen.node_median_bytes_per_s[static_cast<size_t>(i)]);
  pw["node_median_bytes_per_s"] = med;
  pw["fleet_median_bytes_per_s"] = num_or_null(sr.screen.node_ref_bytes_per_s);
  pw["pair_reference_bytes_per_s"] = num_or_null(sr.screen.pair_ref_bytes_per_s);
  pw["pair_ratio"] = params.localize.pair_ratio;  // a pair below pair_ratio x the pair reference is slow
  return pw;
}

// The planned confirmation rounds with each pair's role and measured value.
nlohmann::json confirmation_json(const TriageReport& rep, const ConfirmRun& c) {
  nlohmann::json cj = nlohmann::json::array();
  for (size_t r = 0; r < c.plan.size(); ++r) {
    nlohmann::json round = nlohmann::json::array();
    for (const auto& pp : c.plan[r].pairs) {
      double v = NAN;
      for (const auto& s : c.samples)
        if (s.round == static_cast<int>(r) && ((s.a == pp.a && s.b == pp.b) || (s.a == pp.b && s.b == pp.a))) v = s.bytes_per_s;
      round.push_back({{"hosts", {host_of(rep, pp.a), host_of(rep, pp.b)}},
                       {"role", to_string(pp.role)},
                       {"bytes_per_s", num_or_null(v)}});
    }
    cj.push_back(round);
  }
  return cj;
}

void publish(const Walk& w, const std::string& during, const std::string& not_run) {
  if (!w.on_step) return;
  TriageReport so_far = w.rep;
  if (w.screen) {
    ScreenRun s = *w.screen;
    s.screen = screen_pairs(w.n, s.samples, w.params.localize);
    so_far.pairwise = pairwise_json(so_far, w.params, s);
  }
  if (w.confirm) so_far.confirmation = confirmation_json(so_far, *w.confirm);
  w.on_step(so_far, during, not_run);
}

}  // namespace

TriageReport run_walk(ClusterRunner& cluster, const WalkParams& walk_params, const CounterJudge& judge,
                      const Progress& progress, const WalkStepSink& on_step) {
  TriageReport rep;
  rep.hosts = cluster.hosts();
  WalkParams params = walk_params;  // with each node's leaf: cross-leaf tests read against the oversubscription
  if (params.topology) params.localize.leaf_of = map_leaves(rep.hosts, *params.topology).leaf_of;
  Walk w{cluster, params, judge, progress, on_step, rep, static_cast<int>(rep.hosts.size()), params.pair_size_bytes,
         {}, {}, nullptr, nullptr, {}};

  counters_before(w);
  ScreenRun sr = run_screen(w);
  w.screen = &sr;
  run_sweeps(w);  // after the screen: skipped when a pair is dead
  const double busbw = all_reduce_busbw(rep.bench);
  const bool sick = !sr.full && ring_is_sick(busbw, sr.screen, params.ring_probe);  // every pair measured: no stage 3
  std::vector<int> hard = hard_suspects(w);
  ConfirmRun confirm = run_confirmation(w, sr.screen, hard, sick);
  w.confirm = &confirm;
  Localization loc = decide_confirmed(w, sr.screen, confirm, sick);
  if (sick) probe_sick_ring(w, sr, confirm, loc);
  judge_small_cluster(w.n, sr.samples, params.localize, loc);  // 2-3 nodes: no partners to confirm with
  NodeFindings node_findings = counters_after(w);

  decide_suspects(rep, sr, loc, params.localize, node_findings, w.tested);
  add_straggler_suspects(rep);  // from the sweeps' skew probe: pair tests cannot see these
  add_findings(rep, node_findings);
  rep.pairwise = pairwise_json(rep, params, sr);
  rep.confirmation = confirmation_json(rep, confirm);
  return rep;
}

nlohmann::json to_json(const TriageReport& r) {
  nlohmann::json j;
  j["hosts"] = r.hosts;
  j["suspects"] = nlohmann::json::array();
  for (const auto& s : r.suspects) {
    nlohmann::json sj = {{"kind", s.kind}, {"hosts", s.hosts}, {"layer", to_string(s.layer)},
                         {"evidence", s.evidence}, {"action", s.action}};
    if (!s.subject.empty()) sj["subject"] = s.subject;
    if (!s.leaves.empty()) sj["leaves"] = s.leaves;
    if (!s.direction.empty()) sj["direction"] = s.direction;
    if (s.no_completion_s > 0) {
      sj["dead"] = true;
      sj["no_completion_s"] = s.no_completion_s;
    }
    j["suspects"].push_back(std::move(sj));
  }
  j["cleared"] = nlohmann::json::array();
  for (const auto& [who, why] : r.cleared) j["cleared"].push_back({{"subject", who}, {"reason", why}});
  j["inconclusive"] = r.inconclusive;
  j["watch"] = nlohmann::json::array();
  for (const auto& [host, ratio] : r.watch) j["watch"].push_back({{"host", host}, {"ratio", num_or_null(ratio)}});
  j["bench"] = r.bench;
  j["pairwise"] = r.pairwise;
  j["confirmation"] = r.confirmation;
  j["rounds"] = r.rounds;
  if (!r.ring_probe.is_null()) j["ring_probe"] = r.ring_probe;
  j["window_s"] = r.window_s;
  j["nodes"] = r.nodes;
  return j;
}

}  // namespace fabdiag::triage
