// Findings and JSON data of an OSU import (import/osu.h; docs/fabric.md#osu-findings).
#include "core/text.h"
#include "import/common.h"
#include "import/mpi_bench_sweep.h"
#include "import/osu.h"

namespace fabdiag {
namespace {

// What a column holds, in fabdiag's units: OMB prints MB/s (1e6 bytes/s) and microseconds.
struct ColumnRole {
  const char* field;
  double scale;
};
std::optional<ColumnRole> role_of(const std::string& column) {
  if (column == "Bandwidth (MB/s)" || column == "MB/s") return ColumnRole{"bandwidth_bytes_per_s", 1e6};
  if (column == "Messages/s") return ColumnRole{"messages_per_s", 1};
  if (column == "Avg Latency(us)" || column == "Latency (us)" || column == "Avg Latency (us)")
    return ColumnRole{"latency_avg_s", 1e-6};
  if (column == "Min Latency(us)" || column == "Min Latency (us)") return ColumnRole{"latency_min_s", 1e-6};
  if (column == "Max Latency(us)" || column == "Max Latency (us)") return ColumnRole{"latency_max_s", 1e-6};
  if (column == "Iterations") return ColumnRole{"iterations", 1};
  return std::nullopt;
}

std::vector<BandwidthPoint> sweep_of(const OsuTest& t) {
  std::vector<BandwidthPoint> out;
  for (const auto& r : t.rows)
    for (const auto& [k, v] : r.values)
      if (auto role = role_of(k); role && std::string(role->field) == "bandwidth_bytes_per_s")
        out.push_back(BandwidthPoint{r.size_bytes, v * role->scale, r.line});
  return out;
}

std::string subject_of(const OsuTest& t) { return t.title.empty() ? "OSU " + t.kind() + " test" : t.title; }

Finding test_finding(const OsuImport& imp, const OsuTest& t, Severity sev, const char* code) {
  Finding f;
  f.severity = sev;
  f.layer = Layer::kCollective;
  f.code = code;
  f.subject = subject_of(t);
  f.evidence.push_back(Evidence::text("title", t.title, line_source(imp.source, t.title_line)));
  return f;
}

void validation_findings(const OsuImport& imp, const OsuTest& t, std::vector<Finding>& out) {
  const OsuRow* first = nullptr;
  size_t failed = 0;
  for (const auto& r : t.rows)
    if (r.validation_passed && !*r.validation_passed) failed++, first = first ? first : &r;
  if (!first) return;
  Finding f = test_finding(imp, t, Severity::kError, "osu_validation_failed");
  f.evidence.push_back(Evidence::text("Validation at " + std::to_string(first->size_bytes) + " B", "Fail",
                                      line_source(imp.source, first->line))
                           .expect("Pass"));
  f.message = subject_of(t) + " received wrong data at " + std::to_string(failed) + " size(s), first " +
              std::to_string(first->size_bytes) + " B (-c validation: Fail)";
  f.action = "Data is corrupted on this path: check GPUDirect RDMA / the CUDA-aware MPI build, the NICs' error "
             "counters (fabdiag counters) and the GPU's Xid log; re-run on another pair to place it";
  out.push_back(std::move(f));
}

}  // namespace

std::vector<Finding> osu_findings(const OsuImport& imp, std::optional<double> line_rate_gbit_per_s) {
  std::vector<Finding> out;
  for (const auto& t : imp.tests) {
    if (t.rows.empty()) {
      Finding f = test_finding(imp, t, Severity::kWarn, "osu_no_result");
      f.message = subject_of(t) + " printed no result row: the run did not finish (a rank failed or hung)";
      f.action = "Read the MPI errors around the title; run it again on the same hosts";
      out.push_back(std::move(f));
      continue;
    }
    validation_findings(imp, t, out);
    add_sweep_findings(sweep_of(t), SweepSubject{"osu", subject_of(t), imp.source, t.directions()},
                       line_rate_gbit_per_s, out);
  }
  return out;
}

bool osu_test_has_finding(const OsuTest& t) {
  if (t.rows.empty()) return true;
  for (const auto& r : t.rows)
    if (r.validation_passed && !*r.validation_passed) return true;
  return sweep_drop(sweep_of(t), SweepSubject{"osu", subject_of(t), "", t.directions()}).has_value();
}

nlohmann::json osu_data(const OsuImport& imp) {
  nlohmann::json tests = nlohmann::json::array();
  for (const auto& t : imp.tests) {
    nlohmann::json results = nlohmann::json::array();
    for (const auto& r : t.rows) {
      nlohmann::json j = {{"size_bytes", r.size_bytes}, {"line", r.line}};
      nlohmann::json values = nlohmann::json::object();
      for (const auto& [k, v] : r.values) {
        values[k] = v;
        if (auto role = role_of(k)) j[role->field] = v * role->scale;
      }
      if (r.validation_passed) j["validation_passed"] = *r.validation_passed;
      j["values"] = std::move(values);
      results.push_back(std::move(j));
    }
    tests.push_back({{"title", t.title},
                     {"benchmark", t.benchmark},
                     {"kind", t.kind()},
                     {"accelerator", t.accelerator},
                     {"version", t.version},
                     {"buffers", t.buffers},
                     {"datatype", t.datatype},
                     {"columns", t.columns},
                     {"header_inferred", t.header_inferred},
                     {"title_line", t.title_line},
                     {"results", std::move(results)}});
  }
  nlohmann::json out = {{"tests", std::move(tests)}, {"lines_passed_over", imp.lines_passed_over}};
  if (imp.not_listed.tests > 0) out["tests_not_listed"] = imp.not_listed.to_json();
  return out;
}

}  // namespace fabdiag
