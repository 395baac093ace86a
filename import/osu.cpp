#include "import/osu.h"

#include <cctype>

#include "core/text.h"
#include "import/common.h"
#include "import/mpi_bench_sweep.h"
#include "import/whole_lines.h"

namespace fabdiag {
namespace {

struct Reader {
  OsuImport imp;
  LineTally other;        // lines that are not OSU's (for the error of an input that is none)
  LineTally bad_rows;     // rows that do not fit their header
  ListingBound bound;     // ReadLimits::max_listed
};

// Adds a finished test's rows (their first column) to the summary of the tests not listed.
void summarise(Reader& r, const OsuTest& t) {
  r.imp.not_listed.add_test(t.title_line);
  for (const auto& row : t.rows)
    if (!row.values.empty()) r.imp.not_listed.add(t.title, row.values.front().first, row.size_bytes, row.values.front().second);
}

// The last test is finished: past the listing bound it is summarised and dropped, unless it has
// a finding of its own (kept up to max_listed more).
void settle(Reader& r) {
  if (r.bound.keeps(r.imp.tests.size(), [&r] { return osu_test_has_finding(r.imp.tests.back()); })) return;
  summarise(r, r.imp.tests.back());
  r.imp.tests.pop_back();
}

// "OSU MPI-CUDA Bandwidth Test v7.2" -> benchmark "Bandwidth", accelerator "CUDA", version "7.2".
OsuTest test_of_title(const std::string& title, size_t line) {
  OsuTest t;
  t.title = title;
  t.title_line = line;
  auto w = split_ws(title);
  size_t i = 1;  // w[0] == "OSU"
  if (i < w.size() && (starts_with(w[i], "MPI") || w[i] == "NCCL" || w[i] == "RCCL" || starts_with(w[i], "UPC") ||
                       starts_with(w[i], "OpenSHMEM"))) {
    auto dash = w[i].find('-');
    if (dash != std::string::npos) t.accelerator = w[i].substr(dash + 1);
    ++i;
  }
  std::vector<std::string> name;
  for (; i < w.size() && w[i] != "Test"; ++i) name.push_back(w[i]);
  t.benchmark = join(name, " ");
  for (size_t j = i; j < w.size(); ++j)
    if (w[j].size() > 1 && w[j][0] == 'v' && std::isdigit(static_cast<unsigned char>(w[j][1]))) t.version = w[j].substr(1);
  return t;
}

// The columns of a table printed without its "# Size" header, from the title and the fields.
std::vector<std::string> inferred_columns(const OsuTest& t, size_t fields) {
  bool bw = t.benchmark.find("Bandwidth") != std::string::npos;
  bool lat = t.benchmark.find("Latency") != std::string::npos;
  if (bw && t.benchmark.find("Message Rate") != std::string::npos && fields == 3) return {"MB/s", "Messages/s"};
  if (bw && fields == 2) return {"Bandwidth (MB/s)"};
  if (lat && fields == 2) return {"Avg Latency(us)"};
  if (lat && fields == 5) return {"Avg Latency(us)", "Min Latency(us)", "Max Latency(us)", "Iterations"};
  return {};
}

void read_header(Reader& r, const std::string& body, size_t line_no) {
  auto cols = split_header_columns(body);
  cols.erase(cols.begin());  // "Size"
  if (r.imp.tests.empty() || !r.imp.tests.back().rows.empty() || !r.imp.tests.back().columns.empty()) {
    // A header with no title, or a second table of the same test: a test of its own.
    OsuTest t = r.imp.tests.empty() ? OsuTest{} : r.imp.tests.back();
    t.rows.clear();
    t.title_line = r.imp.tests.empty() ? line_no : t.title_line;
    settle(r);
    r.imp.tests.push_back(std::move(t));
  }
  r.imp.tests.back().columns = std::move(cols);
  r.imp.tests.back().header_inferred = false;
}

void read_comment(Reader& r, const std::string& body, size_t line_no) {
  if (starts_with(body, "Size ") || body == "Size") return read_header(r, body, line_no);
  if (r.imp.tests.empty()) return r.other.add(line_no, "# " + body);
  OsuTest& t = r.imp.tests.back();
  if (starts_with(body, "Datatype:")) {
    t.datatype = trim(body.substr(9));
    if (!t.datatype.empty() && t.datatype.back() == '.') t.datatype.pop_back();
  } else if (body.find("Send Buffer on") != std::string::npos) {
    t.buffers = body;
  }
}

bool read_row(Reader& r, const std::vector<std::string>& w, size_t line_no) {
  OsuTest& test = r.imp.tests.back();
  if (test.columns.empty()) {
    test.columns = inferred_columns(test, w.size());
    test.header_inferred = !test.columns.empty();
  }
  if (w.size() != test.columns.size() + 1) return false;
  OsuRow row;
  row.line = line_no;
  row.size_bytes = *parse_u64(w[0]);
  for (size_t i = 1; i < w.size(); ++i) {
    if (test.columns[i - 1] == "Validation" && (w[i] == "Pass" || w[i] == "Fail")) {
      row.validation_passed = w[i] == "Pass";
      continue;
    }
    auto v = parse_double(w[i]);
    if (!v) return false;
    row.values.emplace_back(test.columns[i - 1], *v);
  }
  test.rows.push_back(std::move(row));
  return true;
}

void read_line(Reader& r, const std::string& raw, size_t line_no) {
  std::string t = mpi_bench_line_text(raw);
  if (t.empty()) return;
  if (is_osu_title(t)) {
    settle(r);
    r.imp.tests.push_back(test_of_title(trim(t.substr(1)), line_no));
    return;
  }
  if (t[0] == '#') return read_comment(r, trim(t.substr(1)), line_no);
  auto w = split_ws(t);
  if (!parse_u64(w[0]) || r.imp.tests.empty()) {  // another program's line, or a row before any OSU table
    ++r.imp.lines_passed_over;
    r.other.add(line_no, t);
    return;
  }
  if (!read_row(r, w, line_no)) r.bad_rows.add(line_no, t);
}

}  // namespace

bool is_osu_title(std::string_view line) {
  return starts_with(line, "# OSU ") && line.find(" Test") != std::string_view::npos;
}

bool is_osu_header(std::string_view line) {
  if (!starts_with(line, "#")) return false;
  auto cols = split_header_columns(trim(line.substr(1)));
  if (cols.size() < 2 || cols[0] != "Size") return false;
  return cols[1].find("MB/s") != std::string::npos || cols[1].find("Latency") != std::string::npos;
}

std::optional<double> OsuRow::get(std::string_view name) const {
  for (const auto& [k, v] : values)
    if (k == name) return v;
  return std::nullopt;
}

std::string OsuTest::kind() const {
  for (const auto& c : columns) {
    if (c.find("MB/s") != std::string::npos) return "bandwidth";
    if (c.find("Latency") != std::string::npos) return "latency";
  }
  if (benchmark.find("Bandwidth") != std::string::npos) return "bandwidth";
  if (benchmark.find("Latency") != std::string::npos) return "latency";
  return "";
}

double OsuTest::directions() const { return benchmark.find("Bi-Directional") != std::string::npos ? 2 : 1; }

Result<OsuImport> import_osu(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_osu(*lines, source, ReadLimits{});
}

Result<OsuImport> import_osu(LineSource& lines, const std::string& source, const ReadLimits& limits) {
  Reader r;
  r.imp.source = source;
  r.bound = ListingBound(limits.max_listed);
  auto st = read_whole_lines(
      lines, source, [&r](const std::string& l, size_t n) { read_line(r, l, n); },
      [&r] { return !r.imp.tests.empty(); }, r.imp.gaps);
  if (!st) return st.error();
  if (!r.imp.tests.empty()) settle(r);
  if (r.imp.tests.empty())
    return not_this_format("OSU micro-benchmarks output (a \"# OSU MPI ... Test\" title or a \"# Size\" header)",
                           source, r.other);
  add_tally_gap(r.imp.gaps, source, r.bad_rows, "row(s) that do not fit their table's header");
  return std::move(r.imp);
}

}  // namespace fabdiag
