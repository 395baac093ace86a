// The streaming reader of nccl-tests output (import/nccl_tests.h: parse_nccl_tests()).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <set>

#include "core/repeats.h"
#include "core/text.h"
#include "import/common.h"
#include "import/host_prefix.h"
#include "import/nccl_tests.h"
#include "import/nccl_tests_json.h"
#include "import/nccl_tests_rows.h"
#include "perf/bandwidth.h"

namespace fabdiag::baseline {

namespace {

using namespace detail;

// Parser state: metadata seen since the last table, applied to the next header.
struct Pending {
  std::string program;
  std::vector<NcclTestsRank> ranks;
  std::optional<int64_t> warmup_iters, iters;
  std::string nccl_version;
  TestsVersion tests;
  CommandLine command;
  std::string backend = "nccl";  // "# fabdiag: backend mpi" (fabdiag's own tables)
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
  /// `prefix_host`: the "HOST: " (pdsh, clush) before every line this parser reads; "" = none.
  Parser(const std::string& source, std::string hint, const ReadLimits& limits, std::string prefix_host = {})
      : source_(source), hint_(std::move(hint)), prefix_host_(std::move(prefix_host)), max_(limits.max_listed),
        gaps_(limits.max_listed) {}

  /// Lines read that are '#' lines of nccl-tests (a stream that holds none is not its output).
  size_t hashed_lines() const { return hashed_lines_; }

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
  void summary_line(const std::string& content, size_t line_no);
  bool json_line(const std::string& body, size_t line_no);
  void json_document(const std::string& text, size_t line_no);
  void data_row(const std::vector<std::string>& t, const std::string& content, size_t line_no);
  void open_table(Columns columns, size_t line_no);
  void close_table(size_t line);
  void flush_held();
  void drop_contradicting_counts(NcclTestsTable& t);
  void keep(NcclTestsTable t);
  void summarise(const NcclTestsTable& t);
  std::string collective_of(NcclTestsTable& t) const;

  std::string source_, hint_, prefix_host_;
  size_t hashed_lines_ = 0;
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
  std::string json_buf_;                // a pretty-printed JSON document being collected
  size_t json_line_ = 0;
  std::set<std::string> summary_hosts_;
};

void Parser::line(std::string_view raw, size_t line_no) {
  std::string body = trim(strip_launcher_tags(raw));
  if (json_buf_.empty() && body == "{" && !open_) {
    // Maybe a pretty-printed JSON document: collected until its closing "}" at a line start.
    json_buf_ = "{\n";
    json_line_ = line_no;
    return;
  }
  if (!json_buf_.empty()) {
    // nccl-tests writes "version" first (PR #318: "identifier"): any other second line means
    // the "{" was somebody else's, and this line is read as usual.
    bool second = json_buf_.size() == 2;
    if (!second || starts_with(body, "\"version\"") || starts_with(body, "\"identifier\"")) {
      json_buf_ += body + "\n";
      if ((!raw.empty() && raw[0] == '}') || json_buf_.size() > kMaxLineBytes) {
        json_document(json_buf_, json_line_);
        json_buf_.clear();
      }
      return;
    }
    json_buf_.clear();
  }
  if (body.empty()) return;
  if (body[0] == '{' && json_line(body, line_no)) return;
  bool hashed = body[0] == '#';
  hashed_lines_ += hashed;
  std::string content = hashed ? strip_hash(body) : body;
  std::vector<std::string> t = split_ws(content);
  if (t.empty()) return;
  if (starts_with(body, "###")) return section_marker(body, t, line_no);
  if (is_column_header(t)) return column_header(t, content, line_no);
  if (hashed) return hashed_line(content, t, line_no);
  // nccl-tests before 2020 printed its preamble and summary without the '#' (so does a Markdown
  // paste that ate them): " Out of bounds values : 2 FAILED", "nThread 1 nGpus 8 ...", "Rank 0 Pid ...".
  if (starts_with(content, "Out of bounds values") || starts_with(content, "Avg bus bandwidth") ||
      (t[0] == "nThread" && t.size() > 2 && t[2] == "nGpus") ||
      (t[0] == "Rank" && std::find(t.begin(), t.end(), "Pid") != t.end() && std::find(t.begin(), t.end(), "on") != t.end()))
    return hashed_line(content, t, line_no);
  // Not a '#' line: a data row of the open table (or of one without a header), or log output.
  if (is_digits(t[0])) {  // a size, even one too big for 64 bits (a gap, never log output)
    if (!open_ || !columns_)
      if (auto c = columns_from_row_shape(t)) {
        close_table(line_no);
        flush_held();
        open_table(*c, line_no);
        open_->header_inferred = true;
      }
    if (open_ && columns_) return data_row(t, content, line_no);
  }
  if (auto v = content.find("NCCL version "); v != std::string::npos) {
    auto f = split_ws(content.substr(v + 13));
    if (!f.empty()) pending_.nccl_version = f[0];
    return;
  }
  if (CommandLine c = parse_command_line(t); !c.program.empty()) {
    pending_.program = c.program;
    pending_.command = std::move(c);
  }
}

void Parser::data_row(const std::vector<std::string>& t, const std::string& content, size_t line_no) {
  std::string why;
  auto row = parse_row(*columns_, t, &why);
  if (!row) {
    const bool shape = starts_with(why, "row does not match");
    gap(shape ? why : "row with a value that cannot be read", why + "; " + (shape ? "" : "row ") + "skipped: " + content, line_no);
  } else if (open_->rows.size() >= kMaxRowsPerTable) {
    gap("rows", "more than " + std::to_string(kMaxRowsPerTable) + " rows in one table; row skipped", line_no);
  } else {
    row->line = line_no;
    open_->rows.push_back(std::move(*row));
  }
}

// A one-line JSON document (the -J file, PR #318's stdout line); false when it is not one.
bool Parser::json_line(const std::string& body, size_t line_no) {
  if (!looks_like_nccl_tests_json(body)) return false;
  json_document(body, line_no);
  return true;
}

void Parser::json_document(const std::string& text, size_t line_no) {
  if (!looks_like_nccl_tests_json(text)) return;
  close_table(line_no);
  flush_held();
  JsonTables j = read_nccl_tests_json(text);
  for (const auto& g : j.gaps) gap("json", g, line_no);
  for (auto& t : j.tables) {
    t.header_line = line_no;
    if (t.nccl_version.empty()) t.nccl_version = pending_.nccl_version;
    if (t.program.empty()) t.program = pending_.program;
    t.command_env = pending_.command.nccl_env;
    t.command_gpus = pending_.command.gpus;
    flush_held();
    held_ = std::move(t);
    ++section_tables_;
  }
  flush_held();
  pending_ = Pending{};
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
  auto columns = columns_from_header(t);
  if (!columns) return gap("header", "unrecognized nccl-tests column header: " + content, line_no);
  open_table(*columns, line_no);
}

void Parser::open_table(Columns columns, size_t line_no) {
  columns_ = std::move(columns);
  NcclTestsTable table;
  table.header_line = line_no;
  table.layout = std::find(columns_->half1.begin(), columns_->half1.end(), "error") != columns_->half1.end()
                     ? NcclTestsLayout::kErrorColumn
                     : NcclTestsLayout::kWrongColumn;
  table.program = pending_.program;
  for (auto& r : pending_.ranks)
    if (r.host.empty()) r.host = prefix_host_;  // the line's "HOST: " when the rank line names none
  for (const auto& r : pending_.ranks) table.rank_hosts.push_back(r.host);
  table.ranks = std::move(pending_.ranks);
  table.backend = pending_.backend;
  table.warmup_iters = pending_.warmup_iters;
  table.iters = pending_.iters;
  table.nccl_version = pending_.nccl_version;
  table.command_env = pending_.command.nccl_env;
  table.command_gpus = pending_.command.gpus;
  table.tests_version = pending_.tests.version;
  table.nccl_headers_code = pending_.tests.headers;
  table.nccl_library_code = pending_.tests.library;
  if (table.nccl_version.empty() && table.nccl_library_code)
    table.nccl_version = nccl_version_of_code(*table.nccl_library_code);
  pending_ = Pending{};
  open_ = std::move(table);
  ++section_tables_;
}

// "# Out of bounds values : 0 OK", "# Avg bus bandwidth : 18.94" (or cut: "# Avg").
void Parser::summary_line(const std::string& content, size_t line_no) {
  auto colon = content.find(':');
  if (starts_with(content, "Out of bounds values")) {
    auto fields = split_ws(colon == std::string::npos ? "" : content.substr(colon + 1));
    if (open_ && !fields.empty()) {
      open_->out_of_bounds_values = parse_u64(fields[0]);
      open_->out_of_bounds_ok = fields.size() < 2 || fields[1] == "OK";
      open_has_summary_ = true;
    }
    return;
  }
  if (!open_) return;
  std::optional<double> v;
  if (colon != std::string::npos) v = parse_leading_double(content.substr(colon + 1));
  if (v) {
    open_->avg_busbw_bytes_per_s = *v * 1e9;
  } else {
    open_->summary_cut = true;
    gap("summary cut", "the \"# Avg bus bandwidth\" line is cut (\"" + content +
                           "\"): the average bus bandwidth is NOT READ (missing, not zero)",
        line_no);
  }
  open_has_summary_ = true;
  close_table(line_no);
}

void Parser::hashed_line(const std::string& content, const std::vector<std::string>& t, size_t line_no) {
  if (starts_with(content, "Out of bounds values") || starts_with(content, "Avg")) {
    summary_line(content, line_no);
  } else if (starts_with(content, "Collective test concluded:")) {
    // Printed after the summary by recent nccl-tests: names the table just closed.
    std::string prog = t.size() > 3 ? t[3] : "";
    NcclTestsTable* last = open_ ? &*open_ : held_ ? &*held_ : nullptr;
    if (last && normalize_collective_name(prog)) last->program = prog;
  } else if (starts_with(content, "fabdiag: backend ")) {
    if (t.size() > 2 && (t[2] == "mpi" || t[2] == "nccl")) pending_.backend = t[2];
  } else if (starts_with(content, "fabdiag: PARTIAL:")) {
    // fabdiag's own table of a cut run (report/nccl_tests_table.h): the sizes that finished.
    if (open_) open_->partial = true;
    gap("partial", "the run was cut: " + content.substr(18), line_no);
  } else if (starts_with(content, "Collective test starting:")) {
    if (t.size() > 3 && normalize_collective_name(t[3])) pending_.program = t[3];
  } else if (auto tv = parse_tests_version(t)) {
    pending_.tests = *tv;
  } else if (auto v = content.find("NCCL version "); v != std::string::npos) {
    auto f = split_ws(content.substr(v + 13));
    if (!f.empty()) pending_.nccl_version = f[0];
  } else if (t[0] == "nThread") {
    parse_nthread_line(t, pending_.warmup_iters, pending_.iters);
  } else if (t[0] == "Rank") {
    // "Rank  0 Group  0 Pid  6899 on node01 device  0 [0000:04:00] NVIDIA H100 80GB HBM3"
    if (pending_.ranks.size() < kMaxRanks)
      pending_.ranks.push_back(parse_rank_line(t));
    else
      gap("ranks", "more than " + std::to_string(kMaxRanks) + " \"# Rank\" lines before one table; not kept", line_no);
  }
}

void Parser::close_table(size_t line) {
  if (!open_) return;
  if (open_->rows.empty() && !open_->partial) {
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
  drop_contradicting_counts(t);
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

// nccl-tests prints size = count x the type's bytes (common.cu: count = size / wordSize) for
// all_reduce, broadcast, reduce, sendrecv; for the collectives whose count is per rank
// (all_gather, reduce_scatter, alltoall, gather, scatter, hypercube: paramcount = count / nranks)
// size = count x bytes x ranks, and fabdiag's own tables print count x bytes = size. A row that
// fits neither is corrupted (a gap naming its line), never a measurement.
void Parser::drop_contradicting_counts(NcclTestsTable& t) {
  static const std::set<std::string> kPerRank = {"all_gather", "reduce_scatter", "alltoall", "gather", "scatter", "hypercube"};
  const bool per_rank = kPerRank.count(t.collective) || t.collective == "unknown";
  const uint64_t ranks = t.ranks.size();
  auto fits = [&](const NcclTestsRow& r) {
    const uint64_t bytes = dtype_bytes(r.dtype);
    if (bytes == 0) return true;  // a type nccl-tests does not print: nothing to hold it against
    if (r.count > UINT64_MAX / bytes) return false;
    const uint64_t element_bytes = r.count * bytes;
    if (element_bytes == r.size_bytes) return true;
    if (!per_rank || element_bytes == 0 || r.size_bytes % element_bytes != 0) return false;
    return ranks == 0 || r.size_bytes / element_bytes == ranks;
  };
  auto kept = std::remove_if(t.rows.begin(), t.rows.end(), [&](const NcclTestsRow& r) {
    if (fits(r)) return false;
    gap("count", "count " + std::to_string(r.count) + " x " + std::to_string(dtype_bytes(r.dtype)) + " bytes (" + r.dtype +
                     ") contradicts size " + std::to_string(r.size_bytes) + " bytes" +
                     (per_rank ? " (nor is it a per-rank count of " + (ranks ? std::to_string(ranks) : std::string("some")) + " ranks)" : "") +
                     "; row skipped",
        r.line);
    return true;
  });
  t.rows.erase(kept, t.rows.end());
}

std::string Parser::collective_of(NcclTestsTable& t) const {
  if (auto n = normalize_collective_name(t.program)) return *n;
  if (!hint_.empty()) return hint_;
  // Without a name: only all_reduce has a busbw factor above 1 (2(n-1)/n), so a table cut above
  // its header is still known by its numbers (perf/bandwidth.h).
  if (auto f = busbw_factor_of_rows(t); f && *f > 1.0005 && *f <= 2.0) {
    t.collective_inferred = true;
    return "all_reduce";
  }
  return "unknown";
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
  if (!json_buf_.empty()) json_document(json_buf_, json_line_);
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

// Adds the tables not listed of one stream to those of another (sizes merged by collective,
// dtype and size; hosts each once).
void merge_not_listed(NcclTestsNotListed& into, const NcclTestsNotListed& more) {
  if (more.tables == 0) return;
  if (into.tables == 0 || more.first_header_line < into.first_header_line) into.first_header_line = more.first_header_line;
  into.last_header_line = std::max(into.last_header_line, more.last_header_line);
  into.tables += more.tables;
  into.wrong_tables += more.wrong_tables;
  for (const auto& m : more.sizes) {
    auto same = [&](const NcclTestsRepeat& r) {
      return r.collective == m.collective && r.dtype == m.dtype && r.size_bytes == m.size_bytes;
    };
    auto it = std::find_if(into.sizes.begin(), into.sizes.end(), same);
    if (it == into.sizes.end()) {
      into.sizes.push_back(m);
      continue;
    }
    if (m.runs_with_busbw)
      it->busbw_min_bytes_per_s = it->runs_with_busbw ? std::min(it->busbw_min_bytes_per_s, m.busbw_min_bytes_per_s)
                                                      : m.busbw_min_bytes_per_s;
    if (m.runs_with_busbw)
      it->busbw_max_bytes_per_s = it->runs_with_busbw ? std::max(it->busbw_max_bytes_per_s, m.busbw_max_bytes_per_s)
                                                      : m.busbw_max_bytes_per_s;
    it->runs += m.runs;
    it->runs_with_busbw += m.runs_with_busbw;
    it->busbw_sum_bytes_per_s += m.busbw_sum_bytes_per_s;
  }
  for (const auto& h : more.hosts)
    if (std::find(into.hosts.begin(), into.hosts.end(), h) == into.hosts.end()) into.hosts.push_back(h);
}

// The output of fan-out tools (pdsh -w node[01-08], clush): "HOST: " before every line, the
// lines of the hosts interleaved. Each host's lines are read by a parser of their own, as
// mpirun's tags are dropped (strip_launcher_tags()), so one host's table never takes another's
// rows; lines without a prefix go to one more. The results are joined in first-seen order.
class HostStreams {
 public:
  HostStreams(const std::string& source, const std::string& hint, const ReadLimits& limits)
      : source_(source), hint_(hint), limits_(limits) {}

  void line(std::string_view raw, size_t line_no) {
    HostPrefixed p = split_host_prefix(raw);
    if (p.host.empty() || (!index_.count(p.host) && index_.size() >= kMaxHosts)) return parser("").line(raw, line_no);
    parser(p.host).line(p.text, line_no);
  }

  Result<NcclTestsImport> finish(size_t line_no) {
    std::optional<NcclTestsImport> joined;
    std::optional<Error> first_error;
    std::vector<Error> empty_hosts;
    for (auto& [host, parser] : parsers_) {
      auto r = parser->finish(line_no);
      if (!r) {
        if (!first_error) first_error = r.error();
        // A host's nccl-tests lines with no table in them (its run cut short); a stray
        // "Word: text" line is no host's output.
        if (!host.empty() && parser->hashed_lines() > 0)
          empty_hosts.push_back(make_error(ErrorCode::kParse, "the lines prefixed \"" + host + ": \" hold no result table: NOT READ", source_));
        continue;
      }
      if (!joined) {
        joined = std::move(*r);
        continue;
      }
      for (auto& t : r->tables) joined->tables.push_back(std::move(t));
      for (auto& g : r->gaps) joined->gaps.push_back(std::move(g));
      merge_not_listed(joined->not_listed, r->not_listed);
    }
    if (!joined) return first_error ? *first_error : parser("").finish(line_no).error();
    for (auto& e : empty_hosts) joined->gaps.push_back(std::move(e));
    return std::move(*joined);
  }

 private:
  static constexpr size_t kMaxHosts = 4096;  // past it, more prefixed lines are read as unprefixed

  Parser& parser(const std::string& host) {
    auto it = index_.find(host);
    if (it == index_.end()) {
      it = index_.emplace(host, parsers_.size()).first;
      parsers_.emplace_back(host, std::make_unique<Parser>(source_, hint_, limits_, host));
    }
    return *parsers_[it->second].second;
  }

  std::string source_, hint_;
  ReadLimits limits_;
  std::map<std::string, size_t> index_;
  std::vector<std::pair<std::string, std::unique_ptr<Parser>>> parsers_;
};

}  // namespace

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
  HostStreams streams(source, hint, limits);
  while (auto l = lines.next()) streams.line(*l, lines.line_no());
  if (lines.error()) return *lines.error();
  auto imp = streams.finish(lines.line_no());
  if (imp) add_cut_lines_gap(lines, source, imp->gaps);
  return imp;
}

Result<NcclTestsImport> parse_nccl_tests(std::string_view text, const std::string& source,
                                         const std::string& collective_hint) {
  auto lines = text_line_source(std::string(text));
  return parse_nccl_tests(*lines, source, collective_hint, ReadLimits{});
}

}  // namespace fabdiag::baseline
