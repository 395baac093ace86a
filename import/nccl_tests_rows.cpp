// The line pieces of nccl-tests output (import/nccl_tests_rows.h).
#include "import/nccl_tests_rows.h"

#include <algorithm>
#include <cmath>

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

bool is_time_name(const std::string& n) { return n == "time" || n == "cputime"; }

bool is_half_name(const std::string& n) {
  for (const char* k : {"time", "cputime", "algbw", "busbw", "error", "#wrong", "wrong", "i_min", "i_max", "i_p99",
                        "i_cv%"})
    if (n == k) return true;
  return false;
}

bool is_not_measured(const std::string& tok) { return tok == "N/A" || tok == "n/a" || tok == "-"; }

// The data types nccl-tests prints in its "type" column.
bool is_dtype(const std::string& t) { return detail::dtype_bytes(t) != 0; }

// "2025-01-01" followed by "12:00:00": the timestamp column of -T rows.
bool is_timestamp_pair(const std::string& date, const std::string& time) {
  return date.size() == 10 && date[4] == '-' && date[7] == '-' && time.size() == 8 && time[2] == ':';
}

// Sets *why (when given) and answers nullopt: a row that cannot be read, and why.
template <typename T>
std::optional<T> refuse(std::string* why, std::string text) {
  if (why) *why = std::move(text);
  return std::nullopt;
}

// The unit factor of a half's column (the value printed x factor = SI base units).
double factor_of(const std::string& n) {
  if (is_time_name(n) || n == "i_min" || n == "i_max" || n == "i_p99") return 1e-6;  // printed in microseconds
  if (n == "algbw" || n == "busbw") return 1e9;                                      // printed in GB/s = 1e9 B/s
  return 1;
}

// One half's cells; nullopt (and *why) when a numeric cell is neither a number nor "N/A", or a
// number out of range.
std::optional<NcclTestsHalf> parse_half(const std::vector<std::string>& names, const std::vector<std::string>& cells,
                                        std::string* why) {
  NcclTestsHalf h;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    const std::string& cell = cells[i];
    if (is_not_measured(cell)) continue;
    if (n == "#wrong" || n == "wrong") {
      auto v = parse_u64(cell);
      if (!v) return refuse<NcclTestsHalf>(why, n + " '" + cell + "' is not a whole number of elements");
      h.wrong_elements = *v;
      continue;
    }
    auto v = parse_double(cell);
    if (!v) return refuse<NcclTestsHalf>(why, n + " '" + cell + "' is not a number");
    // A time or bandwidth that is not a finite, non-negative number in base units is a
    // corrupted row, never a measurement to baseline (nan, inf, 1e400, -5 us, 1e308 GB/s).
    const double base = *v * factor_of(n);
    if (!std::isfinite(base) || (n != "error" && base < 0))
      return refuse<NcclTestsHalf>(why, n + " " + cell + " is out of range");
    if (is_time_name(n)) h.time_s = base;
    else if (n == "algbw") h.algbw_bytes_per_s = base;
    else if (n == "busbw") h.busbw_bytes_per_s = base;
    else if (n == "error") h.max_error = base;
    else if (n == "i_min") h.iter_min_s = base;
    else if (n == "i_max") h.iter_max_s = base;
    else if (n == "i_p99") h.iter_p99_s = base;
    else if (n == "i_cv%") h.iter_cv_pct = base;
  }
  return h;
}

}  // namespace

std::optional<std::string> normalize_collective_name(std::string_view name) {
  std::string_view s = basename_of(name);
  if (starts_with(s, "nccl_")) s.remove_prefix(5);  // packaged builds: nccl_all_reduce_perf
  if (ends_with(s, "_mpi")) s.remove_suffix(4);
  if (ends_with(s, "_perf")) s.remove_suffix(5);
  std::string q = squash(s);
  for (const auto& known : perf::nccl_tests_collective_names())
    if (q == squash(known)) return known;
  return std::nullopt;
}

namespace detail {

bool is_digits(const std::string& tok) {
  return !tok.empty() && std::all_of(tok.begin(), tok.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

uint64_t dtype_bytes(const std::string& dtype) {
  // nccl-tests' type names (src/common.cu test_typenames) and ncclTypeSize of NCCL's src/include/collectives.h.
  for (const char* k : {"int8", "uint8", "f8e4m3", "f8e5m2", "fp8_e4m3", "fp8_e5m2"})
    if (dtype == k) return 1;
  if (dtype == "half" || dtype == "bfloat16") return 2;
  if (dtype == "int32" || dtype == "uint32" || dtype == "float") return 4;
  if (dtype == "int64" || dtype == "uint64" || dtype == "double") return 8;
  return 0;
}

std::string program_of(std::string_view token) {
  std::string_view base = basename_of(token);
  std::string_view stem = base;
  if (ends_with(stem, "_mpi")) stem.remove_suffix(4);
  if (!ends_with(stem, "_perf")) return {};
  return normalize_collective_name(stem) ? std::string(base) : std::string();
}

std::string strip_hash(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == '#' || line[i] == ' ' || line[i] == '\t')) ++i;
  return trim(line.substr(i));
}

bool is_column_header(const std::vector<std::string>& t) {
  if (t.size() < 6 || t[0] != "size") return false;
  auto has = [&](const char* n) { return std::find(t.begin(), t.end(), n) != t.end(); };
  return has("count") && has("type") && (has("time") || has("cputime")) && has("algbw") && has("busbw");
}

std::optional<Columns> columns_from_header(const std::vector<std::string>& words) {
  std::vector<std::string> t = words;
  Columns c;
  if (!t.empty() && t.back() == "timestamp") {
    c.timestamp = true;
    t.pop_back();
  }
  if (t.size() < 3 || t[1] != "count" || t[2] != "type") return std::nullopt;
  size_t i = 3;
  for (; i < t.size() && !is_time_name(t[i]); ++i) c.front.push_back(t[i]);
  if (i == t.size()) return std::nullopt;
  c.half1.push_back(t[i++]);
  for (; i < t.size() && !is_time_name(t[i]); ++i) c.half1.push_back(t[i]);
  for (; i < t.size(); ++i) c.half2.push_back(t[i]);
  for (const auto* half : {&c.half1, &c.half2})
    for (const auto& n : *half)
      if (!is_half_name(n)) return std::nullopt;
  return c;
}

std::optional<Columns> columns_from_row_shape(const std::vector<std::string>& t) {
  if (t.size() < 12 || !parse_u64(t[0]) || !parse_u64(t[1]) || !is_dtype(t[2])) return std::nullopt;
  Columns c;
  if (t.size() == 13 && !parse_double(t[3]) && parse_i64(t[4])) {
    c.front = {"redop", "root"};
    c.half1 = c.half2 = {"time", "algbw", "busbw", "#wrong"};
  } else if (t.size() == 12 && !parse_double(t[3])) {
    c.front = {"redop"};
    c.half1 = c.half2 = {"time", "algbw", "busbw", "error"};
  } else {
    return std::nullopt;
  }
  if (!parse_row(c, t)) return std::nullopt;
  return c;
}

std::optional<NcclTestsRow> parse_row(const Columns& c, std::vector<std::string> t, std::string* why) {
  if (c.timestamp && t.size() >= 2 && is_timestamp_pair(t[t.size() - 2], t.back())) t.resize(t.size() - 2);
  size_t tail = c.tail_size();
  const std::string shape = "row does not match the table's columns";
  if (t.size() < 3 + tail) return refuse<NcclTestsRow>(why, shape);
  size_t front_n = t.size() - tail;  // size, count, type and the optional text columns
  if (front_n - 3 > c.front.size()) return refuse<NcclTestsRow>(why, shape);
  NcclTestsRow r;
  auto size = parse_u64(t[0]);
  auto count = parse_u64(t[1]);
  for (int i : {0, 1})
    if (!(i == 0 ? size : count))
      return refuse<NcclTestsRow>(why, std::string(i == 0 ? "size" : "count") + " '" + t[i] + "' " +
                                           (is_digits(t[i]) ? "does not fit 64 bits (above 18446744073709551615)"
                                                            : "is not a whole number"));
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
  auto out_of_place = parse_half(c.half1, h1, why);
  if (!out_of_place) return std::nullopt;
  r.out_of_place = *out_of_place;
  if (!c.half2.empty()) {
    std::vector<std::string> h2(t.begin() + static_cast<long>(front_n + c.half1.size()), t.end());
    auto in_place = parse_half(c.half2, h2, why);
    if (!in_place) return std::nullopt;
    r.in_place = *in_place;
  }
  return r;
}

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

std::optional<TestsVersion> parse_tests_version(const std::vector<std::string>& t) {
  if (t.size() < 3 || t[0] != "nccl-tests" || t[1] != "version") return std::nullopt;
  TestsVersion v;
  v.version = t[2];
  for (size_t i = 3; i < t.size(); ++i) {
    auto eq = t[i].find('=');
    if (eq == std::string::npos) continue;
    std::string key = t[i].substr(0, eq);
    auto code = parse_i64(t[i].substr(eq + 1));
    if (key == "nccl-headers") v.headers = code;
    else if (key == "nccl-library") v.library = code;
  }
  return v;
}

CommandLine parse_command_line(const std::vector<std::string>& t) {
  CommandLine c;
  size_t at = t.size();
  for (size_t i = 0; i < t.size() && at == t.size(); ++i)
    if (std::string prog = program_of(t[i]); !prog.empty()) c.program = prog, at = i;
  if (c.program.empty()) return c;
  int64_t np = 1, threads = 1, gpus = 1;
  bool any = false;
  auto flag = [&](size_t i, std::initializer_list<const char*> names, int64_t& into) {
    for (const char* n : names)
      if (t[i] == n && i + 1 < t.size())
        if (auto v = parse_i64(t[i + 1]); v && *v > 0 && *v < (int64_t{1} << 20)) into = *v, any = true;
  };
  for (size_t i = 0; i < t.size(); ++i) {
    if (i < at) {
      auto eq = t[i].find('=');
      if (starts_with(t[i], "NCCL_") && eq != std::string::npos) c.nccl_env.emplace_back(t[i].substr(0, eq), t[i].substr(eq + 1));
      flag(i, {"-np", "-n"}, np);
    } else {
      flag(i, {"-t", "--nthreads"}, threads);
      flag(i, {"-g", "--ngpus"}, gpus);
    }
  }
  if (any) c.gpus = np * threads * gpus;
  return c;
}

NcclTestsRank parse_rank_line(const std::vector<std::string>& t) {
  NcclTestsRank r;
  if (t.size() > 1) r.rank = parse_i64(t[1]).value_or(-1);
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i] == "on") r.host = t[i + 1];
    if (t[i] != "device") continue;
    r.device = parse_i64(t[i + 1]).value_or(-1);
    size_t g = i + 2;
    if (g < t.size() && t[g].size() > 2 && t[g].front() == '[' && t[g].back() == ']') {
      r.bus_id = t[g].substr(1, t[g].size() - 2);
      ++g;
    }
    std::vector<std::string> name(t.begin() + static_cast<long>(std::min(g, t.size())), t.end());
    r.gpu = join(name, " ");
    break;
  }
  return r;
}

}  // namespace detail

}  // namespace fabdiag::baseline
