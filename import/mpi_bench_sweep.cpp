// Line cleanup, header columns and sweep judgements shared by the MPI benchmark readers
// (import/mpi_bench_sweep.h; docs/fabric.md#mpi-benchmarks).
#include "import/mpi_bench_sweep.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "core/text.h"
#include "import/common.h"
#include "import/host_prefix.h"

namespace fabdiag {
namespace {


// "00:55:22" (a CI log's clock before every line).
bool is_clock(std::string_view w) {
  return w.size() == 8 && w[2] == ':' && w[5] == ':' && all_digits(w.substr(0, 2)) && all_digits(w.substr(3, 2)) &&
         all_digits(w.substr(6, 2));
}

std::string mbps(double bytes_per_s) {
  char b[48];
  std::snprintf(b, sizeof b, "%.2f MB/s", bytes_per_s / 1e6);
  return b;
}

std::string pct(double share) { return std::to_string(static_cast<int>(share * 100 + 0.5)) + "%"; }

Finding sweep_finding(const SweepSubject& s, const std::string& what, const BandwidthPoint& p) {
  Finding f;
  f.severity = Severity::kWarn;
  f.layer = Layer::kCollective;
  f.code = s.code_prefix + "_bandwidth_" + what;
  f.subject = s.subject;
  f.evidence.push_back(Evidence::number("bandwidth at " + std::to_string(p.size_bytes) + " B", p.bytes_per_s, "bytes/s",
                                        line_source(s.source, p.line)));
  return f;
}

}  // namespace

std::string mpi_bench_line_text(std::string_view raw, std::string* host) {
  std::string t = trim(strip_launcher_tags(raw));
  for (int pass = 0; pass < 3; ++pass) {
    size_t sp = t.find_first_of(" \t");
    std::string first = t.substr(0, sp);
    if (is_clock(first)) {
      t = trim(t.substr(first.size()));
    } else if (first.size() >= 3 && first.front() == '[' && first.back() == ']' &&
               all_digits(std::string_view(first).substr(1, first.size() - 2))) {
      t = trim(t.substr(first.size()));  // "[0] " rank tag
    } else {
      HostPrefixed hp = split_host_prefix(t);
      if (hp.host.empty()) break;
      if (host) *host = hp.host;
      t = trim(hp.text);
    }
  }
  return t;
}

std::vector<std::string> split_header_columns(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  size_t blanks = 0;
  for (char c : text) {
    if (c == ' ' || c == '\t') {
      blanks += c == '\t' ? 2 : 1;
      continue;
    }
    if (blanks >= 2 && !cur.empty()) {
      out.push_back(cur);
      cur.clear();
    } else if (blanks == 1 && !cur.empty()) {
      cur += ' ';
    }
    blanks = 0;
    cur += c;
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::optional<Finding> sweep_below_line_rate(const std::vector<BandwidthPoint>& sweep, const SweepSubject& s,
                                             std::optional<double> line_rate_gbit_per_s) {
  if (!line_rate_gbit_per_s || *line_rate_gbit_per_s <= 0) return std::nullopt;
  const BandwidthPoint* best = nullptr;
  for (const auto& p : sweep)
    if (p.size_bytes >= kMpiBenchMinLineRateSizeBytes && (!best || p.bytes_per_s > best->bytes_per_s)) best = &p;
  const double ceiling = *line_rate_gbit_per_s * 1e9 / 8 * s.directions;  // bytes/s
  if (!best || best->bytes_per_s >= kMpiBenchBelowLineRateShare * ceiling) return std::nullopt;
  Finding f = sweep_finding(s, "below_line_rate", *best);
  f.evidence.back().expect(kMpiBenchBelowLineRateShare * ceiling, ">= 90% of " + mbps(ceiling));
  char gbit[48];
  std::snprintf(gbit, sizeof gbit, "%g", *line_rate_gbit_per_s);
  std::string rate = std::string(gbit) + " Gb/s line rate" +
                     (s.directions > 1 ? " in both directions" : "");
  f.message = s.subject + " reaches at best " + mbps(best->bytes_per_s) + " (" + pct(best->bytes_per_s / ceiling) +
              " of " + mbps(ceiling) + ", the " + rate + " given with --line-rate) at " +
              std::to_string(best->size_bytes) + " B";
  f.action = "The path between the two ranks is slow: check both ports' rate and width (fabdiag check), the MTU end "
             "to end, that MPI used the RDMA transport (UCX_TLS / the btl, not TCP), and that the ranks ran on the "
             "hosts meant; then compare pairs with `fabdiag pairwise`";
  return f;
}

std::optional<Finding> sweep_drop(const std::vector<BandwidthPoint>& sweep, const SweepSubject& s) {
  const BandwidthPoint* best = nullptr;
  for (const auto& p : sweep) {
    if (best && p.size_bytes >= kMpiBenchMinDropSizeBytes && p.size_bytes > best->size_bytes &&
        p.bytes_per_s < kMpiBenchDropShare * best->bytes_per_s) {
      Finding f = sweep_finding(s, "drop", p);
      f.evidence.back().expect(kMpiBenchDropShare * best->bytes_per_s,
                               ">= 50% of " + mbps(best->bytes_per_s) + " reached at " +
                                   std::to_string(best->size_bytes) + " B");
      f.message = s.subject + " drops to " + mbps(p.bytes_per_s) + " at " + std::to_string(p.size_bytes) +
                  " B, " + pct(p.bytes_per_s / best->bytes_per_s) + " of the " + mbps(best->bytes_per_s) +
                  " it reached at " + std::to_string(best->size_bytes) + " B";
      f.action = "Large messages stall on this path: compare the run on other host pairs (`fabdiag pairwise`), read "
                 "the ports' PFC/ECN and error counters (fabdiag counters) and the MPI rendezvous settings";
      return f;
    }
    if (!best || p.bytes_per_s > best->bytes_per_s) best = &p;
  }
  return std::nullopt;
}

void add_sweep_findings(const std::vector<BandwidthPoint>& sweep, const SweepSubject& s,
                        std::optional<double> line_rate_gbit_per_s, std::vector<Finding>& out) {
  if (auto f = sweep_below_line_rate(sweep, s, line_rate_gbit_per_s)) out.push_back(std::move(*f));
  if (auto f = sweep_drop(sweep, s)) out.push_back(std::move(*f));
}

void BenchNotListed::add_test(size_t line) {
  if (tests++ == 0) first_line = line;
  last_line = line;
}

void BenchNotListed::add(const std::string& title, const std::string& column, uint64_t size_bytes, double v) {
  auto [it, fresh] = at_.emplace(title + "|" + column + "|" + std::to_string(size_bytes), sizes.size());
  if (fresh) sizes.push_back({title, column, size_bytes, 0, v, v, 0});
  BenchRepeat& s = sizes[it->second];
  ++s.runs;
  s.min = std::min(s.min, v);
  s.max = std::max(s.max, v);
  s.sum += v;
}

nlohmann::json BenchNotListed::to_json() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : sizes)
    out.push_back({{"title", s.title}, {"column", s.column}, {"size_bytes", s.size_bytes}, {"runs", s.runs},
                   {"min", s.min}, {"mean", s.sum / static_cast<double>(s.runs)}, {"max", s.max}});
  return {{"tests", tests}, {"first_title_line", first_line}, {"last_title_line", last_line}, {"sizes", std::move(out)}};
}

}  // namespace fabdiag
