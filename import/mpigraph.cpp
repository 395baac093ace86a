#include "import/mpigraph.h"

#include <cmath>
#include <limits>

#include "core/text.h"
#include "import/common.h"
#include "import/mpi_bench_sweep.h"
#include "import/whole_lines.h"
#include "perf/comm.h"

namespace fabdiag {
namespace {

constexpr double kMpiGraphMbBytes = 1048576;  // mpiGraph.c: MBsec = size * 1e6 / (1024 * 1024)
// Ranks a table may have: two n x n tables and the matrix stay under about 200 MB.
constexpr size_t kMaxRanks = 2048;

struct Reader {
  MpiGraphImport imp;
  MpiGraphTable* current = nullptr;
  LineTally other;     // lines that are not mpiGraph's
  LineTally bad_rows;  // rows that do not fit their table
};

std::optional<int64_t> as_int(const std::string& w) {
  auto v = parse_u64(w);
  return v && *v < (uint64_t{1} << 62) ? std::optional<int64_t>(static_cast<int64_t>(*v)) : std::nullopt;
}

// "host1:0" -> host "host1", rank 0.
bool split_label(const std::string& label, std::string& host, int64_t& rank) {
  auto colon = label.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  auto r = as_int(label.substr(colon + 1));
  if (!r) return false;
  host = label.substr(0, colon);
  rank = *r;
  return true;
}

// "Send\thost1:0\thost2:1\t...": the header row of a table.
bool read_header(Reader& r, const std::vector<std::string>& w, size_t line_no) {
  if (w.size() < 2 || (w[0] != "Send" && w[0] != "Recv")) return false;
  if (w.size() - 1 > kMaxRanks) {
    r.imp.gaps.push_back(make_error(ErrorCode::kParse,
                                    w[0] + " table of " + std::to_string(w.size() - 1) + " ranks: more than " +
                                        std::to_string(kMaxRanks) + " are not read",
                                    line_source(r.imp.source, line_no)));
    return true;
  }
  std::vector<std::string> hosts;
  for (size_t i = 1; i < w.size(); ++i) {
    std::string host;
    int64_t rank = 0;
    if (!split_label(w[i], host, rank) || rank != static_cast<int64_t>(i - 1)) return false;
    hosts.push_back(host);
  }
  if (!r.imp.hosts.empty() && hosts != r.imp.hosts) {  // one run's two tables name the same ranks
    r.imp.gaps.push_back(make_error(ErrorCode::kParse,
                                    w[0] + " table header names other ranks than the table before it: not read",
                                    line_source(r.imp.source, line_no)));
    return true;
  }
  MpiGraphTable& t = w[0] == "Send" ? r.imp.send : r.imp.recv;
  t.columns.assign(w.begin() + 1, w.end());
  t.rows.assign(hosts.size(), std::vector<std::optional<double>>(hosts.size()));
  t.header_line = line_no;
  if (r.imp.hosts.empty()) r.imp.hosts = hosts;
  r.current = &t;
  return true;
}

// "host1:0 to\t0.000\t2805.381\t...": one row of the current table.
bool read_row(Reader& r, const std::vector<std::string>& w, size_t line_no) {
  if (w.size() < 2 || (w[1] != "to" && w[1] != "from")) return false;
  MpiGraphTable* t = w[1] == "to" ? &r.imp.send : &r.imp.recv;
  std::string host;
  int64_t j = 0;
  if (t->columns.empty() || !split_label(w[0], host, j) || j >= static_cast<int64_t>(t->rows.size())) {
    r.bad_rows.add(line_no, join(w, " "));
    return true;
  }
  size_t n = t->rows.size();
  if (w.size() - 2 != n) r.bad_rows.add(line_no, join(w, " "));  // cut or overlong: keep what fits
  for (size_t k = 0; k < n && k + 2 < w.size(); ++k) {
    auto v = parse_double(w[k + 2]);
    if (!v || !std::isfinite(*v) || *v < 0) continue;
    t->rows[static_cast<size_t>(j)][k] = (*v > 0 && k != static_cast<size_t>(j)) ? v : std::nullopt;
  }
  ++t->rows_read;
  return true;
}

bool read_setting(Reader& r, const std::vector<std::string>& w) {
  if (w.size() == 3 && (w[0] == "Send" || w[0] == "Recv") && (w[1] == "max" || w[1] == "avg")) {
    MpiGraphTable& t = w[0] == "Send" ? r.imp.send : r.imp.recv;
    (w[1] == "max" ? t.max_mb_per_s : t.avg_mb_per_s) = parse_double(w[2]);
    return true;
  }
  if (w.size() != 2) return false;
  auto v = as_int(w[1]);
  if (!v) return false;
  if (w[0] == "MsgSize") r.imp.msg_size_bytes = static_cast<uint64_t>(*v);
  else if (w[0] == "Times") r.imp.times = v;
  else if (w[0] == "Window") r.imp.window = v;
  else if (w[0] == "Procs") r.imp.procs = v;
  else return false;
  return true;
}

void read_line(Reader& r, const std::string& raw, size_t line_no) {
  std::string t = mpi_bench_line_text(raw);
  if (t.empty()) return;
  auto w = split_ws(t);
  if (starts_with(t, "START mpiGraph")) {
    if (w.size() >= 3 && starts_with(w[2], "v")) r.imp.version = w[2].substr(1);
    return;
  }
  if (t == "END mpiGraph") {
    r.imp.ended = true;
    return;
  }
  if (read_setting(r, w) || read_header(r, w, line_no) || read_row(r, w, line_no)) return;
  r.other.add(line_no, t);
}

void fill_matrix(MpiGraphImport& imp) {
  bool from_send = imp.send.rows_read > 0;
  const MpiGraphTable& t = from_send ? imp.send : imp.recv;
  imp.matrix_from = from_send ? "send" : "recv";
  int iters = imp.times && *imp.times < 1000000000 ? static_cast<int>(*imp.times) : 0;
  imp.matrix = perf::make_empty_matrix(perf::unique_rank_labels(imp.hosts), imp.msg_size_bytes.value_or(0), iters);
  for (size_t j = 0; j < t.rows.size(); ++j)
    for (size_t k = 0; k < t.rows[j].size(); ++k) {
      if (!t.rows[j][k]) continue;
      double bps = *t.rows[j][k] * kMpiGraphMbBytes;
      // Send row j: j sent to k. Recv row j: j received from k, so k -> j.
      (from_send ? imp.matrix.matrix_bytes_per_s[j][k] : imp.matrix.matrix_bytes_per_s[k][j]) = bps;
    }
}

void add_missing_rows_gaps(MpiGraphImport& imp) {
  for (const auto* t : {&imp.send, &imp.recv}) {
    if (t->columns.empty() || t->rows_read >= t->rows.size()) continue;
    imp.gaps.push_back(make_error(ErrorCode::kParse,
                                  std::string(t == &imp.send ? "Send" : "Recv") + " table: " +
                                      std::to_string(t->rows_read) + " of " + std::to_string(t->rows.size()) +
                                      " rows read; the pairs of the missing rows are unknown",
                                  line_source(imp.source, t->header_line)));
  }
}

}  // namespace

bool is_mpigraph_marker(std::string_view line) {
  if (starts_with(line, "START mpiGraph") || line == "END mpiGraph") return true;
  auto w = split_ws(line);
  return w.size() == 3 && (w[0] == "Send" || w[0] == "Recv") && w[1] == "max" && parse_double(w[2]).has_value();
}

Result<MpiGraphImport> import_mpigraph(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_mpigraph(*lines, source, ReadLimits{});
}

Result<MpiGraphImport> import_mpigraph(LineSource& lines, const std::string& source, const ReadLimits&) {
  Reader r;
  r.imp.source = source;
  auto st = read_whole_lines(
      lines, source, [&r](const std::string& l, size_t n) { read_line(r, l, n); },
      [&r] { return !r.imp.send.columns.empty() || !r.imp.recv.columns.empty(); }, r.imp.gaps);
  if (!st) return st.error();
  if (r.imp.send.rows_read == 0 && r.imp.recv.rows_read == 0)
    return not_this_format("mpiGraph output (a \"Send\" or \"Recv\" table of \"host:rank\" rows)", source, r.other);
  add_tally_gap(r.imp.gaps, source, r.bad_rows, "table row(s) that do not fit their table");
  add_missing_rows_gaps(r.imp);
  if (!r.imp.version.empty() && !r.imp.ended)
    r.imp.gaps.push_back(make_error(ErrorCode::kParse, "no \"END mpiGraph\" line: the output was cut or the run stopped",
                                    source));
  fill_matrix(r.imp);
  return std::move(r.imp);
}

}  // namespace fabdiag
