// Findings and JSON data of an IMB import (import/imb.h; docs/fabric.md#imb-findings).
#include "core/text.h"
#include "import/common.h"
#include "import/imb.h"
#include "import/mpi_bench_sweep.h"

namespace fabdiag {
namespace {

std::string subject_of(const ImbBenchmark& b) {
  std::string s = "IMB " + (b.name.empty() ? std::string("benchmark") : b.name);
  return b.processes ? s + " (" + std::to_string(*b.processes) + " processes)" : s;
}

std::vector<BandwidthPoint> sweep_of(const ImbBenchmark& b) {
  std::vector<BandwidthPoint> out;
  for (const auto& r : b.rows) {
    auto bytes = r.get("#bytes"), bw = r.get("Mbytes/sec");
    if (bytes && bw) out.push_back(BandwidthPoint{mpi_bench_count(*bytes), *bw * b.mbyte_bytes, r.line});
  }
  return out;
}

Finding block_finding(const ImbImport& imp, const ImbBenchmark& b, Severity sev, const char* code) {
  Finding f;
  f.severity = sev;
  f.layer = Layer::kCollective;
  f.code = code;
  f.subject = subject_of(b);
  f.evidence.push_back(Evidence::text("benchmark", b.name, line_source(imp.source, b.line)));
  return f;
}

void defect_findings(const ImbImport& imp, const ImbBenchmark& b, std::vector<Finding>& out) {
  for (const auto& r : b.rows) {
    auto d = r.get("defects");
    if (!d || *d <= 0) continue;
    Finding f = block_finding(imp, b, Severity::kError, "imb_defects");
    f.evidence.push_back(Evidence::number("defects", *d, "count", line_source(imp.source, r.line)).expect(0, "0"));
    f.message = subject_of(b) + " found " + std::to_string(mpi_bench_count(*d)) + " defect(s) at " +
                std::to_string(mpi_bench_count(r.get("#bytes").value_or(0))) +
                " B (-check: the data received was wrong)";
    f.action = "Data is corrupted on this path: read the NICs' error counters (fabdiag counters), the MPI "
               "library's transport and the hosts' logs; re-run on another pair to place it";
    out.push_back(std::move(f));
    return;  // the first defective size; the table lists the rest
  }
}

}  // namespace

bool imb_block_has_finding(const ImbBenchmark& b) {
  if (b.rows.empty()) return true;
  for (const auto& r : b.rows)
    if (r.get("defects").value_or(0) > 0) return true;
  return sweep_drop(sweep_of(b), SweepSubject{"imb", subject_of(b), "", b.directions()}).has_value();
}

std::vector<Finding> imb_findings(const ImbImport& imp, std::optional<double> line_rate_gbit_per_s) {
  std::vector<Finding> out;
  for (const auto& b : imp.benchmarks) {
    if (b.rows.empty()) {
      Finding f = block_finding(imp, b, Severity::kWarn, "imb_no_result");
      f.message = subject_of(b) + " printed no result row: the run stopped there (a rank failed, hung or was killed)";
      f.action = "Read the MPI errors after the block's title; run the benchmark again alone (IMB-MPI1 " + b.name + ")";
      out.push_back(std::move(f));
      continue;
    }
    defect_findings(imp, b, out);
    add_sweep_findings(sweep_of(b), SweepSubject{"imb", subject_of(b), imp.source, b.directions()},
                       line_rate_gbit_per_s, out);
  }
  return out;
}

nlohmann::json imb_data(const ImbImport& imp) {
  struct Field {
    const char* column;
    const char* name;
    double scale;  // to fabdiag's units (s, bytes/s); 0 = the table's Mbyte
  };
  static const Field kFields[] = {{"#bytes", "size_bytes", 1},       {"#repetitions", "repetitions", 1},
                                  {"t[usec]", "time_s", 1e-6},       {"t_min[usec]", "time_min_s", 1e-6},
                                  {"t_max[usec]", "time_max_s", 1e-6}, {"t_avg[usec]", "time_avg_s", 1e-6},
                                  {"Mbytes/sec", "bandwidth_bytes_per_s", 0}, {"Msg/sec", "messages_per_s", 1},
                                  {"defects", "defects", 1}};
  nlohmann::json blocks = nlohmann::json::array();
  for (const auto& b : imp.benchmarks) {
    nlohmann::json results = nlohmann::json::array();
    for (const auto& r : b.rows) {
      nlohmann::json j = {{"line", r.line}};
      nlohmann::json values = nlohmann::json::object();
      for (const auto& [k, v] : r.values) {
        values[k] = v;
        for (const auto& f : kFields)
          if (k == f.column) j[f.name] = v * (f.scale == 0 ? b.mbyte_bytes : f.scale);
      }
      if (!j.contains("time_s") && j.contains("time_avg_s")) j["time_s"] = j["time_avg_s"];
      for (const char* n : {"size_bytes", "repetitions", "defects"})
        if (j.contains(n)) j[n] = mpi_bench_count(j[n].get<double>());
      j["values"] = std::move(values);
      results.push_back(std::move(j));
    }
    blocks.push_back({{"name", b.name},
                      {"processes", b.processes ? nlohmann::json(*b.processes) : nlohmann::json(nullptr)},
                      {"waiting", b.waiting},
                      {"line", b.line},
                      {"columns", b.columns},
                      {"mbyte_bytes", b.mbyte_bytes},
                      {"mbyte_inferred", b.mbyte_inferred},
                      {"results", std::move(results)}});
  }
  nlohmann::json out = {{"release", imp.release},
                        {"part", imp.part},
                        {"finalized", imp.finalized},
                        {"lines_passed_over", imp.lines_passed_over},
                        {"benchmarks", std::move(blocks)}};
  if (imp.not_listed.tests > 0) out["benchmarks_not_listed"] = imp.not_listed.to_json();
  return out;
}

}  // namespace fabdiag
