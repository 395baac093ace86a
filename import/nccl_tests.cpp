#include "import/nccl_tests.h"

#include <set>

#include <cmath>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/text.h"
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

std::string layout_name(NcclTestsLayout l) {
  return l == NcclTestsLayout::kWrongColumn ? "wrong_column" : "error_column";
}

nlohmann::json opt_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json half_json(const NcclTestsHalf& h) {
  nlohmann::json j = nlohmann::json::object();
  j["time_s"] = opt_json(h.time_s);
  j["algbw_bytes_per_s"] = opt_json(h.algbw_bytes_per_s);
  j["busbw_bytes_per_s"] = opt_json(h.busbw_bytes_per_s);
  j["wrong_elements"] = h.wrong_elements ? nlohmann::json(*h.wrong_elements) : nlohmann::json(nullptr);
  j["max_error"] = opt_json(h.max_error);
  return j;
}

// Parser state: metadata seen since the last table, applied to the next header.
struct Pending {
  std::string program;
  std::vector<std::string> rank_hosts;
  std::optional<int64_t> warmup_iters, iters;
  std::string nccl_version;
};

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

Result<NcclTestsImport> parse_nccl_tests(std::string_view text, const std::string& source,
                                         const std::string& collective_hint) {
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
  NcclTestsImport out;
  Pending pending;
  std::optional<NcclTestsTable> open;  // the table whose rows are being read
  std::optional<Columns> columns;
  bool open_has_summary = false;
  auto where = [&](size_t line) { return source + ":" + std::to_string(line); };

  auto close_table = [&](size_t line) {
    if (!open) return;
    if (open->rows.empty()) {
      out.gaps.push_back(make_error(ErrorCode::kParse, "result table has a header but no data rows",
                                    where(open->header_line)));
    } else {
      if (!open_has_summary)
        out.gaps.push_back(make_error(
            ErrorCode::kParse,
            "result table ends without the \"Out of bounds values\" / \"Avg bus bandwidth\" "
            "summary (line " + std::to_string(line) + "): the run was probably cut short",
            where(open->header_line)));
      out.tables.push_back(std::move(*open));
    }
    open.reset();
    columns.reset();
    open_has_summary = false;
  };

  size_t line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view raw = text.substr(pos, nl == std::string_view::npos ? text.size() - pos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++line_no;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    std::string_view line = strip_mpirun_tag(raw);
    std::string body = trim(line);
    if (body.empty()) continue;
    bool hashed = body[0] == '#';
    std::string content = hashed ? strip_hash(body) : body;
    std::vector<std::string> t = split_ws(content);
    if (t.empty()) continue;

    // Section marker of saved outputs: "### all_reduce_perf".
    if (starts_with(body, "###")) {
      if (auto n = normalize_collective_name(t[0])) pending.program = t[0];
      continue;
    }
    if (is_column_header(t)) {
      close_table(line_no);
      columns = columns_from_header(t);
      if (!columns) {
        out.gaps.push_back(make_error(ErrorCode::kParse, "unrecognized nccl-tests column header: " + content,
                                      where(line_no)));
        continue;
      }
      NcclTestsTable table;
      table.header_line = line_no;
      table.layout = std::find(columns->half1.begin(), columns->half1.end(), "error") != columns->half1.end()
                         ? NcclTestsLayout::kErrorColumn
                         : NcclTestsLayout::kWrongColumn;
      table.program = pending.program;
      table.rank_hosts = pending.rank_hosts;
      table.warmup_iters = pending.warmup_iters;
      table.iters = pending.iters;
      table.nccl_version = pending.nccl_version;
      pending = Pending{};
      open = std::move(table);
      continue;
    }
    if (hashed) {
      if (starts_with(content, "Out of bounds values")) {
        auto colon = content.find(':');
        auto fields = split_ws(colon == std::string::npos ? "" : content.substr(colon + 1));
        if (open && !fields.empty()) {
          open->out_of_bounds_values = parse_u64(fields[0]);
          open->out_of_bounds_ok = fields.size() < 2 || fields[1] == "OK";
          open_has_summary = true;
        }
      } else if (starts_with(content, "Avg bus bandwidth")) {
        auto colon = content.find(':');
        if (open && colon != std::string::npos) {
          if (auto v = parse_leading_double(content.substr(colon + 1))) open->avg_busbw_bytes_per_s = *v * 1e9;
          open_has_summary = true;
          close_table(line_no);
        }
      } else if (starts_with(content, "Collective test concluded:")) {
        // Printed after the summary by recent nccl-tests: names the table just closed.
        std::string prog = t.size() > 3 ? t[3] : "";
        NcclTestsTable* last = open ? &*open : (out.tables.empty() ? nullptr : &out.tables.back());
        if (last && normalize_collective_name(prog)) last->program = prog;
      } else if (auto v = content.find("NCCL version "); v != std::string::npos) {
        auto f = split_ws(content.substr(v + 13));
        if (!f.empty()) pending.nccl_version = f[0];
      } else if (t[0] == "nThread") {
        parse_nthread_line(t, pending.warmup_iters, pending.iters);
      } else if (t[0] == "Rank") {
        // "Rank  0 Group  0 Pid  6899 on node01 device  0 [0000:04:00] NVIDIA H100 80GB HBM3"
        auto on = std::find(t.begin(), t.end(), "on");
        pending.rank_hosts.push_back(on != t.end() && on + 1 != t.end() ? *(on + 1) : "");
      }
      continue;
    }
    // Not a '#' line: a data row of the open table, or other log output.
    if (open && columns && parse_u64(t[0])) {
      auto row = parse_row(*columns, t);
      if (row) {
        row->line = line_no;
        open->rows.push_back(std::move(*row));
      } else {
        out.gaps.push_back(make_error(ErrorCode::kParse,
                                      "row does not match the table's columns; skipped: " + content,
                                      where(line_no)));
      }
      continue;
    }
    if (auto v = content.find("NCCL version "); v != std::string::npos) {
      auto f = split_ws(content.substr(v + 13));
      if (!f.empty()) pending.nccl_version = f[0];
      continue;
    }
    for (const auto& tok : t) {
      std::string prog = program_of(tok);
      if (!prog.empty()) {
        pending.program = prog;
        break;
      }
    }
  }
  close_table(line_no);

  if (out.tables.empty())
    return make_error(ErrorCode::kParse,
                      "no nccl-tests result table found (expected a header line like "
                      "\"#  size  count  type  redop  time  algbw  busbw ...\")",
                      source);
  for (auto& table : out.tables) {
    auto n = normalize_collective_name(table.program);
    if (n) {
      table.collective = *n;
    } else if (!hint.empty()) {
      table.collective = hint;
    } else {
      table.collective = "unknown";
      out.gaps.push_back(make_error(
          ErrorCode::kNotFound,
          "cannot tell which collective this table measures (no program name in the input); "
          "name it with --collective",
          where(table.header_line)));
    }
  }
  return out;
}

nlohmann::json to_bench_data(const NcclTestsTable& table) {
  nlohmann::json j = nlohmann::json::object();
  j["collective"] = table.collective;
  j["backend"] = "nccl";
  j["dtype"] = table.rows.empty() ? "" : table.rows.front().dtype;
  j["ranks"] = table.rank_hosts.empty() ? nlohmann::json(nullptr)
                                        : nlohmann::json(table.rank_hosts.size());
  j["hosts"] = table.rank_hosts;
  j["warmup"] = table.warmup_iters ? nlohmann::json(*table.warmup_iters) : nlohmann::json(nullptr);
  j["iters"] = table.iters ? nlohmann::json(*table.iters) : nlohmann::json(nullptr);
  const char* factor = perf::busbw_factor_formula(std::string_view(table.collective));
  j["busbw_factor"] = factor ? nlohmann::json(factor) : nlohmann::json(nullptr);
  j["busbw_resolution_bytes_per_s"] = kNcclTestsBandwidthResolutionBytesPerS;
  j["results"] = nlohmann::json::array();
  for (const auto& r : table.rows) {
    nlohmann::json row = half_json(r.out_of_place);
    row["size_bytes"] = r.size_bytes;
    row["count"] = r.count;
    row["per_rank_time_s"] = nlohmann::json::array();
    row["redop"] = r.redop;
    row["root"] = r.root ? nlohmann::json(*r.root) : nlohmann::json(nullptr);
    row["in_place"] = r.in_place ? half_json(*r.in_place) : nlohmann::json(nullptr);
    row["line"] = r.line;
    j["results"].push_back(std::move(row));
  }
  nlohmann::json src = nlohmann::json::object();
  src["program"] = table.program;
  src["layout"] = layout_name(table.layout);
  src["header_line"] = table.header_line;
  src["nccl_version"] = table.nccl_version;
  src["out_of_bounds_values"] =
      table.out_of_bounds_values ? nlohmann::json(*table.out_of_bounds_values) : nlohmann::json(nullptr);
  src["out_of_bounds_ok"] = table.out_of_bounds_ok;
  src["avg_busbw_bytes_per_s"] = opt_json(table.avg_busbw_bytes_per_s);
  j["nccl_tests"] = std::move(src);
  return j;
}

nlohmann::json to_bench_envelope_data(const NcclTestsImport& import) {
  if (import.tables.size() == 1) return to_bench_data(import.tables.front());
  nlohmann::json j = nlohmann::json::object();
  j["tables"] = nlohmann::json::array();
  for (const auto& t : import.tables) j["tables"].push_back(to_bench_data(t));
  return j;
}

std::vector<Finding> nccl_tests_findings(const NcclTestsImport& import, const std::string& source) {
  std::vector<Finding> out;
  for (const auto& t : import.tables) {
    uint64_t wrong = 0;
    for (const auto& r : t.rows) {
      wrong += r.out_of_place.wrong_elements.value_or(0);
      if (r.in_place) wrong += r.in_place->wrong_elements.value_or(0);
    }
    uint64_t oob = t.out_of_bounds_values.value_or(0);
    if (oob == 0 && t.out_of_bounds_ok && wrong == 0) continue;
    Finding f;
    f.severity = Severity::kError;
    f.layer = Layer::kCollective;
    f.code = "nccl_tests_wrong_results";
    f.subject = t.collective;
    f.message = "nccl-tests " + (t.program.empty() ? t.collective : t.program) +
                " reported wrong results: the collective delivered corrupted data";
    std::string where = source + ":" + std::to_string(t.header_line);
    if (t.out_of_bounds_values) {
      f.evidence.push_back(Evidence::number("out of bounds values", static_cast<double>(oob), "count", where).expect(0, ""));
      f.evidence.back().value_text = t.out_of_bounds_ok ? "OK" : "FAILED";
    }
    if (wrong > 0)
      f.evidence.push_back(
          Evidence::number("#wrong elements, all sizes", static_cast<double>(wrong), "count", where).expect(0, ""));
    f.action =
        "Re-run the same test; wrong results point at data corruption on a GPU, NVLink, PCIe or "
        "NIC path: check XID errors (dmesg), NVLink and PCIe AER counters on the hosts of this run.";
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<std::string> nccl_tests_hosts(const NcclTestsImport& import) {
  std::vector<std::string> hosts;
  std::set<std::string> seen;
  for (const auto& t : import.tables)
    for (const auto& h : t.rank_hosts)
      if (!h.empty() && seen.insert(h).second) hosts.push_back(h);
  return hosts;
}

}  // namespace fabdiag::baseline
