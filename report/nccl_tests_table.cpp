#include "report/nccl_tests_table.h"

#include <cstdarg>
#include <cstdio>
#include <sstream>

#include "core/run_cut.h"
#include "core/text.h"

namespace fabdiag {

namespace {

std::string printf_string(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string printf_string(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

long long int_member(const nlohmann::json& j, const char* key, long long fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<long long>() : fallback;
}

double number_member(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string string_member(const nlohmann::json& j, const char* key, const std::string& fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// nccl-tests' redop column: "sum" for the reductions (fabdiag sums), "none" otherwise.
const char* redop_of(const std::string& collective) {
  return collective == "all_reduce" || collective == "reduce_scatter" || collective == "reduce" ? "sum" : "none";
}

bool rooted(const std::string& collective) {
  return collective == "broadcast" || collective == "reduce" || collective == "gather" || collective == "scatter";
}

void preamble(std::ostringstream& out, const Envelope& env, const std::string& program) {
  const nlohmann::json& d = env.data;
  const nlohmann::json& p = env.params;
  // A run cut before its first size has no warmup/iters in data yet: the run's settings are in params.
  auto setting = [&](const char* key) {
    const long long v = int_member(d, key, 0);
    return v > 0 ? v : int_member(p, key, 0);
  };
  out << "# Collective test starting: " << program << "\n";
  out << printf_string("# nThread 1 nGpus %lld minBytes %lld maxBytes %lld step: %lld(factor) warmup iters: %lld "
                       "iters: %lld agg iters: 1 validation: 1 graph: %lld unalign: 0\n",
                       int_member(p, "gpus", 1), int_member(p, "min_bytes", 0), int_member(p, "max_bytes", 0),
                       int_member(p, "step_factor", 2), setting("warmup"), setting("iters"), setting("graph_launches"));
  // Not nccl-tests' line: `fabdiag import nccl-tests` reads it back (an MPI table stays backend mpi).
  out << "# fabdiag: backend " << escape_controls(string_member(d, "backend", string_member(p, "backend", "nccl"))) << "\n";
  out << "#\n# Using devices\n";
  const nlohmann::json hosts = d.value("hosts", nlohmann::json::array());
  const nlohmann::json devices = d.value("devices", nlohmann::json::array());
  const long long ranks = int_member(d, "ranks", 0);
  for (long long r = 0; r < ranks; ++r) {
    const size_t k = static_cast<size_t>(r);
    const nlohmann::json dev = k < devices.size() ? devices[k] : nlohmann::json::object();
    std::string host = k < hosts.size() && hosts[k].is_string() ? hosts[k].get<std::string>() : "?";
    std::string bus = string_member(dev, "bus_id", "");
    out << printf_string("#  Rank %2lld Group %2d Pid %6lld on %10s device %2lld [%s] %s\n", r, 0,
                         int_member(dev, "pid", 0), escape_controls(host).c_str(), int_member(dev, "device", -1),
                         bus.empty() ? "0000:00:00" : escape_controls(bus).c_str(),
                         escape_controls(string_member(dev, "name", "?")).c_str());
  }
}

void column_header(std::ostringstream& out) {
  out << "#\n";
  out << printf_string("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n",
                       "", "", "", "", "");
  out << printf_string("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "size", "count",
                       "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
  out << printf_string("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "(B)", "(elements)",
                       "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
}

// What the footer sums over the printed halves (nccl-tests: args->bw over every BenchTime call,
// out of place and in place; args->errors per call whose check failed).
struct HalfTotals {
  double busbw_sum_gb = 0;
  long long halves = 0, wrong_halves = 0;
};

// One half's four cells: time (us), algbw, busbw (GB/s), #wrong ("N/A" when null: not checked).
std::string half_cells(const nlohmann::json& half, HalfTotals& totals) {
  const double busbw_gb = number_member(half, "busbw_bytes_per_s") / 1e9;
  auto wrong_it = half.find("wrong_elements");
  const bool checked = wrong_it == half.end() || wrong_it->is_number();
  const long long wrong = int_member(half, "wrong_elements", 0);
  char wrong_cell[32];
  std::snprintf(wrong_cell, sizeof wrong_cell, "%6g", static_cast<double>(wrong));
  totals.busbw_sum_gb += busbw_gb;
  ++totals.halves;
  totals.wrong_halves += wrong > 0;
  return printf_string("  %7s  %6s  %6s  %6s", nccl_tests_float(number_member(half, "time_s") * 1e6, 7).c_str(),
                       nccl_tests_float(number_member(half, "algbw_bytes_per_s") / 1e9, 6).c_str(),
                       nccl_tests_float(busbw_gb, 6).c_str(), checked ? wrong_cell : "N/A");
}

}  // namespace

std::string nccl_tests_float(double value, int width) {
  char buf[64];
  for (const char* fmt : {"%*.2f", "%*.1f", "%*.0f"})
    if (std::snprintf(buf, sizeof buf, fmt, width, value) <= width) return buf;
  std::snprintf(buf, sizeof buf, "%*.0e", width, value);
  return buf;
}

std::string render_nccl_tests(const Envelope& env) {
  const nlohmann::json& d = env.data;
  const std::string collective = string_member(d, "collective", "unknown");
  const std::string program = collective + "_perf";
  const std::string dtype = string_member(d, "dtype", "float");
  const long long root = rooted(collective) ? int_member(d, "root", 0) : -1;
  std::ostringstream out;
  preamble(out, env, program);
  column_header(out);
  HalfTotals totals;
  const nlohmann::json results = d.value("results", nlohmann::json::array());
  for (const auto& row : results) {
    out << printf_string("%12lld  %12lld  %8s  %6s  %6lld", int_member(row, "size_bytes", 0),
                         int_member(row, "count", 0), escape_controls(dtype).c_str(), redop_of(collective), root);
    out << half_cells(row, totals);
    auto in_place = row.find("in_place");
    out << (in_place != row.end() && in_place->is_object() ? half_cells(*in_place, totals)
                                                            : printf_string("  %7s  %6s  %6s  %6s", "N/A", "N/A", "N/A", "N/A"));
    out << "\n";
  }
  const double busbw_sum_gb = totals.busbw_sum_gb;
  const long long rows = totals.halves, wrong_rows = totals.wrong_halves;
  if (env.partial) out << "# fabdiag: PARTIAL: " << escape_controls(cut_text(env.cut)) << "\n";
  // nccl-tests counts the sizes whose check failed (args->errors), not the elements.
  out << printf_string("# %-20s : %lld %s\n", "Out of bounds values", wrong_rows, wrong_rows ? "FAILED" : "OK");
  out << printf_string("# %-20s : %g \n", "Avg bus bandwidth", rows ? busbw_sum_gb / static_cast<double>(rows) : 0.0);
  out << "#\n# Collective test concluded: " << program << "\n";
  for (const auto& f : env.findings)
    out << "# fabdiag: " << to_string(f.severity) << " " << f.code << ": " << escape_controls(f.message) << "\n";
  return out.str();
}

}  // namespace fabdiag
