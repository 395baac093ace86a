#include "triage/localize.h"

#include <algorithm>
#include <map>
#include <limits>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "core/stats.h"

namespace fabdiag::triage {

const char* to_string(Role r) {
  switch (r) {
    case Role::kConfirmNode: return "confirm_node";
    case Role::kConfirmLink: return "confirm_link";
    case Role::kClearEnd: return "clear_end";
    case Role::kControl: return "control";
  }
  return "control";
}

namespace {

std::pair<int, int> ordered(int a, int b) { return a < b ? std::make_pair(a, b) : std::make_pair(b, a); }

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Bandwidth noise is multiplicative (a busy core halves a rate; it does not subtract a constant),
// so outliers are judged on log values: on a linear scale a rate of 0 is only about
// 0.6745 * median / MAD below the median, and a noisy round could never flag anything.
std::optional<double> log_modz(double x, const std::vector<double>& values) {
  if (!(x > 0)) return -std::numeric_limits<double>::infinity();
  std::vector<double> logs;
  for (double v : values)
    if (v > 0) logs.push_back(std::log(v));
  return modified_z(std::log(x), logs);
}

}  // namespace

Screen screen_pairs(int nodes, const std::vector<PairSample>& samples, const LocalizeParams& p) {
  Screen s;
  s.nodes = nodes;
  // Median per pair over repeats.
  std::map<std::pair<int, int>, std::vector<double>> per_pair;
  for (const auto& x : samples)
    if (x.a != x.b && x.a >= 0 && x.b >= 0 && x.a < nodes && x.b < nodes && std::isfinite(x.bytes_per_s))
      per_pair[ordered(x.a, x.b)].push_back(x.bytes_per_s);
  std::map<std::pair<int, int>, double> pair_value;
  for (auto& [k, v] : per_pair) pair_value[k] = *median(v);

  // Node medians over partners. Pass 1 finds nodes that are slow by ratio alone; pass 2 judges
  // every node again over partners outside that set, so that several slow nodes do not drag the
  // medians of healthy nodes down with them (LOCALIZATION.md: reference contamination).
  auto node_medians = [&](const std::vector<int>& exclude) {
    std::vector<std::vector<double>> by_node(static_cast<size_t>(nodes));
    for (const auto& [k, v] : pair_value) {
      if (!contains(exclude, k.second)) by_node[static_cast<size_t>(k.first)].push_back(v);
      if (!contains(exclude, k.first)) by_node[static_cast<size_t>(k.second)].push_back(v);
    }
    return by_node;
  };
  auto all_partners = node_medians({});
  std::vector<int> pass1;
  {
    std::vector<double> meds;
    for (const auto& v : all_partners)
      if (static_cast<int>(v.size()) >= p.min_partners) meds.push_back(*median(v));
    double ref = median(meds).value_or(NAN);
    for (int i = 0; i < nodes; ++i) {
      const auto& v = all_partners[static_cast<size_t>(i)];
      if (static_cast<int>(v.size()) >= p.min_partners && *median(v) < p.node_ratio * ref) pass1.push_back(i);
    }
  }
  auto clean_partners = node_medians(pass1);
  s.node_median_bytes_per_s.assign(static_cast<size_t>(nodes), NAN);
  s.node_modz.assign(static_cast<size_t>(nodes), NAN);
  s.partners.assign(static_cast<size_t>(nodes), 0);
  std::vector<double> judged_medians;
  for (int i = 0; i < nodes; ++i) {
    const auto& all = all_partners[static_cast<size_t>(i)];
    const auto& clean = clean_partners[static_cast<size_t>(i)];
    const auto& v = static_cast<int>(clean.size()) >= p.min_partners ? clean : all;
    s.partners[static_cast<size_t>(i)] = static_cast<int>(all.size());
    if (auto m = median(v)) s.node_median_bytes_per_s[static_cast<size_t>(i)] = *m;
    if (static_cast<int>(all.size()) >= p.min_partners) judged_medians.push_back(*median(v));
  }
  if (auto r = median(judged_medians)) s.node_ref_bytes_per_s = *r;
  for (int i = 0; i < nodes; ++i) {
    double m = s.node_median_bytes_per_s[static_cast<size_t>(i)];
    if (s.partners[static_cast<size_t>(i)] < p.min_partners) {
      s.too_few_partners.push_back(i);
      continue;
    }
    auto z = log_modz(m, judged_medians);
    if (z) s.node_modz[static_cast<size_t>(i)] = *z;
    if (std::isfinite(s.node_ref_bytes_per_s) && m < p.node_ratio * s.node_ref_bytes_per_s && z &&
        *z < p.modz_limit)
      s.node_candidates.push_back(i);
  }

  // Pairs between non-candidates are the comparable class for the pair reference.
  std::vector<double> healthy;
  for (const auto& [k, v] : pair_value)
    if (!contains(s.node_candidates, k.first) && !contains(s.node_candidates, k.second))
      healthy.push_back(v);
  if (auto r = median(healthy)) s.pair_ref_bytes_per_s = *r;
  for (const auto& [k, v] : pair_value) {
    bool a_cand = contains(s.node_candidates, k.first), b_cand = contains(s.node_candidates, k.second);
    if (a_cand && b_cand) continue;
    if (a_cand || b_cand) {
      // A node candidate may be a healthy end of a slow link whose noise pulled its median
      // down: keep its pairs that are far below even its own median, so that the link is still
      // judged if the node is cleared. A slow node's pairs all sit near its median.
      double own = s.node_median_bytes_per_s[static_cast<size_t>(a_cand ? k.first : k.second)];
      if (std::isfinite(own) && v < p.pair_ratio * own) s.link_candidates.push_back(k);
      continue;
    }
    auto z = log_modz(v, healthy);
    if (std::isfinite(s.pair_ref_bytes_per_s) && v < p.pair_ratio * s.pair_ref_bytes_per_s && z &&
        *z < p.modz_limit)
      s.link_candidates.push_back(k);
  }
  for (int i = 0; i < nodes; ++i) {
    bool link_end = std::any_of(s.link_candidates.begin(), s.link_candidates.end(),
                                [&](const auto& l) { return l.first == i || l.second == i; });
    if (!contains(s.node_candidates, i) && !link_end && !contains(s.too_few_partners, i))
      s.good.push_back(i);
  }
  return s;
}

std::vector<PlannedRound> plan_confirmation(const Screen& s, const LocalizeParams& p,
                                            const std::vector<int>& hard) {
  std::vector<int> suspects = s.node_candidates;
  for (int h : hard)
    if (!contains(suspects, h)) suspects.push_back(h);
  std::vector<int> good;
  for (int g : s.good)
    if (!contains(hard, g)) good.push_back(g);
  std::vector<PlannedRound> rounds;
  if (suspects.empty() && s.link_candidates.empty()) return rounds;

  auto add_controls = [&](PlannedRound& r, std::set<int>& used) {
    int pending = -1;
    for (int g : good) {
      if (used.count(g)) continue;
      if (pending < 0) {
        pending = g;
      } else {
        r.pairs.push_back(PlannedPair{pending, g, Role::kControl, -1, {-1, -1}});
        used.insert(pending);
        used.insert(g);
        pending = -1;
      }
    }
  };
  // A good partner not used in this round, preferring one this subject has not met yet.
  std::map<int, std::set<int>> met;
  auto pick_partner = [&](int subject, const std::set<int>& used) {
    int fallback = -1;
    for (int g : good) {
      if (used.count(g) || g == subject) continue;
      if (!met[subject].count(g)) return g;
      if (fallback < 0) fallback = g;
    }
    return fallback;
  };

  // Confirmation rounds: greedy, node-disjoint, until every suspect and link has its repeats
  // (links sharing an end need more rounds), bounded so a noisy screen cannot run forever.
  std::map<int, int> node_left;
  for (int n : suspects) node_left[n] = p.confirm_repeats;
  std::map<std::pair<int, int>, int> link_left;
  for (const auto& l : s.link_candidates) link_left[l] = p.confirm_repeats;
  const int max_rounds = p.confirm_repeats * 3;
  for (int k = 0; k < max_rounds; ++k) {
    bool pending = std::any_of(node_left.begin(), node_left.end(), [](auto& x) { return x.second > 0; }) ||
                   std::any_of(link_left.begin(), link_left.end(), [](auto& x) { return x.second > 0; });
    if (!pending) break;
    PlannedRound r;
    std::set<int> used;
    for (auto& [n, left] : node_left) {
      if (left <= 0 || used.count(n)) continue;
      int g = pick_partner(n, used);
      if (g < 0) continue;
      r.pairs.push_back(PlannedPair{n, g, Role::kConfirmNode, n, {-1, -1}});
      used.insert(n);
      used.insert(g);
      met[n].insert(g);
      --left;
    }
    for (auto& [l, left] : link_left) {
      if (left <= 0 || used.count(l.first) || used.count(l.second)) continue;
      r.pairs.push_back(PlannedPair{l.first, l.second, Role::kConfirmLink, -1, l});
      used.insert(l.first);
      used.insert(l.second);
      --left;
    }
    if (r.pairs.empty()) break;  // nothing schedulable (no good partners left)
    add_controls(r, used);
    rounds.push_back(std::move(r));
  }
  // Each end of each link candidate meets a fresh good partner once.
  std::vector<std::pair<std::pair<int, int>, int>> ends;
  for (const auto& l : s.link_candidates) {
    ends.push_back({l, l.first});
    ends.push_back({l, l.second});
  }
  for (int k = 0; k < max_rounds && !ends.empty(); ++k) {
    PlannedRound r;
    std::set<int> used;
    std::vector<std::pair<std::pair<int, int>, int>> rest;
    for (const auto& [l, end] : ends) {
      int g = used.count(end) ? -1 : pick_partner(end, used);
      if (g < 0) {
        rest.push_back({l, end});
        continue;
      }
      r.pairs.push_back(PlannedPair{end, g, Role::kClearEnd, end, l});
      used.insert(end);
      used.insert(g);
      met[end].insert(g);
    }
    if (r.pairs.empty()) break;
    add_controls(r, used);
    rounds.push_back(std::move(r));
    ends = std::move(rest);
  }
  return rounds;
}

Localization decide(const Screen& s, const std::vector<PlannedRound>& plan,
                    const std::vector<PairSample>& confirm, const LocalizeParams& p) {
  Localization out;
  // Sample lookup by (round, unordered pair).
  std::map<std::pair<int, std::pair<int, int>>, double> value;
  for (const auto& x : confirm) value[{x.round, ordered(x.a, x.b)}] = x.bytes_per_s;
  auto sample_of = [&](int round, int a, int b) {
    auto it = value.find({round, ordered(a, b)});
    return it == value.end() ? NAN : it->second;
  };
  std::vector<double> round_ref(plan.size(), NAN);
  const double fallback = std::isfinite(s.pair_ref_bytes_per_s) ? s.pair_ref_bytes_per_s : s.node_ref_bytes_per_s;
  for (size_t r = 0; r < plan.size(); ++r) {
    std::vector<double> ctl;
    for (const auto& pp : plan[r].pairs)
      if (pp.role == Role::kControl) ctl.push_back(sample_of(static_cast<int>(r), pp.a, pp.b));
    // With few control pairs one noisy control would move the reference, so the screen
    // reference joins them as one more vote.
    if (std::isfinite(fallback)) ctl.push_back(fallback);
    round_ref[r] = median(ctl).value_or(NAN);
  }

  struct Tally {
    std::vector<PairSample> tests;
    std::vector<double> ratios;
  };
  std::map<int, Tally> node_tally;
  std::map<std::pair<int, int>, Tally> link_tally;
  std::map<std::pair<std::pair<int, int>, int>, Tally> end_tally;
  for (size_t r = 0; r < plan.size(); ++r) {
    for (const auto& pp : plan[r].pairs) {
      double v = sample_of(static_cast<int>(r), pp.a, pp.b);
      if (!std::isfinite(v) || !std::isfinite(round_ref[r]) || round_ref[r] <= 0) continue;
      PairSample smp{pp.a, pp.b, v, static_cast<int>(r)};
      double ratio = v / round_ref[r];
      Tally* t = nullptr;
      if (pp.role == Role::kConfirmNode) t = &node_tally[pp.subject];
      if (pp.role == Role::kConfirmLink) t = &link_tally[pp.link];
      if (pp.role == Role::kClearEnd) t = &end_tally[{pp.link, pp.subject}];
      if (t) {
        t->tests.push_back(smp);
        t->ratios.push_back(ratio);
      }
    }
  }

  // Nodes (screen candidates and hard suspects: every kConfirmNode subject in the plan).
  std::set<int> node_subjects;
  for (const auto& r : plan)
    for (const auto& pp : r.pairs)
      if (pp.role == Role::kConfirmNode) node_subjects.insert(pp.subject);
  for (int c : s.node_candidates) node_subjects.insert(c);
  for (int n : node_subjects) {
    const Tally& t = node_tally[n];
    int votes = static_cast<int>(std::count_if(t.ratios.begin(), t.ratios.end(),
                                               [&](double r) { return r < p.node_ratio; }));
    int trials = static_cast<int>(t.ratios.size());
    double screen_ratio = s.node_median_bytes_per_s[static_cast<size_t>(n)] / s.node_ref_bytes_per_s;
    if (votes >= p.confirm_votes) {
      out.suspects.push_back(Suspect{"node", {n}, screen_ratio, median(t.ratios).value_or(NAN), votes, trials, t.tests, t.ratios});
    } else if (trials - votes > p.confirm_repeats - p.confirm_votes || trials >= p.confirm_repeats) {
      out.cleared.emplace_back(n, "passed " + std::to_string(trials - votes) + " of " +
                                      std::to_string(trials) + " tests with known-good partners");
    } else {
      out.inconclusive.push_back("node {" + std::to_string(n) + "}: only " + std::to_string(trials) +
                                 " confirmation tests ran (" + std::to_string(votes) + " slow); need " +
                                 std::to_string(p.confirm_votes) + " slow of " + std::to_string(p.confirm_repeats));
    }
  }

  auto is_node_suspect = [&](int n) {
    return std::any_of(out.suspects.begin(), out.suspects.end(),
                       [&](const Suspect& x) { return x.kind == "node" && x.nodes[0] == n; });
  };
  for (const auto& l : s.link_candidates) {
    if (is_node_suspect(l.first) || is_node_suspect(l.second)) continue;  // explained by the node
    const Tally& t = link_tally[l];
    int votes = static_cast<int>(std::count_if(t.ratios.begin(), t.ratios.end(),
                                               [&](double r) { return r < p.pair_ratio; }));
    int trials = static_cast<int>(t.ratios.size());
    auto end_ok = [&](int end) {
      auto it = end_tally.find({l, end});
      if (it == end_tally.end() || it->second.ratios.empty()) {
        auto nt = node_tally.find(end);  // a cleared node candidate: its confirmation tests
        if (nt == node_tally.end() || nt->second.ratios.empty()) return 0;  // unknown
        return median(nt->second.ratios).value() >= p.pair_ratio ? 1 : -1;
      }
      // The end already passed the screen (median over all its partners); the fresh-partner test
      // only has to show that it is not slow in the link's regime: a node fault would put it
      // below pair_ratio too, while one noisy concurrent test often dips below node_ratio.
      return median(it->second.ratios).value() >= p.pair_ratio ? 1 : -1;
    };
    int ea = end_ok(l.first), eb = end_ok(l.second);
    std::string name = "{" + std::to_string(l.first) + "}<->{" + std::to_string(l.second) + "}";
    if (votes >= p.confirm_votes && ea == 1 && eb == 1) {
      Suspect sp{"link", {l.first, l.second}, NAN, median(t.ratios).value_or(NAN), votes, trials, t.tests, t.ratios};
      for (int end : {l.first, l.second}) {
        const Tally& e = end_tally[{l, end}];
        sp.tests.insert(sp.tests.end(), e.tests.begin(), e.tests.end());
        sp.test_ratios.insert(sp.test_ratios.end(), e.ratios.begin(), e.ratios.end());
      }
      out.suspects.push_back(std::move(sp));
    } else if (votes >= p.confirm_votes) {
      out.inconclusive.push_back("link " + name + " stayed slow in " + std::to_string(votes) + " of " +
                                 std::to_string(trials) + " re-tests, but an end could not be cleared with a fresh partner");
    } else if (trials >= p.confirm_votes) {
      out.cleared.emplace_back(l.first, "link " + name + " was fast in " + std::to_string(trials - votes) +
                                            " of " + std::to_string(trials) + " re-tests (screen dip was noise)");
    } else {
      out.inconclusive.push_back("link " + name + ": only " + std::to_string(trials) + " re-tests ran");
    }
  }
  for (int n : s.too_few_partners)
    out.inconclusive.push_back("node {" + std::to_string(n) + "}: measured with only " +
                               std::to_string(s.partners[static_cast<size_t>(n)]) + " partners (need " +
                               std::to_string(p.min_partners) + ")");
  return out;
}

std::string name_nodes(const std::string& text, const std::vector<std::string>& hosts) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    size_t close = text[i] == '{' ? text.find('}', i) : std::string::npos;
    if (close != std::string::npos) {
      std::string id = text.substr(i + 1, close - i - 1);
      if (!id.empty() && id.find_first_not_of("0123456789") == std::string::npos) {
        size_t k = std::stoul(id);
        if (k < hosts.size()) {
          out += hosts[k];
          i = close;
          continue;
        }
      }
    }
    out += text[i];
  }
  return out;
}

void to_json(nlohmann::json& j, const PairSample& s) {
  j = nlohmann::json{{"a", s.a}, {"b", s.b}, {"round", s.round}};
  j["bytes_per_s"] = std::isfinite(s.bytes_per_s) ? nlohmann::json(s.bytes_per_s) : nlohmann::json(nullptr);
}

void to_json(nlohmann::json& j, const Suspect& s) {
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  j = nlohmann::json{{"kind", s.kind},           {"nodes", s.nodes},   {"screen_ratio", num(s.screen_ratio)},
                     {"confirm_ratio", num(s.confirm_ratio)}, {"votes", s.votes}, {"trials", s.trials},
                     {"tests", s.tests}};
}

}  // namespace fabdiag::triage
