#include "core/finding.h"

#include <utility>

#include <nlohmann/json.hpp>

namespace fabdiag {

Evidence Evidence::number(std::string metric, std::optional<double> value, std::string unit,
                          std::string source) {
  Evidence e;
  e.metric = std::move(metric);
  e.value = value;
  e.unit = std::move(unit);
  e.source = std::move(source);
  return e;
}

Evidence Evidence::text(std::string metric, std::string value_text, std::string source) {
  Evidence e;
  e.metric = std::move(metric);
  e.value_text = std::move(value_text);
  e.source = std::move(source);
  return e;
}

Evidence& Evidence::expect(std::optional<double> limit, std::string limit_text) {
  threshold = limit;
  threshold_text = std::move(limit_text);
  return *this;
}

Evidence& Evidence::expect(std::string limit_text) {
  threshold_text = std::move(limit_text);
  return *this;
}

const char* to_string(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarn: return "warn";
    case Severity::kError: return "error";
    case Severity::kCritical: return "critical";
  }
  return "info";
}

const char* to_string(Layer l) {
  switch (l) {
    case Layer::kApplication: return "L0";
    case Layer::kCollective: return "L1";
    case Layer::kLocalization: return "L2";
    case Layer::kTransport: return "L3";
    case Layer::kPhysical: return "L4";
  }
  return "L4";
}

std::optional<Severity> parse_severity(const std::string& s) {
  for (auto v : {Severity::kInfo, Severity::kWarn, Severity::kError, Severity::kCritical})
    if (s == to_string(v)) return v;
  return std::nullopt;
}

std::optional<Layer> parse_layer(const std::string& s) {
  for (auto v : {Layer::kApplication, Layer::kCollective, Layer::kLocalization,
                 Layer::kTransport, Layer::kPhysical})
    if (s == to_string(v)) return v;
  return std::nullopt;
}

void to_json(nlohmann::json& j, const Evidence& e) {
  j = nlohmann::json::object();
  j["metric"] = e.metric;
  if (e.value) j["value"] = *e.value;
  if (!e.value_text.empty()) j["value_text"] = e.value_text;
  if (!e.unit.empty()) j["unit"] = e.unit;
  if (e.threshold) j["threshold"] = *e.threshold;
  if (!e.threshold_text.empty()) j["threshold_text"] = e.threshold_text;
  if (!e.source.empty()) j["source"] = e.source;
  if (e.at_least) j["at_least"] = true;
}

void from_json(const nlohmann::json& j, Evidence& e) {
  e = Evidence{};
  e.metric = j.value("metric", "");
  if (j.contains("value") && j["value"].is_number()) e.value = j["value"].get<double>();
  e.value_text = j.value("value_text", "");
  e.unit = j.value("unit", "");
  if (j.contains("threshold") && j["threshold"].is_number())
    e.threshold = j["threshold"].get<double>();
  e.threshold_text = j.value("threshold_text", "");
  e.source = j.value("source", "");
  e.at_least = j.value("at_least", false);
}

void to_json(nlohmann::json& j, const Finding& f) {
  j = nlohmann::json{{"severity", to_string(f.severity)},
                     {"layer", to_string(f.layer)},
                     {"code", f.code},
                     {"subject", f.subject},
                     {"message", f.message},
                     {"evidence", f.evidence},
                     {"action", f.action}};
}

void from_json(const nlohmann::json& j, Finding& f) {
  f = Finding{};
  f.severity = parse_severity(j.value("severity", "info")).value_or(Severity::kInfo);
  f.layer = parse_layer(j.value("layer", "L4")).value_or(Layer::kPhysical);
  f.code = j.value("code", "");
  f.subject = j.value("subject", "");
  f.message = j.value("message", "");
  if (j.contains("evidence")) f.evidence = j["evidence"].get<std::vector<Evidence>>();
  f.action = j.value("action", "");
}

std::optional<Severity> worst_severity(const std::vector<Finding>& findings) {
  std::optional<Severity> worst;
  for (const auto& f : findings)
    if (!worst || f.severity > *worst) worst = f.severity;
  return worst;
}

}  // namespace fabdiag
