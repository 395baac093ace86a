// The streaming reader of nccl-tests output (import/nccl_tests.h: parse_nccl_tests()).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/repeats.h"
#include "core/text.h"
#include "import/common.h"
#include "import/nccl_tests.h"
#include "perf/bandwidth.h"

namespace fabdiag::baseline {

namespace {

std::string squash(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != '_' && c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Last path component of a token ("/opt/nccl-tests/build/all_reduce_perf" -> "all_reduce_perf").
std::string_view basename_of(std::string_view token) {
  auto slash = token.rfind('/');
  return slash == std::string_view::npos ? token : token.substr(slash + 1);
}

// The nccl-tests program a token names ("all_reduce_perf", "alltoall_perf_mpi"), or empty.
std::string program_of(std::string_view token) {
  std::string_view base = basename_of(token);
  std::string_view stem = base;
  if (ends_with(stem, "_mpi")) stem.remove_suffix(4);
  if (!ends_with(stem, "_perf")) return {};
  return normalize_collective_name(stem) ? std::string(base) : std::string();
}

// Text of a '#' line without the '#' characters and surrounding blanks.
std::string strip_hash(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == '#' || line[i] == ' ' || line[i] == '\t')) ++i;
  return trim(line.substr(i));
}

// mpirun --tag-output prefixes every line with "[1,0]<stdout>:"; drop it.
std::string_view strip_mpirun_tag(std::string_view line) {
  if (!line.empty() && line[0] == '[') {
    auto tag = line.find("]<stdout>:");
    if (tag != std::string_view::npos) return line.substr(tag + 10);
  }
  return line;
}

bool is_column_header(const std::vector<std::string>& t) {
  if (t.size() < 6 || t[0] != "size") return false;
  auto has = [&](const char* n) { return std::find(t.begin(), t.end(), n) != t.end(); };
  return has("count") && has("type") && has("time") && has("algbw") && has("busbw");
}

bool is_not_measured(const std::string& tok) { return tok == "N/A" || tok == "n/a" || tok == "-"; }

// Column layout of one table, from its header row.
struct Columns {
  std::vector<std::string> front;  // names after size/count/type and before the first "time"
  std::vector<std::string> half1;  // out-of-place names: time algbw busbw error|#wrong
  std::vector<std::string> half2;  // in-place names; empty when absent
  size_t tail_size() const { return half1.size() + half2.size(); }
};

std::optional<Columns> columns_from_header(const std::vector<std::string>& t) {
  if (t.size() < 3 || t[1] != "count" || t[2] != "type") return std::nullopt;
  Columns c;
  size_t i = 3;
  for (; i < t.size() && t[i] != "time"; ++i) c.front.push_back(t[i]);
  if (i == t.size()) return std::nullopt;
  c.half1.push_back(t[i++]);
  for (; i < t.size() && t[i] != "time"; ++i) c.half1.push_back(t[i]);
  for (; i < t.size(); ++i) c.half2.push_back(t[i]);
  for (const auto* half : {&c.half1, &c.half2})
    for (const auto& n : *half)
      if (n != "time" && n != "algbw" && n != "busbw" && n != "error" && n != "#wrong" &&
          n != "wrong")
        return std::nullopt;
  return c;
}

// Parses one half's cells; nullopt when a numeric cell is neither a number nor "N/A".
std::optional<NcclTestsHalf> parse_half(const std::vector<std::string>& names,
                                        const std::vector<std::string>& cells) {
  NcclTestsHalf h;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    const std::string& cell = cells[i];
    if (is_not_measured(cell)) continue;
    if (n == "#wrong" || n == "wrong") {
      auto v = parse_u64(cell);
      if (!v) return std::nullopt;
      h.wrong_elements = *v;
      continue;
    }
    auto v = parse_double(cell);
    if (!v) return std::nullopt;
    // A time or bandwidth that is not a finite, non-negative number is a corrupted row, never
    // a measurement to baseline (nan, inf, 1e400, -5 us).
    if ((n == "time" || n == "algbw" || n == "busbw") && !(std::isfinite(*v) && *v >= 0)) return std::nullopt;
    if (n == "time") h.time_s = *v * 1e-6;                 // printed in microseconds
    else if (n == "algbw") h.algbw_bytes_per_s = *v * 1e9;  // printed in GB/s = 1e9 B/s
    else if (n == "busbw") h.busbw_bytes_per_s = *v * 1e9;
    else if (n == "error") h.max_error = *v;
  }
  return h;
}

// One data row against its table's columns; nullopt when it does not fit them.
std::optional<NcclTestsRow> parse_row(const Columns& c, const std::vector<std::string>& t) {
  size_t tail = c.tail_size();
  if (t.size() < 3 + tail) return std::nullopt;
  size_t front_n = t.size() - tail;  // size, count, type and the optional text columns
  if (front_n - 3 > c.front.size()) return std::nullopt;
  NcclTestsRow r;
  auto size = parse_u64(t[0]);
  auto count = parse_u64(t[1]);
  if (!size || !count) return std::nullopt;
  r.size_bytes = *size;
  r.count = *count;
  r.dtype = t[2];
  bool has_root_column = std::find(c.front.begin(), c.front.end(), "root") != c.front.end();
  for (size_t i = 3; i < front_n; ++i) {
    // Fields may be missing (older alltoall rows print no redop), so a numeric field is the
    // root when the table has one, and anything else is the reduction op.
    auto v = parse_i64(t[i]);
    if (v && has_root_column) r.root = *v;
    else r.redop = t[i];
  }
  std::vector<std::string> h1(t.begin() + static_cast<long>(front_n),
                              t.begin() + static_cast<long>(front_n + c.half1.size()));
  auto out_of_place = parse_half(c.half1, h1);
  if (!out_of_place) return std::nullopt;
  r.out_of_place = *out_of_place;
  if (!c.half2.empty()) {
    std::vector<std::string> h2(t.begin() + static_cast<long>(front_n + c.half1.size()), t.end());
    auto in_place = parse_half(c.half2, h2);
    if (!in_place) return std::nullopt;
    r.in_place = *in_place;
  }
  return r;
}

// "nThread 1 nGpus 1 minBytes 8 ... warmup iters: 5 iters: 20 agg iters: 1 validation: 1".
void parse_nthread_line(const std::vector<std::string>& t, std::optional<int64_t>& warmup,
                        std::optional<int64_t>& iters) {
  for (size_t i = 1; i + 1 < t.size(); ++i) {
    if (t[i] != "iters:") continue;
    auto v = parse_i64(t[i + 1]);
    if (!v) continue;
    if (t[i - 1] == "warmup") warmup = *v;
    else if (t[i - 1] != "agg") iters = *v;
  }
}

// Parser state: metadata seen since the last table, applied to the next header.
struct Pending {
  std::string program;
  std::vector<std::string> rank_hosts;
  std::optional<int64_t> warmup_iters, iters;
  std::string nccl_version;
};


// Bounds of one table: no real sweep comes near them; past them the input is not a sweep.
constexpr size_t kMaxRowsPerTable = size_t{1} << 16;
constexpr size_t kMaxRanks = size_t{1} << 17;

bool has_wrong_results(const NcclTestsTable& t) {
  if (t.out_of_bounds_values.value_or(0) > 0 || !t.out_of_bounds_ok) return true;
  for (const auto& r : t.rows)
    if (r.out_of_place.wrong_elements.value_or(0) > 0 || (r.in_place && r.in_place->wrong_elements.value_or(0) > 0))
      return true;
  return false;
}

// The reading of one input, line by line.
class Parser {
 public:
  Parser(const std::string& source, std::string hint, const ReadLimits& limits)
      : source_(source), hint_(std::move(hint)), max_(limits.max_listed), gaps_(limits.max_listed) {}

  void line(std::string_view raw, size_t line_no);
  Result<NcclTestsImport> finish(size_t line_no);

 private:
  std::string where(size_t line) const { return source_ + ":" + std::to_string(line); }
  void gap(const std::string& kind, const std::string& message, size_t line) {
    gaps_.add(kind, make_error(ErrorCode::kParse, message, where(line)));
  }
  void section_marker(const std::string& body, const std::vector<std::string>& t, size_t line_no);
  void end_section();
  void column_header(const std::vector<std::string>& t, const std::string& content, size_t line_no);
  void hashed_line(const std::string& content, const std::vector<std::string>& t, size_t line_no);
  void close_table(size_t line);
  void flush_held();
  void keep(NcclTestsTable t);
  void summarise(const NcclTestsTable& t);
  std::string collective_of(const NcclTestsTable& t) const;

  std::string source_, hint_;
  size_t max_;
  BoundedErrors gaps_;
  NcclTestsImport out_;
  Pending pending_;
  std::optional<NcclTestsTable> open_;  // the table whose rows are being read
  std::optional<Columns> columns_;
  bool open_has_summary_ = false;
  std::optional<NcclTestsTable> held_;  // closed, waiting for a "Collective test concluded" line
  size_t wrong_listed_ = 0;
  std::string section_title_;           // the open "### <program>" section, if any
  size_t section_line_ = 0, section_tables_ = 0;
  std::map<std::string, size_t> repeat_index_;
  std::set<std::string> summary_hosts_;
};

void Parser::line(std::string_view raw, size_t line_no) {
  std::string_view line = strip_mpirun_tag(raw);
  std::string body = trim(line);
  if (body.empty()) return;
  bool hashed = body[0] == '#';
  std::string content = hashed ? strip_hash(body) : body;
  std::vector<std::string> t = split_ws(content);
  if (t.empty()) return;
  if (starts_with(body, "###")) return section_marker(body, t, line_no);
  if (is_column_header(t)) return column_header(t, content, line_no);
  if (hashed) return hashed_line(content, t, line_no);
  // Not a '#' line: a data row of the open table, or other log output.
  if (open_ && columns_ && parse_u64(t[0])) {
    auto row = parse_row(*columns_, t);
    if (!row) {
      gap("row does not match the table's columns", "row does not match the table's columns; skipped: " + content, line_no);
    } else if (open_->rows.size() >= kMaxRowsPerTable) {
      gap("rows", "more than " + std::to_string(kMaxRowsPerTable) + " rows in one table; row skipped", line_no);
    } else {
      row->line = line_no;
      open_->rows.push_back(std::move(*row));
    }
    return;
  }
  if (auto v = content.find("NCCL version "); v != std::string::npos) {
    auto f = split_ws(content.substr(v + 13));
    if (!f.empty()) pending_.nccl_version = f[0];
    return;
  }
  for (const auto& tok : t)
    if (std::string prog = program_of(tok); !prog.empty()) {
      pending_.program = prog;
      break;
    }
}

// "### all_reduce_perf": the section of one program's output.
void Parser::section_marker(const std::string& body, const std::vector<std::string>& t, size_t line_no) {
  end_section();
  if (normalize_collective_name(t[0])) {
    pending_.program = t[0];
    section_title_ = trim(body);
    section_line_ = line_no;
    section_tables_ = 0;
  }
}

// The "### <program>" section ends (another "###" or the end): without a table, it was cut.
void Parser::end_section() {
  if (!section_title_.empty() && section_tables_ == 0 && !open_)
    gap("section", "section \"" + section_title_ +
                       "\" holds no result table: NOT READ (the output ends or was cut after its header)",
        section_line_);
  section_title_.clear();
}

void Parser::column_header(const std::vector<std::string>& t, const std::string& content, size_t line_no) {
  close_table(line_no);
  flush_held();
  columns_ = columns_from_header(t);
  if (!columns_) return gap("header", "unrecognized nccl-tests column header: " + content, line_no);
  NcclTestsTable table;
  table.header_line = line_no;
  table.layout = std::find(columns_->half1.begin(), columns_->half1.end(), "error") != columns_->half1.end()
                     ? NcclTestsLayout::kErrorColumn
                     : NcclTestsLayout::kWrongColumn;
  table.program = pending_.program;
  table.rank_hosts = std::move(pending_.rank_hosts);
  table.warmup_iters = pending_.warmup_iters;
  table.iters = pending_.iters;
  table.nccl_version = pending_.nccl_version;
  pending_ = Pending{};
  open_ = std::move(table);
  ++section_tables_;
}

void Parser::hashed_line(const std::string& content, const std::vector<std::string>& t, size_t line_no) {
  if (starts_with(content, "Out of bounds values")) {
    auto colon = content.find(':');
    auto fields = split_ws(colon == std::string::npos ? "" : content.substr(colon + 1));
    if (open_ && !fields.empty()) {
      open_->out_of_bounds_values = parse_u64(fields[0]);
      open_->out_of_bounds_ok = fields.size() < 2 || fields[1] == "OK";
      open_has_summary_ = true;
    }
  } else if (starts_with(content, "Avg bus bandwidth")) {
    auto colon = content.find(':');
    if (open_ && colon != std::string::npos) {
      if (auto v = parse_leading_double(content.substr(colon + 1))) open_->avg_busbw_bytes_per_s = *v * 1e9;
      open_has_summary_ = true;
      close_table(line_no);
    }
  } else if (starts_with(content, "Collective test concluded:")) {
    // Printed after the summary by recent nccl-tests: names the table just closed.
    std::string prog = t.size() > 3 ? t[3] : "";
    NcclTestsTable* last = open_ ? &*open_ : held_ ? &*held_ : nullptr;
    if (last && normalize_collective_name(prog)) last->program = prog;
  } else if (auto v = content.find("NCCL version "); v != std::string::npos) {
    auto f = split_ws(content.substr(v + 13));
    if (!f.empty()) pending_.nccl_version = f[0];
  } else if (t[0] == "nThread") {
    parse_nthread_line(t, pending_.warmup_iters, pending_.iters);
  } else if (t[0] == "Rank") {
    // "Rank  0 Group  0 Pid  6899 on node01 device  0 [0000:04:00] NVIDIA H100 80GB HBM3"
    auto on = std::find(t.begin(), t.end(), "on");
    if (pending_.rank_hosts.size() < kMaxRanks)
      pending_.rank_hosts.push_back(on != t.end() && on + 1 != t.end() ? *(on + 1) : "");
    else
      gap("ranks", "more than " + std::to_string(kMaxRanks) + " \"# Rank\" lines before one table; not kept", line_no);
  }
}

void Parser::close_table(size_t line) {
  if (!open_) return;
  if (open_->rows.empty()) {
    gap("empty table", "result table has a header but no data rows", open_->header_line);
  } else {
    if (!open_has_summary_)
      gap("no summary",
          "result table ends without the \"Out of bounds values\" / \"Avg bus bandwidth\" "
          "summary (line " + std::to_string(line) + "): the run was probably cut short",
          open_->header_line);
    flush_held();
    held_ = std::move(*open_);
  }
  open_.reset();
  columns_.reset();
  open_has_summary_ = false;
}

void Parser::flush_held() {
  if (!held_) return;
  NcclTestsTable t = std::move(*held_);
  held_.reset();
  t.collective = collective_of(t);
  bool wrong = has_wrong_results(t);
  bool room = max_ == 0 || out_.tables.size() < max_ + wrong_listed_;
  if (!room && wrong && wrong_listed_ < max_) {
    ++wrong_listed_;
    room = true;
  }
  if (room) return keep(std::move(t));
  summarise(t);
  if (wrong) ++out_.not_listed.wrong_tables;
}

std::string Parser::collective_of(const NcclTestsTable& t) const {
  if (auto n = normalize_collective_name(t.program)) return *n;
  return hint_.empty() ? "unknown" : hint_;
}

void Parser::keep(NcclTestsTable t) {
  if (t.collective == "unknown")
    gap("collective",
        "cannot tell which collective this table measures (no program name in the input); "
        "name it with --collective",
        t.header_line);
  out_.tables.push_back(std::move(t));
}

void Parser::summarise(const NcclTestsTable& t) {
  NcclTestsNotListed& n = out_.not_listed;
  if (n.tables++ == 0) n.first_header_line = t.header_line;
  n.last_header_line = t.header_line;
  for (const auto& h : t.rank_hosts)
    if (!h.empty() && summary_hosts_.size() < kMaxRanks && summary_hosts_.insert(h).second) n.hosts.push_back(h);
  for (const auto& r : t.rows) {
    std::string key = t.collective + "|" + r.dtype + "|" + std::to_string(r.size_bytes);
    auto [it, fresh] = repeat_index_.emplace(key, n.sizes.size());
    if (fresh) n.sizes.push_back({t.collective, r.dtype, r.size_bytes});
    NcclTestsRepeat& s = n.sizes[it->second];
    ++s.runs;
    if (!r.out_of_place.busbw_bytes_per_s) continue;
    double bw = *r.out_of_place.busbw_bytes_per_s;
    s.busbw_min_bytes_per_s = s.runs_with_busbw ? std::min(s.busbw_min_bytes_per_s, bw) : bw;
    s.busbw_max_bytes_per_s = s.runs_with_busbw ? std::max(s.busbw_max_bytes_per_s, bw) : bw;
    s.busbw_sum_bytes_per_s += bw;
    ++s.runs_with_busbw;
  }
}

Result<NcclTestsImport> Parser::finish(size_t line_no) {
  close_table(line_no);
  flush_held();
  end_section();
  if (out_.tables.empty())
    return make_error(ErrorCode::kParse,
                      "no nccl-tests result table found (expected a header line like "
                      "\"#  size  count  type  redop  time  algbw  busbw ...\")",
                      source_);
  out_.gaps = gaps_.take();
  return std::move(out_);
}

}  // namespace

std::optional<std::string> normalize_collective_name(std::string_view name) {
  std::string_view s = basename_of(name);
  if (ends_with(s, "_mpi")) s.remove_suffix(4);
  if (ends_with(s, "_perf")) s.remove_suffix(5);
  std::string q = squash(s);
  for (const auto& known : perf::nccl_tests_collective_names())
    if (q == squash(known)) return known;
  return std::nullopt;
}

Result<NcclTestsImport> parse_nccl_tests(LineSource& lines, const std::string& source,
                                         const std::string& collective_hint, const ReadLimits& limits) {
  std::string hint;
  if (!collective_hint.empty()) {
    auto n = normalize_collective_name(collective_hint);
    if (!n)
      return make_error(ErrorCode::kInvalidArgument,
                        "'" + collective_hint + "' is not an nccl-tests collective (expected one of " +
                            join(perf::nccl_tests_collective_names()) + ")",
                        "--collective");
    hint = *n;
  }
  Parser p(source, hint, limits);
  while (auto l = lines.next()) p.line(*l, lines.line_no());
  if (lines.error()) return *lines.error();
  auto imp = p.finish(lines.line_no());
  if (imp) add_cut_lines_gap(lines, source, imp->gaps);
  return imp;
}

Result<NcclTestsImport> parse_nccl_tests(std::string_view text, const std::string& source,
                                         const std::string& collective_hint) {
  auto lines = text_line_source(std::string(text));
  return parse_nccl_tests(*lines, source, collective_hint, ReadLimits{});
}

}  // namespace fabdiag::baseline
