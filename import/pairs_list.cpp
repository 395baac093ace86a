#include "import/pairs_list.h"

#include <cmath>
#include <limits>
#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "core/text.h"
#include "import/common.h"
#include "import/whole_lines.h"

namespace fabdiag {
namespace {

struct Reader {
  PairsListImport imp;
  LineTally other;
  // Per host its index, per unordered pair of indexes its entry in imp.pairs and the sum of its
  // values: a list of many rounds costs its distinct pairs, not its lines.
  std::map<std::string, int> index;
  std::vector<std::string> hosts;
  std::map<std::pair<int, int>, size_t> pair_at;
  std::vector<double> sums;

  int host(const std::string& h) {
    auto [it, added] = index.emplace(h, static_cast<int>(hosts.size()));
    if (added) hosts.push_back(h);
    return it->second;
  }
  void add(PairResult p) {
    int a = host(p.a), b = host(p.b);
    auto [it, added] = pair_at.emplace(std::make_pair(std::min(a, b), std::max(a, b)), imp.pairs.size());
    if (added) {
      sums.push_back(p.bytes_per_s);
      imp.pairs.push_back(std::move(p));
      return;
    }
    PairResult& kept = imp.pairs[it->second];
    double& sum = sums[it->second];
    sum += p.bytes_per_s;
    ++kept.measurements;
    kept.bytes_per_s = sum / static_cast<double>(kept.measurements);
    if (kept.note.empty()) kept.note = std::move(p.note);
  }
};

// "node01,node02     49.36  # crossing TOR" -> a pair; false for anything else.
bool read_pair(const std::string& t, size_t line_no, PairResult& p) {
  std::string body = t, note;
  if (auto hash = t.find('#'); hash != std::string::npos) {
    body = trim(t.substr(0, hash));
    note = trim(t.substr(hash + 1));
  }
  for (auto& c : body)
    if (c == ',' || c == '\t') c = ' ';
  auto w = split_ws(body);
  if (w.size() < 3 || w.size() > 4 || w[0] == w[1]) return false;
  auto v = parse_double(w[2]);
  if (!v || *v < 0 || !std::isfinite(*v)) return false;
  double scale = 1e9;
  if (w.size() == 4) {
    if (w[3] == "Gb/s" || w[3] == "Gbps") scale = 1e9 / 8;
    else if (w[3] != "GB/s" && w[3] != "GBps") return false;
  }
  p = {w[0], w[1], *v * scale, note, line_no, 1};
  return true;
}

void read_line(Reader& r, const std::string& raw, size_t line_no) {
  std::string t = trim(raw);
  if (t.empty() || t[0] == '#') return;  // comments and "###" titles
  PairResult p;
  if (read_pair(t, line_no, p)) r.add(std::move(p));
  else r.other.add(line_no, t);
}

perf::PairwiseMatrix matrix_of(const Reader& r) {
  auto m = perf::make_empty_matrix(r.hosts, 0, 0);
  for (const auto& [k, at] : r.pair_at) {
    double v = r.imp.pairs[at].bytes_per_s;
    m.matrix_bytes_per_s[static_cast<size_t>(k.first)][static_cast<size_t>(k.second)] = v;
    m.matrix_bytes_per_s[static_cast<size_t>(k.second)][static_cast<size_t>(k.first)] = v;
  }
  return m;
}

}  // namespace

Result<PairsListImport> import_pairs_list(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_pairs_list(*lines, source, ReadLimits{});
}

Result<PairsListImport> import_pairs_list(LineSource& lines, const std::string& source, const ReadLimits&) {
  Reader r;
  r.imp.source = source;
  auto st = read_whole_lines(
      lines, source, [&r](const std::string& l, size_t n) { read_line(r, l, n); },
      [&r] { return !r.imp.pairs.empty(); }, r.imp.gaps);
  if (!st) return st.error();
  if (r.imp.pairs.empty())
    return not_this_format("a list of pairs (\"hostA,hostB  <GB/s>  [# note]\" lines)", source, r.other);
  add_tally_gap(r.imp.gaps, source, r.other, "line(s) not a pair");
  r.imp.matrix = matrix_of(r);
  return std::move(r.imp);
}

}  // namespace fabdiag
