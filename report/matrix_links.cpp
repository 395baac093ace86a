#include "report/matrix_links.h"

#include <algorithm>
#include <map>
#include <queue>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "report/humanize.h"
#include "report/result_sources.h"

namespace fabdiag {

using report_detail::link_name;
using report_detail::margin_of;

namespace {

// Why a matrix link has its status (the rule of perf/pairwise_analysis.h, as the result
// recorded it: its outlier links, outlier nodes and inconclusive entries, its reference R and
// pair ratio).
enum class Why { kAtReference, kNoReference, kSlowLink, kSlowPair, kExplained, kInconclusive, kCleared, kSuspect };

// One matrix prepared for its pairs: the host lists of its decisions as index pairs and
// marks, so that judging a pair costs a few comparisons, not string compares.
class BlockView {
 public:
  BlockView(const ReportModel& m, size_t block) : b_(m.matrix_links[block]), h_(m.heatmaps[b_.heatmap]) {
    for (size_t k = 0; k < h_.hosts.size(); ++k) index_[h_.hosts[k]].push_back(k);
    slow_ = index_pairs(b_.slow);
    suspects_ = index_pairs(b_.suspects);
    node_why_.assign(h_.hosts.size(), nullptr);
    slow_node_.assign(h_.hosts.size(), 0);
    for (const auto& [host, why] : b_.unsure_nodes)
      for (size_t k : indices(host)) node_why_[k] = &why;
    for (const auto& host : b_.slow_nodes)
      for (size_t k : indices(host)) slow_node_[k] = 1;
    for (const auto& [hosts, why] : b_.inconclusive) {
      if (hosts.size() < 2) continue;
      Unsure u{std::vector<char>(h_.hosts.size(), 0), &why};
      for (const auto& name : hosts)
        for (size_t k : indices(name)) u.named[k] = 1;
      unsure_.push_back(std::move(u));
    }
  }

  const Heatmap& heatmap() const { return h_; }
  size_t hosts() const { return h_.hosts.size(); }

  // The pair i < j: false when measured in neither direction; else its status, why and the
  // text an inconclusive entry or an unsure end gives (`note`).
  bool judge(size_t i, size_t j, Outcome& status, Why& why, const std::string*& note,
             std::optional<double>& slower) const {
    const auto ab = h_.at(i, j), ba = h_.at(j, i);
    if (!ab && !ba) return false;
    slower = !ab ? ba : !ba ? ab : std::min(ab, ba);
    const double value = ab && ba ? (*ab + *ba) / 2 : *slower;  // rule 1: the mean of the directions
    const std::string* pair_note = nullptr;
    for (const auto& u : unsure_)
      if (u.named[i] && u.named[j]) pair_note = u.why;
    status = Outcome::kPass, why = Why::kAtReference, note = nullptr;
    const bool ref = b_.reference && *b_.reference > 0;
    if (has(slow_, i, j)) status = Outcome::kFail, why = Why::kSlowLink;
    else if (!ref) status = Outcome::kNotChecked, why = Why::kNoReference, note = pair_note;
    else if (value / *b_.reference < b_.pair_ratio) {
      const std::string* end_note = node_why_[i] ? node_why_[i] : node_why_[j];
      if (slow_node_[i] || slow_node_[j]) status = Outcome::kFail, why = Why::kExplained;
      else if (pair_note || end_note) status = Outcome::kNotChecked, why = Why::kInconclusive, note = pair_note ? pair_note : end_note;
      else status = Outcome::kFail, why = Why::kSlowPair;
    } else if (pair_note) {
      status = Outcome::kNotChecked, why = Why::kInconclusive, note = pair_note;
    }
    if (b_.cleared_by_walk && status == Outcome::kFail) status = Outcome::kPass, why = Why::kCleared;
    if (has(suspects_, i, j)) status = Outcome::kFail, why = Why::kSuspect;
    return true;
  }

  // The margin of a pair's verdict: measured (the slower direction) against the reference.
  std::optional<double> margin(const std::optional<double>& slower) const {
    return margin_of(slower, b_.reference, Outcome::kPass);
  }

  Verdict verdict(size_t i, size_t j) const {
    Outcome status;
    Why why;
    const std::string* note;
    std::optional<double> slower;
    judge(i, j, status, why, note, slower);
    Verdict v;
    v.source = b_.source;
    v.scope = "link";
    v.subject = link_name(h_.hosts[i], h_.hosts[j]);
    v.check = "pair bandwidth";
    v.status = status;
    const std::string ref_label = b_.reference ? "the " + b_.reference_source : "";
    for (const auto& [x, y] : {std::pair{i, j}, std::pair{j, i}})
      v.evidence.push_back(Evidence::number("bytes/s " + h_.hosts[x] + " -> " + h_.hosts[y], h_.at(x, y), "bytes/s",
                                            "pairwise matrix")
                               .expect(b_.reference, ref_label));
    v.measured = slower;
    v.expected = b_.reference;
    v.unit = "bytes/s";
    v.margin_pct = margin(slower);
    v.reason = reason(why, note, i, j);
    return v;
  }

  // The sentence of a pair's status.
  std::string reason(Why why, const std::string* note, size_t i, size_t j) const {
    const std::string ratio = "the pair ratio " + format_sig(b_.pair_ratio, 3) + " x the " + b_.reference_source;
    switch (why) {
      case Why::kAtReference: return "pair at or above " + ratio;
      case Why::kNoReference: return note ? *note : "no reference to judge the pair against";
      case Why::kSlowLink: return "slow link: both ends are fine with their other partners";
      case Why::kSlowPair: return "slow pair: below " + ratio;
      case Why::kExplained: return "slow pair: below " + ratio + ", explained by the slow node " + h_.hosts[slow_node_[i] ? i : j];
      case Why::kInconclusive: return note ? *note : "inconclusive";
      case Why::kCleared: return "the screen's outlier, cleared by the walk";
      case Why::kSuspect: return "suspect link";
    }
    return "";
  }

  // Whether the pair's failure is its slow node's (the node's chain covers it).
  bool explained_by_node(size_t i, size_t j) const { return slow_node_[i] || slow_node_[j]; }

  const std::vector<size_t>& indices(const std::string& host) const {
    static const std::vector<size_t> kNone;
    auto it = index_.find(host);
    return it == index_.end() ? kNone : it->second;
  }

 private:
  struct Unsure {
    std::vector<char> named;  // named[k]: hosts[k] is one of the entry's hosts
    const std::string* why;
  };

  // Pairs of names as sorted (lower, higher) index pairs, every index a name has.
  std::vector<std::pair<size_t, size_t>> index_pairs(const std::vector<std::pair<std::string, std::string>>& names) const {
    std::vector<std::pair<size_t, size_t>> out;
    for (const auto& [x, y] : names)
      for (size_t a : indices(x))
        for (size_t b : indices(y))
          if (a != b) out.emplace_back(std::min(a, b), std::max(a, b));
    std::sort(out.begin(), out.end());
    return out;
  }

  static bool has(const std::vector<std::pair<size_t, size_t>>& pairs, size_t i, size_t j) {
    return !pairs.empty() && std::binary_search(pairs.begin(), pairs.end(), std::pair{i, j});
  }

  const MatrixLinks& b_;
  const Heatmap& h_;
  std::unordered_map<std::string, std::vector<size_t>> index_;
  std::vector<std::pair<size_t, size_t>> slow_, suspects_;
  std::vector<Unsure> unsure_;
  std::vector<const std::string*> node_why_;  // per host: its one-host inconclusive reason
  std::vector<char> slow_node_;               // per host: an outlier node
};

// Visits every link in order: fn_stored(index) for a stored one, fn_block(view, block, i, j,
// status, margin) for a matrix's.
template <typename Stored, typename Made>
void visit(const ReportModel& m, Stored&& fn_stored, Made&& fn_made) {
  std::vector<size_t> order(m.matrix_links.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return m.matrix_links[a].before < m.matrix_links[b].before; });
  size_t next = 0;
  auto blocks_before = [&](size_t stored) {
    for (; next < order.size() && m.matrix_links[order[next]].before <= stored; ++next) {
      const BlockView view(m, order[next]);
      const size_t n = view.hosts();
      for (size_t i = 0; i < n; ++i)
        for (size_t j = i + 1; j < n; ++j) fn_made(view, order[next], i, j);
    }
  };
  for (size_t s = 0; s < m.links.size(); ++s) {
    blocks_before(s);
    fn_stored(s);
  }
  blocks_before(static_cast<size_t>(-1));
}

}  // namespace

void for_each_link_outline(const ReportModel& m, const std::function<void(const LinkOutline&)>& fn) {
  visit(
      m, [&](size_t s) { fn(LinkOutline{LinkRef{LinkRef::kStored, s, 0}, m.links[s].status, m.links[s].margin_pct}); },
      [&](const BlockView& view, size_t block, size_t i, size_t j) {
        Outcome status;
        Why why;
        const std::string* note;
        std::optional<double> slower;
        if (view.judge(i, j, status, why, note, slower))
          fn(LinkOutline{LinkRef{block, i, j}, status, view.margin(slower)});
      });
}

void for_each_link(const ReportModel& m, const std::function<void(const Verdict&)>& fn) {
  visit(
      m, [&](size_t s) { fn(m.links[s]); },
      [&](const BlockView& view, size_t, size_t i, size_t j) {
        if (view.heatmap().at(i, j) || view.heatmap().at(j, i)) fn(view.verdict(i, j));
      });
}

size_t link_count(const ReportModel& m) {
  size_t n = m.links.size();
  for (const auto& b : m.matrix_links) {
    const Heatmap& h = m.heatmaps[b.heatmap];
    for (size_t i = 0; i < h.hosts.size(); ++i)
      for (size_t j = i + 1; j < h.hosts.size(); ++j)
        if (h.at(i, j) || h.at(j, i)) ++n;
  }
  return n;
}

std::vector<Verdict> all_links(const ReportModel& m) {
  std::vector<Verdict> out;
  for_each_link(m, [&](const Verdict& v) { out.push_back(v); });
  return out;
}

std::vector<Verdict> link_verdicts(const ReportModel& m, const std::vector<LinkRef>& refs) {
  std::map<size_t, BlockView> views;  // built once per matrix the refs touch
  std::vector<Verdict> out;
  out.reserve(refs.size());
  for (const auto& r : refs) {
    if (r.block == LinkRef::kStored) {
      out.push_back(m.links[r.i]);
      continue;
    }
    auto it = views.find(r.block);
    if (it == views.end()) it = views.emplace(std::piecewise_construct, std::forward_as_tuple(r.block),
                                              std::forward_as_tuple(m, r.block)).first;
    out.push_back(it->second.verdict(r.i, r.j));
  }
  return out;
}

bool matrix_has_pair(const ReportModel& m, const MatrixLinks& b, const std::string& x, const std::string& y) {
  const Heatmap& h = m.heatmaps[b.heatmap];
  for (size_t i = 0; i < h.hosts.size(); ++i) {
    if (h.hosts[i] != x && h.hosts[i] != y) continue;
    for (size_t j = i + 1; j < h.hosts.size(); ++j)
      if (((h.hosts[i] == x && h.hosts[j] == y) || (h.hosts[i] == y && h.hosts[j] == x)) && (h.at(i, j) || h.at(j, i)))
        return true;
  }
  return false;
}

bool matrix_makes_link(const ReportModel& m, const MatrixLinks& b, const std::string& subject) {
  const Heatmap& h = m.heatmaps[b.heatmap];
  for (size_t i = 0; i < h.hosts.size(); ++i) {
    const std::string& a = h.hosts[i];
    if (subject.compare(0, a.size(), a) != 0 || subject.compare(a.size(), 3, "<->") != 0) continue;
    const std::string_view rest = std::string_view(subject).substr(a.size() + 3);
    for (size_t j = i + 1; j < h.hosts.size(); ++j)
      if (h.hosts[j] == rest && (h.at(i, j) || h.at(j, i))) return true;
  }
  return false;
}

std::vector<LinkRef> links_to_list(const ReportModel& m, size_t limit) {
  // Not passed: the first `limit` in order. Passed: the `limit` least margins, ties by order
  // (a max-heap on (margin, position) drops the greatest).
  std::vector<LinkRef> failing;
  using Entry = std::tuple<double, size_t, LinkRef>;
  auto less = [](const Entry& a, const Entry& b) {
    return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b) : std::get<1>(a) < std::get<1>(b);
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(less)> passing(less);
  std::vector<LinkRef> all;  // while there are at most `limit` links: every one, in order
  size_t seen = 0;
  for_each_link_outline(m, [&](const LinkOutline& o) {
    if (seen++ < limit) all.push_back(o.ref);
    else if (!all.empty()) all.clear(), all.shrink_to_fit();
    if (o.status != Outcome::kPass) {
      if (failing.size() < limit) failing.push_back(o.ref);
      return;
    }
    passing.emplace(o.margin_pct.value_or(0), seen, o.ref);
    if (passing.size() > limit) passing.pop();
  });
  if (seen <= limit) return all;
  std::vector<Entry> least;
  while (!passing.empty()) least.push_back(passing.top()), passing.pop();
  std::sort(least.begin(), least.end(), less);
  for (const auto& e : least) {
    if (failing.size() >= limit) break;
    failing.push_back(std::get<2>(e));
  }
  return failing;
}

}  // namespace fabdiag
