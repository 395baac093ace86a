// Findings and JSON data of a perftest import (import/perftest.h; docs/fabric.md#perftest-findings).
#include "core/text.h"
#include "import/common.h"
#include "import/perftest.h"

namespace fabdiag {
namespace {

std::string subject_of(const PerftestImport& imp) {
  std::string dev = imp.setting("Device");
  std::string test = imp.test.empty() ? "perftest" : imp.test;
  return dev.empty() ? test : dev + " " + test;
}

std::string unit_of(const PerftestImport& imp, const std::string& column) {
  for (size_t i = 0; i < imp.columns.size(); ++i)
    if (imp.columns[i] == column) return imp.units[i];
  return "";
}

std::optional<int64_t> leading_int(const std::string& s) {
  auto v = parse_leading_double(s);
  return v ? std::optional<int64_t>(static_cast<int64_t>(*v)) : std::nullopt;
}

}  // namespace

std::vector<Finding> perftest_findings(const PerftestImport& imp) {
  std::vector<Finding> out;
  if (imp.rows.empty()) {
    Finding f;
    f.severity = Severity::kWarn;
    f.layer = Layer::kTransport;
    f.code = "perftest_no_result";
    f.subject = subject_of(imp);
    f.message = subject_of(imp) + " printed no result row: the run did not finish (the peer never connected, or it failed)";
    f.action = "Run the test again on both sides and read its errors (ibv_devinfo, the GID index, the firewall for its TCP port)";
    out.push_back(std::move(f));
    return out;
  }
  if (imp.latency) return out;
  bool peak_zero = false;
  for (const auto& r : imp.rows) {
    auto avg = r.get("BW average"), peak = r.get("BW peak");
    std::string src = line_source(imp.source, r.line);
    if (avg && *avg <= 0 && r.iterations > 0) {
      Finding f;
      f.severity = Severity::kWarn;
      f.layer = Layer::kTransport;
      f.code = "perftest_zero_bandwidth";
      f.subject = subject_of(imp);
      f.message = subject_of(imp) + " reports 0 average bandwidth for " + std::to_string(r.bytes) + "-byte messages";
      f.evidence.push_back(Evidence::number("BW average", *avg, unit_of(imp, "BW average"), src));
      f.action = "Run the test again; check the port state and counters on both sides";
      out.push_back(std::move(f));
    }
    peak_zero = peak_zero || (peak && *peak == 0 && avg && *avg > 0);
  }
  if (peak_zero) {
    Finding f;
    f.severity = Severity::kInfo;
    f.layer = Layer::kTransport;
    f.code = "perftest_peak_not_measured";
    f.subject = subject_of(imp);
    f.message = "BW peak 0.00 next to a non-zero average: perftest does not measure the peak in duration mode (-D), "
                "not a failure; read the average";
    out.push_back(std::move(f));
  }
  return out;
}

nlohmann::json perftest_data(const PerftestImport& imp) {
  nlohmann::json settings = nlohmann::json::object(), columns = nlohmann::json::array(), rows = nlohmann::json::array();
  for (const auto& [k, v] : imp.settings) settings[k] = v;
  for (size_t i = 0; i < imp.columns.size(); ++i) columns.push_back({{"name", imp.columns[i]}, {"unit", imp.units[i]}});
  bool duration = false;
  for (const auto& r : imp.rows) {
    nlohmann::json j = {{"bytes", r.bytes}, {"iterations", r.iterations}, {"line", r.line}};
    for (const auto& [k, v] : r.values) j[k] = v;
    auto peak = r.get("BW peak"), avg = r.get("BW average");
    duration = duration || (peak && *peak == 0 && avg && *avg > 0);
    rows.push_back(std::move(j));
  }
  auto mtu = leading_int(imp.setting("Mtu"));
  auto gid = leading_int(imp.setting("GID index"));
  return {{"test", imp.test},
          {"kind", imp.latency ? "latency" : "bandwidth"},
          {"device", imp.setting("Device")},
          {"link_type", imp.setting("Link type")},
          {"mtu_B", mtu ? nlohmann::json(*mtu) : nlohmann::json(nullptr)},
          {"gid_index", gid ? nlohmann::json(*gid) : nlohmann::json(nullptr)},
          {"settings", settings},
          {"columns", columns},
          {"rows", rows},
          {"duration_mode", duration}};
}

}  // namespace fabdiag
