#include "import/pairs_list.h"

#include <cmath>
#include <limits>
#include <map>

#include "core/text.h"
#include "import/common.h"
#include "import/whole_lines.h"

namespace fabdiag {
namespace {

struct Reader {
  PairsListImport imp;
  LineTally other;
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
  p = {w[0], w[1], *v * scale, note, line_no};
  return true;
}

void read_line(Reader& r, const std::string& raw, size_t line_no) {
  std::string t = trim(raw);
  if (t.empty() || t[0] == '#') return;  // comments and "###" titles
  PairResult p;
  if (read_pair(t, line_no, p)) r.imp.pairs.push_back(std::move(p));
  else r.other.add(line_no, t);
}

perf::PairwiseMatrix matrix_of(const std::vector<PairResult>& pairs) {
  std::vector<std::string> hosts;
  std::map<std::string, int> index;
  for (const auto& p : pairs)
    for (const auto* h : {&p.a, &p.b})
      if (index.emplace(*h, static_cast<int>(hosts.size())).second) hosts.push_back(*h);
  auto m = perf::make_empty_matrix(hosts, 0, 0);
  std::map<std::pair<int, int>, std::pair<double, int>> sums;
  for (const auto& p : pairs) {
    int a = index[p.a], b = index[p.b];
    auto& s = sums[{std::min(a, b), std::max(a, b)}];
    s.first += p.bytes_per_s;
    ++s.second;
  }
  for (const auto& [k, s] : sums) {
    double v = s.first / s.second;
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
  r.imp.matrix = matrix_of(r.imp.pairs);
  return std::move(r.imp);
}

}  // namespace fabdiag
