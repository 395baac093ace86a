#include "import/imb.h"

#include <cmath>

#include "core/text.h"
#include "import/common.h"
#include "import/mpi_bench_sweep.h"
#include "import/whole_lines.h"

namespace fabdiag {
namespace {

// IMB-MPI1's benchmark names: a line of one of them alone (a hand-made title: "Sendrecv:")
// names the table that follows it.
bool is_imb_benchmark_name(const std::string& w) {
  static const char* const kNames[] = {"PingPong",  "PingPing",  "Sendrecv", "Exchange",      "Allreduce", "Reduce",
                                       "Reduce_scatter", "Reduce_scatter_block", "Allgather", "Allgatherv",
                                       "Gather", "Gatherv", "Scatter", "Scatterv", "Alltoall", "Alltoallv", "Bcast",
                                       "Barrier", "Uniband", "Biband"};
  for (const char* n : kNames)
    if (w == n) return true;
  return false;
}

// "Sendrecv:" or "Sendrecv：" (a full-width colon) -> "Sendrecv"; "" when the line is not a name.
std::string hand_title(const std::string& t) {
  std::string w = t;
  for (const char* colon : {"\xef\xbc\x9a", ":"})
    if (ends_with(w, colon)) w = trim(w.substr(0, w.size() - std::string(colon).size()));
  return is_imb_benchmark_name(w) ? w : "";
}

struct Reader {
  ImbImport imp;
  std::string hand_title;  // the line before, when it is a benchmark's name alone
  LineTally other;     // lines that are not IMB's (for the error of an input that is none)
  LineTally bad_rows;  // rows that do not fit their header
  size_t last_row_line = 0;
  ListingBound bound;  // ReadLimits::max_listed
};

// The last block is finished: past the listing bound it is summarised (Mbytes/sec per size, else
// its time column) and dropped, unless it has a finding of its own (kept up to max_listed more).
void settle(Reader& r) {
  if (r.bound.keeps(r.imp.benchmarks.size(), [&r] { return imb_block_has_finding(r.imp.benchmarks.back()); }))
    return;  // also when no block was read yet (0 listed): back() is asked only past the bound
  const ImbBenchmark& b = r.imp.benchmarks.back();
  std::string title = b.name + (b.processes ? " (" + std::to_string(*b.processes) + " processes)" : "");
  r.imp.not_listed.add_test(b.line);
  for (const auto& row : b.rows)
    for (const char* column : {"Mbytes/sec", "t_avg[usec]", "t[usec]"})
      if (auto v = row.get(column)) {
        r.imp.not_listed.add(title, column, mpi_bench_count(row.get("#bytes").value_or(0)), *v);
        break;
      }
  r.imp.benchmarks.pop_back();
}

ImbBenchmark& new_block(Reader& r, std::string name, size_t line_no) {
  settle(r);
  ImbBenchmark b;
  b.name = std::move(name);
  b.line = line_no;
  r.imp.benchmarks.push_back(std::move(b));
  return r.imp.benchmarks.back();
}

// "#    Intel(R) MPI Benchmarks 2021.3, MPI-1 part" -> release "2021.3", part "MPI-1".
void read_banner(Reader& r, const std::string& t) {
  size_t at = t.find("MPI Benchmarks");
  std::string rest = trim(t.substr(at + 14));
  size_t comma = rest.find(',');
  r.imp.release = trim(rest.substr(0, comma));
  if (comma != std::string::npos) {
    std::string part = trim(rest.substr(comma + 1));
    if (ends_with(part, " part")) part = trim(part.substr(0, part.size() - 5));
    r.imp.part = part;
  }
}

// The '#' lines: banner, block titles, process counts, the end of the run.
void read_comment(Reader& r, const std::string& t, size_t line_no) {
  size_t hashes = t.find_first_not_of('#');
  std::string body = hashes == std::string::npos ? "" : trim(t.substr(hashes));
  if (is_imb_marker(t) && t.find("MPI Benchmarks") != std::string::npos) return read_banner(r, t);
  if (starts_with(body, "Benchmarking ")) {
    new_block(r, trim(body.substr(13)), line_no);
    return;
  }
  if (starts_with(body, "All processes entering MPI_Finalize")) {
    r.imp.finalized = true;
    return;
  }
  if (r.imp.benchmarks.empty()) return r.other.add(line_no, t);
  ImbBenchmark& b = r.imp.benchmarks.back();
  if (starts_with(body, "#processes =")) {
    if (auto n = parse_u64(trim(body.substr(12)))) b.processes = static_cast<int64_t>(*n);
  } else if (starts_with(body, "( ") && body.find("waiting in MPI_Barrier") != std::string::npos) {
    b.waiting = trim(body.substr(2, body.rfind(')') == std::string::npos ? std::string::npos : body.rfind(')') - 2));
  }
}

void read_header(Reader& r, const std::string& t, size_t line_no) {
  if (r.imp.benchmarks.empty() || !r.imp.benchmarks.back().columns.empty()) {
    // A table without its "# Benchmarking" title (a grep'ped fragment), or a repeat.
    std::string name = !r.hand_title.empty()         ? r.hand_title
                       : r.imp.benchmarks.empty() ? ""
                                                  : r.imp.benchmarks.back().name;
    ImbBenchmark& b = new_block(r, name, line_no);
    if (r.imp.benchmarks.size() > 1) b.processes = r.imp.benchmarks[r.imp.benchmarks.size() - 2].processes;
  }
  r.imp.benchmarks.back().columns = split_ws(t);
  r.hand_title.clear();
}

bool read_row(Reader& r, const std::vector<std::string>& w, size_t line_no) {
  ImbBenchmark& b = r.imp.benchmarks.back();
  // Words after a whole row that are no number are a note pasted on it ("8107.16 <- drops here").
  if (w.size() < b.columns.size() || (w.size() > b.columns.size() && parse_double(w[b.columns.size()])))
    return false;
  ImbRow row;
  row.line = line_no;
  for (size_t i = 0; i < b.columns.size(); ++i) {
    auto v = parse_double(w[i]);
    if (!v || !std::isfinite(*v)) return false;
    bool integral = b.columns[i] == "#bytes" || b.columns[i] == "#repetitions";
    if (integral && !parse_u64(w[i])) return false;
    row.values.emplace_back(b.columns[i], *v);
  }
  b.rows.push_back(std::move(row));
  r.last_row_line = line_no;
  return true;
}

void read_line(Reader& r, const std::string& raw, size_t line_no) {
  std::string t = mpi_bench_line_text(raw);
  if (t.empty()) return;
  std::string title = hand_title(t);
  if (!title.empty()) {
    r.hand_title = title;
    ++r.imp.lines_passed_over;
    return;
  }
  if (t.find_first_not_of("~-=") != std::string::npos && !starts_with(t, "#bytes") && !starts_with(t, "#repetitions"))
    r.hand_title.clear();  // a rule ("~~~") between the name and its header keeps the name
  if (starts_with(t, "#bytes") || starts_with(t, "#repetitions")) return read_header(r, t, line_no);
  if (t[0] == '#') return read_comment(r, t, line_no);
  auto w = split_ws(t);
  if (!parse_double(w[0]) || r.imp.benchmarks.empty() || r.imp.benchmarks.back().columns.empty()) {
    ++r.imp.lines_passed_over;
    r.other.add(line_no, t);
    return;
  }
  if (!read_row(r, w, line_no)) r.bad_rows.add(line_no, t);
}

// Bytes per "Mbyte" from the largest row with a size, a time and Mbytes/sec: IMB computes
// Mbytes/sec = k * bytes / t / Mbyte, k = 2 for Sendrecv, 4 for Exchange, else 1.
void infer_mbyte(ImbBenchmark& b, const std::string& release) {
  const ImbRow* big = nullptr;
  for (const auto& row : b.rows)
    if (row.get("#bytes").value_or(0) > 0 && row.get("Mbytes/sec").value_or(0) > 0 &&
        (row.get("t[usec]").value_or(0) > 0 || row.get("t_max[usec]").value_or(0) > 0))
      big = &row;
  if (big) {
    double bytes = *big->get("#bytes"), bw = *big->get("Mbytes/sec");
    double t_us = big->get("t[usec]").value_or(big->get("t_max[usec]").value_or(0));
    for (double k : {1.0, 2.0, 4.0})
      for (double m : {1e6, 1048576.0})
        if (std::fabs(k * bytes * 1e6 / (t_us * bw) - m) / m < 0.02) {
          b.mbyte_bytes = m;
          b.mbyte_inferred = true;
          return;
        }
  }
  // IMB 4.x and 2017 print Mbytes of 2^20 bytes (docs/fabric.md#imb); later ones 1e6.
  if (starts_with(release, "4.") || starts_with(release, "3.") || starts_with(release, "2017")) b.mbyte_bytes = 1048576;
}

}  // namespace

bool is_imb_marker(std::string_view line) {
  if (!starts_with(line, "#")) return false;
  if (line.find("Intel(R) MPI Benchmarks") != std::string_view::npos ||
      line.find("Intel (R) MPI Benchmarks") != std::string_view::npos)
    return true;
  std::string body = trim(line.substr(1));
  return starts_with(body, "Benchmarking ") && body.size() > 13;
}

std::optional<double> ImbRow::get(std::string_view name) const {
  for (const auto& [k, v] : values)
    if (k == name) return v;
  return std::nullopt;
}

double ImbBenchmark::directions() const {
  return name == "Sendrecv" || name == "Exchange" || name == "Biband" ? 2 : 1;
}

Result<ImbImport> import_imb(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_imb(*lines, source, ReadLimits{});
}

Result<ImbImport> import_imb(LineSource& lines, const std::string& source, const ReadLimits& limits) {
  Reader r;
  r.imp.source = source;
  r.bound = ListingBound(limits.max_listed);
  auto st = read_whole_lines(
      lines, source, [&r](const std::string& l, size_t n) { read_line(r, l, n); },
      [&r] { return !r.imp.benchmarks.empty() && !r.imp.finalized; }, r.imp.gaps);
  if (!st) return st.error();
  if (r.imp.benchmarks.empty() && r.imp.release.empty())
    return not_this_format("Intel MPI Benchmarks output (a \"# Benchmarking NAME\" block or the IMB banner)", source,
                           r.other);
  if (!r.imp.benchmarks.empty()) settle(r);
  for (auto& b : r.imp.benchmarks) infer_mbyte(b, r.imp.release);
  add_tally_gap(r.imp.gaps, source, r.bad_rows, "row(s) that do not fit their table's header");
  if (!r.imp.release.empty() && !r.imp.finalized && !r.imp.benchmarks.empty()) {
    const ImbBenchmark& last = r.imp.benchmarks.back();
    size_t at = r.last_row_line ? r.last_row_line : last.line;
    r.imp.gaps.push_back(make_error(ErrorCode::kParse,
                                    "the run ends without \"# All processes entering MPI_Finalize\" after " +
                                        (last.name.empty() ? std::string("a table") : last.name) +
                                        ": the output was cut or the run stopped; what followed is unknown",
                                    line_source(source, at)));
  }
  return std::move(r.imp);
}

}  // namespace fabdiag
