#include "import/nvsmi_dmon.h"

#include <algorithm>
#include <cmath>

#include "core/text.h"
#include "import/common.h"
#include "import/mpi_bench_sweep.h"
#include "import/whole_lines.h"

namespace fabdiag {
namespace {

struct Reader {
  DmonImport imp;
  LineTally other;
  LineTally bad_rows;
  std::optional<size_t> gpu_col;
};

bool is_metric(const std::string& w) {
  static const char* const kMetrics[] = {"pwr", "gtemp", "mtemp", "temp", "sm",    "mem",   "enc",  "dec",
                                         "mclk", "pclk", "pviol", "tviol", "fb",   "bar1",  "sbecc", "dbecc",
                                         "pci",  "rxpci", "txpci", "jpg",  "ofa",  "ccpm"};
  return std::any_of(std::begin(kMetrics), std::end(kMetrics), [&](const char* m) { return w == m; });
}

DmonGpu& gpu_of(DmonImport& imp, int64_t index) {
  for (auto& g : imp.gpus)
    if (g.index == index) return g;
  imp.gpus.push_back(DmonGpu{});
  imp.gpus.back().index = index;
  return imp.gpus.back();
}

void add_sample(DmonSeries& s, double v, size_t line_no) {
  if (s.samples == 0 || v < s.min) s.min = v;
  if (s.samples == 0 || v > s.max) s.max = v, s.max_line = line_no;
  s.sum += v;
  ++s.samples;
}

bool read_row(Reader& r, const std::vector<std::string>& w, size_t line_no) {
  const auto& cols = r.imp.columns;
  if (!r.gpu_col || w.size() != cols.size()) return false;
  auto idx = parse_u64(w[*r.gpu_col]);
  if (!idx || *idx > 1000000) return false;
  DmonGpu& g = gpu_of(r.imp, static_cast<int64_t>(*idx));
  std::string when;
  for (size_t i = 0; i < w.size(); ++i) {
    if (cols[i] == "Date" || cols[i] == "Time") {
      when += (when.empty() ? "" : " ") + w[i];
      continue;
    }
    if (i == *r.gpu_col) continue;
    DmonSeries& s = g.series[cols[i]];
    auto v = parse_double(w[i]);
    if (w[i] == "-" || !v || !std::isfinite(*v)) {
      ++s.gaps;  // "-": not reported by this GPU
      continue;
    }
    add_sample(s, *v, line_no);
  }
  if (g.first_time.empty()) g.first_time = when;
  g.last_time = when;
  ++g.rows;
  return true;
}

void read_line(Reader& r, const std::string& raw, size_t line_no) {
  std::string t = mpi_bench_line_text(raw);
  if (t.empty()) return;
  if (t[0] == '#') {
    auto w = split_ws(t.substr(1));
    if (is_nvsmi_dmon_header(t)) {
      r.imp.columns = w;
      r.gpu_col = std::find(w.begin(), w.end(), "gpu") - w.begin();
      ++r.imp.headers;
    } else if (!w.empty() && r.imp.columns.size() == w.size() && r.gpu_col && w[*r.gpu_col] == "Idx") {
      for (size_t i = 0; i < w.size(); ++i) r.imp.units[r.imp.columns[i]] = w[i];
    } else {
      r.other.add(line_no, t);
    }
    return;
  }
  auto w = split_ws(t);
  if (r.imp.columns.empty()) return r.other.add(line_no, t);
  if (!read_row(r, w, line_no)) r.bad_rows.add(line_no, t);
}

}  // namespace

bool is_nvsmi_dmon_header(std::string_view line) {
  if (!starts_with(line, "#")) return false;
  auto w = split_ws(line.substr(1));
  return std::find(w.begin(), w.end(), "gpu") != w.end() && std::any_of(w.begin(), w.end(), is_metric) &&
         std::all_of(w.begin(), w.end(), [](const std::string& x) { return x == "Date" || x == "Time" || x == "gpu" || is_metric(x); });
}

Result<DmonImport> import_nvsmi_dmon(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_nvsmi_dmon(*lines, source, ReadLimits{});
}

Result<DmonImport> import_nvsmi_dmon(LineSource& lines, const std::string& source, const ReadLimits&) {
  Reader r;
  r.imp.source = source;
  auto st = read_whole_lines(
      lines, source, [&r](const std::string& l, size_t n) { read_line(r, l, n); },
      [&r] { return !r.imp.columns.empty(); }, r.imp.gaps);
  if (!st) return st.error();
  if (r.imp.gpus.empty())
    return not_this_format("`nvidia-smi dmon` output (a \"# gpu pwr ...\" header and rows)", source, r.other);
  add_tally_gap(r.imp.gaps, source, r.bad_rows, "row(s) that do not fit the dmon header");
  return std::move(r.imp);
}

}  // namespace fabdiag
