// Findings and JSON data of an `nvidia-smi dmon` import (import/nvsmi_dmon.h;
// docs/gpu_readers.md#nvidia-smi-dmon-findings).
#include <algorithm>
#include <cstdio>

#include "core/text.h"
#include "import/common.h"
#include "import/nvsmi_dmon.h"

namespace fabdiag {
namespace {

// A GPU whose mean stands apart from the median of all GPUs' means (fabdiag's own margins,
// docs/gpu_readers.md#nvidia-smi-dmon-findings): clocks under 75%, PCIe throughput under 50%, a
// temperature 15 C or more above.
struct Apart {
  const char* column;
  double low_share;     // 0 = not judged low
  double high_margin;   // 0 = not judged high (same unit as the column)
  const char* what;
};
constexpr Apart kApart[] = {{"pclk", 0.75, 0, "SM clock"},          {"mclk", 0.75, 0, "memory clock"},
                            {"rxpci", 0.5, 0, "PCIe receive"},      {"txpci", 0.5, 0, "PCIe transmit"},
                            {"gtemp", 0, 15, "GPU temperature"},    {"temp", 0, 15, "GPU temperature"},
                            {"mtemp", 0, 15, "memory temperature"}};

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

std::string unit_of(const DmonImport& imp, const std::string& column) {
  auto it = imp.units.find(column);
  return it == imp.units.end() ? "" : it->second;
}

void apart_findings(const DmonImport& imp, std::vector<Finding>& out) {
  for (const auto& a : kApart) {
    std::vector<std::pair<const DmonGpu*, double>> means;
    for (const auto& g : imp.gpus)
      if (auto it = g.series.find(a.column); it != g.series.end() && it->second.samples)
        means.emplace_back(&g, it->second.mean());
    if (means.size() < 3) continue;
    std::vector<double> v;
    for (const auto& m : means) v.push_back(m.second);
    std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
    double median = v[v.size() / 2];
    std::string unit = unit_of(imp, a.column);
    for (const auto& [g, mean] : means) {
      bool low = a.low_share > 0 && median > 0 && mean < a.low_share * median;
      bool high = a.high_margin > 0 && mean >= median + a.high_margin;
      if (!low && !high) continue;
      Finding f;
      f.severity = Severity::kWarn;
      f.layer = Layer::kPhysical;
      f.code = "dmon_gpu_stands_apart";
      f.subject = "GPU " + std::to_string(g->index);
      f.message = "GPU " + std::to_string(g->index) + "'s mean " + a.what + " is " + num(mean) + " " + unit + " against " +
                  num(median) + " " + unit + " for the median GPU of " + std::to_string(means.size());
      double limit = low ? a.low_share * median : median + a.high_margin;
      f.evidence.push_back(Evidence::number(std::string(a.column) + " mean", mean, unit,
                                            line_source(imp.source, g->series.at(a.column).max_line))
                               .expect(limit, low ? ">= " + num(a.low_share * 100) + "% of the median GPU"
                                                  : "< median + " + num(a.high_margin) + " " + unit));
      f.action = low ? "Compare this GPU's PCIe link (nvidia-smi -q: Link Width/Gen), clock event reasons and "
                       "power limit with its peers; a GPU that lags slows every collective it is in"
                     : "Check this GPU's cooling (fan, airflow, heatsink) and its clock event reasons (nvidia-smi -q "
                       "-d PERFORMANCE); it throttles first";
      out.push_back(std::move(f));
    }
  }
}

void violation_findings(const DmonImport& imp, std::vector<Finding>& out) {
  for (const auto& g : imp.gpus)
    for (const char* col : {"tviol", "pviol"}) {
      auto it = g.series.find(col);
      if (it == g.series.end() || it->second.max <= 0) continue;
      bool thermal = std::string(col) == "tviol";
      Finding f;
      f.severity = thermal ? Severity::kWarn : Severity::kInfo;
      f.layer = Layer::kPhysical;
      f.code = thermal ? "dmon_thermal_violation" : "dmon_power_violation";
      f.subject = "GPU " + std::to_string(g.index);
      f.message = "GPU " + std::to_string(g.index) + (thermal ? " was throttled for temperature (tviol " : " ran at its power cap (pviol ") +
                  num(it->second.max) + ", " + std::to_string(it->second.samples) + " samples)";
      f.evidence.push_back(Evidence::number(std::string(col) + " max", it->second.max, unit_of(imp, col),
                                            line_source(imp.source, it->second.max_line))
                               .expect(0, "0"));
      f.action = thermal ? "Check cooling and the GPU's slowdown temperature (nvidia-smi -q -d TEMPERATURE); its clocks "
                           "drop while it lasts"
                         : "Expected under full load; if clocks are low compare the power limit (nvidia-smi -q -d POWER)";
      out.push_back(std::move(f));
    }
}

}  // namespace

std::vector<Finding> nvsmi_dmon_findings(const DmonImport& imp) {
  std::vector<Finding> out;
  violation_findings(imp, out);
  apart_findings(imp, out);
  return out;
}

nlohmann::json nvsmi_dmon_data(const DmonImport& imp) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : imp.gpus) {
    nlohmann::json series = nlohmann::json::object();
    for (const auto& [col, s] : g.series) {
      nlohmann::json j = {{"samples", s.samples}, {"gaps", s.gaps}, {"unit", unit_of(imp, col)}};
      j["min"] = s.samples ? nlohmann::json(s.min) : nlohmann::json(nullptr);
      j["max"] = s.samples ? nlohmann::json(s.max) : nlohmann::json(nullptr);
      j["mean"] = s.samples ? nlohmann::json(s.mean()) : nlohmann::json(nullptr);
      series[col] = std::move(j);
    }
    gpus.push_back({{"gpu", g.index}, {"rows", g.rows}, {"first_time", g.first_time}, {"last_time", g.last_time},
                    {"series", std::move(series)}});
  }
  nlohmann::json units = nlohmann::json::object();
  for (const auto& [k, v] : imp.units) units[k] = v;
  return {{"columns", imp.columns}, {"units", units}, {"headers", imp.headers}, {"gpus", std::move(gpus)}};
}

}  // namespace fabdiag
