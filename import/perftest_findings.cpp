// Findings and JSON data of a perftest import (import/perftest.h; docs/fabric.md#perftest-findings).
#include <cstdio>

#include "core/text.h"
#include "import/common.h"
#include "import/perftest.h"

namespace fabdiag {
namespace {

std::string subject_of(const PerftestRun& run) {
  std::string dev = run.setting("Device");
  std::string test = run.test.empty() ? "perftest" : run.test;
  return dev.empty() ? test : dev + " " + test;
}

std::string unit_of(const PerftestRun& run, const std::string& column) {
  for (size_t i = 0; i < run.columns.size(); ++i)
    if (run.columns[i] == column) return run.units[i];
  return "";
}

std::optional<int64_t> leading_int(const std::string& s) {
  auto v = parse_leading_double(s);
  return v ? std::optional<int64_t>(static_cast<int64_t>(*v)) : std::nullopt;
}

// 36.31 -> "36.31", as printed (6 significant digits at most).
std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

Finding warning(const std::string& code, const std::string& subject) {
  Finding f;
  f.severity = Severity::kWarn;
  f.layer = Layer::kTransport;
  f.code = code;
  f.subject = subject;
  return f;
}

// perftest_no_result / perftest_zero_bandwidth of one run.
void run_findings(const std::string& source, const PerftestRun& run, std::vector<Finding>& out) {
  if (run.rows.empty()) {
    Finding f = warning("perftest_no_result", subject_of(run));
    f.message = subject_of(run) + " printed no result row: the run did not finish (the peer never connected, or it failed)";
    f.action = "Run the test again on both sides and read its errors (ibv_devinfo, the GID index, the firewall for its TCP port)";
    out.push_back(std::move(f));
    return;
  }
  if (run.latency) return;
  for (const auto& r : run.rows) {
    auto avg = r.get("BW average");
    if (!avg || *avg > 0 || r.iterations == 0) continue;
    Finding f = warning("perftest_zero_bandwidth", subject_of(run));
    f.message = subject_of(run) + " reports 0 average bandwidth for " + std::to_string(r.bytes) + "-byte messages";
    f.evidence.push_back(Evidence::number("BW average", *avg, unit_of(run, "BW average"), line_source(source, r.line)));
    f.action = "Run the test again; check the port state and counters on both sides";
    out.push_back(std::move(f));
  }
}

// The runs summarised past the bound that had a warning: counted, the worst named.
Finding not_listed_warned(const PerftestImport& imp) {
  const auto& w = imp.worst_not_listed;
  Finding f = warning("perftest_runs_not_listed_warned", std::to_string(imp.not_listed_warned) + " runs not listed");
  f.message = std::to_string(imp.not_listed_warned) +
              " runs past the listing bound had no result row or a row of 0 average bandwidth; the worst: " + w.test +
              " at " + line_source(imp.source, w.line) +
              (w.value ? " (" + w.column + " " + number_text(*w.value) + ")" : " (no result row)");
  f.evidence.push_back(Evidence::number("runs with a warning", static_cast<double>(imp.not_listed_warned), "count",
                                        line_source(imp.source, w.line)));
  f.action = "Read those runs in the file (--max-findings 0 lists every run); run the test again on both sides";
  return f;
}

nlohmann::json run_data(const PerftestRun& run) {
  nlohmann::json settings = nlohmann::json::object(), columns = nlohmann::json::array(), rows = nlohmann::json::array();
  for (const auto& [k, v] : run.settings) settings[k] = v;
  for (size_t i = 0; i < run.columns.size(); ++i) columns.push_back({{"name", run.columns[i]}, {"unit", run.units[i]}});
  for (const auto& r : run.rows) {
    nlohmann::json j = {{"bytes", r.bytes}, {"iterations", r.iterations}, {"line", r.line}};
    for (const auto& [k, v] : r.values) j[k] = v;
    rows.push_back(std::move(j));
  }
  auto mtu = leading_int(run.setting("Mtu"));
  auto gid = leading_int(run.setting("GID index"));
  return {{"test", run.test},
          {"kind", run.latency ? "latency" : "bandwidth"},
          {"device", run.setting("Device")},
          {"link_type", run.setting("Link type")},
          {"mtu_B", mtu ? nlohmann::json(*mtu) : nlohmann::json(nullptr)},
          {"gid_index", gid ? nlohmann::json(*gid) : nlohmann::json(nullptr)},
          {"settings", settings},
          {"columns", columns},
          {"rows", rows}};
}

}  // namespace

std::vector<Finding> perftest_findings(const PerftestImport& imp) {
  std::vector<Finding> out;
  for (const auto& run : imp.runs) run_findings(imp.source, run, out);
  if (imp.not_listed_warned > 0) out.push_back(not_listed_warned(imp));
  if (imp.duration_mode) {
    Finding f;
    f.severity = Severity::kInfo;
    f.layer = Layer::kTransport;
    f.code = "perftest_peak_not_measured";
    f.subject = imp.runs.empty() ? "perftest" : subject_of(imp.runs.front());
    f.message = "BW peak 0.00 next to a non-zero average: perftest does not measure the peak in duration mode (-D), "
                "not a failure; read the average";
    out.push_back(std::move(f));
  }
  return out;
}

nlohmann::json perftest_data(const PerftestImport& imp) {
  nlohmann::json out = run_data(imp.runs.empty() ? PerftestRun{} : imp.runs.front());
  out["duration_mode"] = imp.duration_mode;
  if (imp.runs.size() > 1) {
    nlohmann::json later = nlohmann::json::array();
    for (size_t i = 1; i < imp.runs.size(); ++i) later.push_back(run_data(imp.runs[i]));
    out["later_runs"] = std::move(later);
  }
  if (imp.not_listed.tests > 0) {
    out["runs_not_listed"] = imp.not_listed.to_json();
    out["runs_not_listed"]["warned"] = imp.not_listed_warned;
  }
  return out;
}

}  // namespace fabdiag
