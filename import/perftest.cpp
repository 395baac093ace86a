#include "import/perftest.h"

#include <algorithm>

#include "core/text.h"
#include "import/common.h"
#include "import/whole_lines.h"

namespace fabdiag {
namespace {

struct Reader {
  PerftestImport imp;
  bool open = false;      // imp.runs.back() is the run being read
  bool table = false;     // ... and its table header was read
  ListingBound bound;     // ReadLimits::max_listed
  LineTally other;
};

// " #bytes  #iterations  BW peak[Gb/sec]  BW average[Gb/sec]  MsgRate[Mpps]" -> names, units.
bool read_columns(const std::string& t, PerftestRun& run) {
  if (!starts_with(t, "#bytes")) return false;
  std::string rest = t;
  size_t pos = 0;
  while (pos < rest.size()) {
    size_t br = rest.find('[', pos);
    std::string name = trim(rest.substr(pos, br == std::string::npos ? std::string::npos : br - pos));
    if (br == std::string::npos) {
      for (const auto& w : split_ws(name)) {  // "#bytes     #iterations" before the first unit
        run.columns.push_back(w);
        run.units.emplace_back();
      }
      break;
    }
    size_t end = rest.find(']', br);
    std::string unit = rest.substr(br + 1, end == std::string::npos ? std::string::npos : end - br - 1);
    auto words = split_ws(name);
    // names before the unit-bearing one ("#bytes #iterations") have no unit
    while (!words.empty() && starts_with(words.front(), "#")) {
      run.columns.push_back(words.front());
      run.units.emplace_back();
      words.erase(words.begin());
    }
    run.columns.push_back(join(words, " "));
    run.units.push_back(unit);
    pos = end == std::string::npos ? rest.size() : end + 1;
  }
  run.latency = false;
  for (const auto& c : run.columns) run.latency = run.latency || starts_with(c, "t_");
  return run.columns.size() >= 3;
}

bool read_row(PerftestRun& run, const std::string& t, size_t line_no) {
  auto w = split_ws(t);
  // A header of fewer than 3 columns is none (read_columns()): no row reads on it (fuzz find,
  // 2026-12: w[1] past a 1-word row).
  if (w.size() < 3 || w.size() != run.columns.size()) return false;
  PerftestRow row;
  row.line = line_no;
  auto b = parse_u64(w[0]), it = parse_u64(w[1]);
  if (!b || !it) return false;
  row.bytes = *b;
  row.iterations = *it;
  for (size_t i = 2; i < w.size(); ++i) {
    auto v = parse_double(w[i]);
    if (!v) return false;
    row.values.emplace_back(run.columns[i], *v);
  }
  run.rows.push_back(std::move(row));
  return true;
}

bool peak_not_measured(const PerftestRow& row) {
  auto peak = row.get("BW peak"), avg = row.get("BW average");
  return peak && *peak == 0 && avg && *avg > 0;
}

// The worst value of `run`'s main column: the lowest bandwidth, the highest latency.
std::optional<double> worst_value(const PerftestRun& run, const std::string& column) {
  std::optional<double> worst;
  for (const auto& row : run.rows)
    if (auto v = row.get(column); v && (!worst || (run.latency ? *v > *worst : *v < *worst))) worst = v;
  return worst;
}

// Adds a finished run to the summary of the runs not listed; a warned one is counted and named
// when it is the worst so far.
void summarise(Reader& r, const PerftestRun& run) {
  const std::string title = run.test.empty() ? "perftest" : run.test, column = run.main_column();
  r.imp.not_listed.add_test(run.first_line);
  for (const auto& row : run.rows)
    if (auto v = row.get(column)) r.imp.not_listed.add(title, column, row.bytes, *v);
  if (!perftest_run_has_warning(run)) return;
  auto v = worst_value(run, column);
  auto& w = r.imp.worst_not_listed;
  bool worse = r.imp.not_listed_warned == 0 || (w.value && (!v || (run.latency ? *v > *w.value : *v < *w.value)));
  ++r.imp.not_listed_warned;
  if (worse) w = {title, run.first_line, v, column};
}

// The last run is finished: past the listing bound it is summarised and dropped, unless it has
// a warning of its own (kept up to max_listed more).
void settle(Reader& r) {
  if (!r.open) return;
  r.open = r.table = false;
  for (const auto& row : r.imp.runs.back().rows) r.imp.duration_mode = r.imp.duration_mode || peak_not_measured(row);
  if (r.bound.keeps(r.imp.runs.size(), [&r] { return perftest_run_has_warning(r.imp.runs.back()); })) return;
  summarise(r, r.imp.runs.back());
  r.imp.runs.pop_back();
}

// The run a line belongs to; `fresh` starts the next one (a title, a header after rows).
PerftestRun& run_of(Reader& r, size_t line_no, bool fresh) {
  if (fresh) settle(r);
  if (!r.open) {
    r.imp.runs.emplace_back();
    r.imp.runs.back().first_line = line_no;
    r.open = true;
  }
  return r.imp.runs.back();
}

// "Device : mlx4_0", two fields a line: "Dual-port : OFF   Device : mlx4_0"; false when none.
bool read_settings(Reader& r, const std::string& t, size_t line_no) {
  if (t.find(" : ") == std::string::npos && t.find(": ") == std::string::npos) return false;
  auto parts = split(t, ':');
  if (parts.size() != 2 && parts.size() != 3) return false;
  std::string k1 = trim(parts[0]);
  if (parts.size() == 2) {
    run_of(r, line_no, false).settings.emplace_back(k1, trim(parts[1]));
    return true;
  }
  auto mid = split_ws(parts[1]);  // "OFF          Device " -> value "OFF", key "Device"
  if (mid.empty()) return false;
  auto& settings = run_of(r, line_no, false).settings;
  settings.emplace_back(k1, mid[0]);
  settings.emplace_back(join(std::vector<std::string>(mid.begin() + 1, mid.end()), " "), trim(parts[2]));
  return true;
}

void read_line(Reader& r, const std::string& raw, size_t line_no) {
  std::string t = trim(raw);
  if (t.empty() || starts_with(t, "###") || t[0] == '*' || t.find_first_not_of("-*") == std::string::npos)
    return;  // rules and the "* Waiting for client to connect... *" banner
  if (ends_with(t, " BW Test") || ends_with(t, " Latency Test")) {
    bool started = r.open && (!r.imp.runs.back().test.empty() || r.table);
    run_of(r, line_no, started).test = t;
    return;
  }
  if (PerftestRun header; read_columns(t, header)) {
    bool after_rows = r.open && !r.imp.runs.back().rows.empty();
    PerftestRun& run = run_of(r, line_no, after_rows);
    run.columns = std::move(header.columns);
    run.units = std::move(header.units);
    run.latency = header.latency;
    r.table = true;
    return;
  }
  if (r.table && read_row(r.imp.runs.back(), t, line_no)) return;
  if (starts_with(t, "local address:") || starts_with(t, "remote address:") || starts_with(t, "GID:") ||
      starts_with(t, "Waiting for client") || starts_with(t, "WARNING") || starts_with(t, "Conflicting CPU"))
    return;
  if (read_settings(r, t, line_no)) return;
  r.other.add(line_no, t);
}

}  // namespace

std::optional<double> PerftestRow::get(std::string_view name) const {
  for (const auto& [k, v] : values)
    if (k == name) return v;
  return std::nullopt;
}

std::string PerftestRun::setting(std::string_view name) const {
  for (const auto& [k, v] : settings)
    if (k == name) return v;
  return "";
}

std::string PerftestRun::main_column() const {
  for (const char* c : {"BW average", "t_avg"})
    if (std::find(columns.begin(), columns.end(), c) != columns.end()) return c;
  return columns.size() > 2 ? columns[2] : "";
}

bool perftest_run_has_warning(const PerftestRun& run) {
  if (run.rows.empty()) return true;
  for (const auto& row : run.rows)
    if (auto avg = row.get("BW average"); avg && *avg <= 0 && row.iterations > 0) return true;
  return false;
}

Result<PerftestImport> import_perftest(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_perftest(*lines, source, ReadLimits{});
}

Result<PerftestImport> import_perftest(LineSource& lines, const std::string& source, const ReadLimits& limits) {
  Reader r;
  r.imp.source = source;
  r.bound = ListingBound(limits.max_listed);
  auto st = read_whole_lines(
      lines, source, [&r](const std::string& l, size_t n) { read_line(r, l, n); }, [&r] { return r.table; },
      r.imp.gaps);
  if (!st) return st.error();
  bool any = r.table;
  for (const auto& run : r.imp.runs) any = any || !run.test.empty() || !run.columns.empty();
  settle(r);
  if (!any && r.imp.not_listed.tests == 0)
    return not_this_format("perftest output (a \"... BW Test\" / \"... Latency Test\" title, a \"#bytes #iterations\" table)",
                           source, r.other);
  add_tally_gap(r.imp.gaps, source, r.other, "line(s) not understood");
  return std::move(r.imp);
}

}  // namespace fabdiag
