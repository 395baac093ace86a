#include "import/nccl_tests.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "perf/bandwidth.h"

namespace fabdiag::baseline {

namespace {

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
  if (h.iter_min_s || h.iter_max_s || h.iter_p99_s || h.iter_cv_pct || !h.per_process_max_s.empty())
    j["per_iteration"] = {{"min_s", opt_json(h.iter_min_s)},
                          {"max_s", opt_json(h.iter_max_s)},
                          {"p99_s", opt_json(h.iter_p99_s)},
                          {"cv_pct", opt_json(h.iter_cv_pct)},
                          {"per_process_max_s", h.per_process_max_s}};
  return j;
}

}  // namespace

std::optional<double> busbw_factor_of_rows(const NcclTestsTable& t) {
  std::vector<double> r;
  for (const auto& row : t.rows) {
    const auto& h = row.out_of_place;
    if (h.algbw_bytes_per_s && h.busbw_bytes_per_s && *h.algbw_bytes_per_s >= 1e9)  // 1 GB/s: enough digits
      r.push_back(*h.busbw_bytes_per_s / *h.algbw_bytes_per_s);
  }
  if (r.empty()) return std::nullopt;
  std::sort(r.begin(), r.end());
  return std::round(r[r.size() / 2] * 1e4) / 1e4;
}

namespace {

// The rank count n whose busbw factor (perf/bandwidth.h) is `factor`, within print rounding.
std::optional<int64_t> ranks_implied(const std::string& collective, double factor) {
  const char* f = perf::busbw_factor_formula(std::string_view(collective));
  if (!f || std::string(f) == "1") return std::nullopt;
  double scale = std::string(f) == "2(n-1)/n" ? 2.0 : 1.0;
  for (int64_t n = 2; n <= 4096; ++n)
    if (std::abs(scale * static_cast<double>(n - 1) / static_cast<double>(n) - factor) < 5e-4) return n;
  return std::nullopt;
}

}  // namespace

nlohmann::json to_bench_data(const NcclTestsTable& table) {
  nlohmann::json j = nlohmann::json::object();
  j["collective"] = table.collective;
  j["backend"] = table.backend;
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
  src["tests_version"] = table.tests_version;
  auto opt_code = [](const std::optional<int64_t>& c) { return c ? nlohmann::json(*c) : nlohmann::json(nullptr); };
  src["nccl_headers_code"] = opt_code(table.nccl_headers_code);
  src["nccl_library_code"] = opt_code(table.nccl_library_code);
  src["source_format"] = table.source_format;
  src["header_inferred"] = table.header_inferred;
  src["collective_inferred"] = table.collective_inferred;
  src["summary_cut"] = table.summary_cut;
  src["command_env"] = nlohmann::json::object();
  for (const auto& [k, v] : table.command_env) src["command_env"][k] = v;
  src["command_gpus"] = opt_code(table.command_gpus);
  auto observed = busbw_factor_of_rows(table);
  src["busbw_factor_observed"] = opt_json(observed);
  auto implied = observed ? ranks_implied(table.collective, *observed) : std::nullopt;
  src["ranks_implied"] = opt_code(implied);
  src["devices"] = nlohmann::json::array();
  for (const auto& r : table.ranks)
    src["devices"].push_back({{"rank", r.rank}, {"host", r.host}, {"device", r.device}, {"bus_id", r.bus_id},
                              {"gpu", r.gpu}});
  src["out_of_bounds_values"] =
      table.out_of_bounds_values ? nlohmann::json(*table.out_of_bounds_values) : nlohmann::json(nullptr);
  src["out_of_bounds_ok"] = table.out_of_bounds_ok;
  src["avg_busbw_bytes_per_s"] = opt_json(table.avg_busbw_bytes_per_s);
  j["nccl_tests"] = std::move(src);
  return j;
}

namespace {

nlohmann::json not_listed_json(const NcclTestsNotListed& n) {
  nlohmann::json sizes = nlohmann::json::array();
  for (const auto& r : n.sizes) {
    bool bw = r.runs_with_busbw > 0;
    sizes.push_back({{"collective", r.collective},
                     {"dtype", r.dtype},
                     {"size_bytes", r.size_bytes},
                     {"runs", r.runs},
                     {"busbw_min_bytes_per_s", bw ? nlohmann::json(r.busbw_min_bytes_per_s) : nlohmann::json(nullptr)},
                     {"busbw_mean_bytes_per_s",
                      bw ? nlohmann::json(r.busbw_sum_bytes_per_s / static_cast<double>(r.runs_with_busbw))
                         : nlohmann::json(nullptr)},
                     {"busbw_max_bytes_per_s", bw ? nlohmann::json(r.busbw_max_bytes_per_s) : nlohmann::json(nullptr)}});
  }
  return {{"tables", n.tables},
          {"first_header_line", n.first_header_line},
          {"last_header_line", n.last_header_line},
          {"wrong_tables", n.wrong_tables},
          {"hosts", n.hosts},
          {"sizes", sizes}};
}

}  // namespace

nlohmann::json to_bench_envelope_data(const NcclTestsImport& import) {
  if (import.tables.size() == 1 && import.not_listed.tables == 0) return to_bench_data(import.tables.front());
  nlohmann::json j = nlohmann::json::object();
  j["tables"] = nlohmann::json::array();
  for (const auto& t : import.tables) j["tables"].push_back(to_bench_data(t));
  if (import.not_listed.tables > 0) j["tables_not_listed"] = not_listed_json(import.not_listed);
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
  if (const auto& n = import.not_listed; n.wrong_tables > 0) {
    Finding f;
    f.severity = Severity::kError;
    f.layer = Layer::kCollective;
    f.code = "nccl_tests_wrong_results";
    f.subject = std::to_string(n.wrong_tables) + " tables not listed";
    f.message = "... and " + std::to_string(n.wrong_tables) +
                " more result tables not listed (past --max-findings) reported wrong results";
    f.evidence.push_back(Evidence::number("tables with wrong results, not listed", static_cast<double>(n.wrong_tables),
                                          "count", source + ":" + std::to_string(n.first_header_line) + ".." +
                                                       std::to_string(n.last_header_line))
                             .expect(0, ""));
    f.action = "Re-run with a higher --max-findings (0 = no limit) to list every table.";
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
  for (const auto& h : import.not_listed.hosts)
    if (seen.insert(h).second) hosts.push_back(h);
  return hosts;
}

}  // namespace fabdiag::baseline
