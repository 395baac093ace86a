#include "report/prometheus.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>

namespace fabdiag {
namespace {

bool is_alpha_(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string escape_help(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '\\') o += "\\\\";
    else if (c == '\n') o += "\\n";
    else o += c;
  }
  return o;
}

std::string escape_label_value(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '\\') o += "\\\\";
    else if (c == '"') o += "\\\"";
    else if (c == '\n') o += "\\n";
    else o += c;
  }
  return o;
}

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0) {  // exact integers as integers
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  auto r = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form
  return std::string(buf, r.ptr);
}

Error bad(const std::string& why) { return make_error(ErrorCode::kInternal, why, "prometheus renderer"); }

}  // namespace

bool is_valid_metric_name(const std::string& name) {
  if (name.empty() || !(is_alpha_(name[0]) || name[0] == ':')) return false;
  for (char c : name)
    if (!(is_alpha_(c) || is_digit(c) || c == ':')) return false;
  return true;
}

bool is_valid_label_name(const std::string& name) {
  if (name.empty() || !is_alpha_(name[0]) || name.rfind("__", 0) == 0) return false;
  for (char c : name)
    if (!(is_alpha_(c) || is_digit(c))) return false;
  return true;
}

Result<std::string> render_prometheus(const std::vector<MetricFamily>& families) {
  std::string out;
  std::set<std::string> names;
  for (const auto& f : families) {
    if (f.samples.empty()) continue;
    if (!is_valid_metric_name(f.name)) return bad("invalid metric name \"" + f.name + "\"");
    if (!names.insert(f.name).second) return bad("metric family \"" + f.name + "\" appears twice");
    out += "# HELP " + f.name + " " + escape_help(f.help) + "\n";
    out += "# TYPE " + f.name + (f.type == MetricType::kCounter ? " counter\n" : " gauge\n");
    std::set<std::string> series;
    for (const auto& s : f.samples) {
      std::string labels;
      for (const auto& [k, v] : s.labels) {
        if (!is_valid_label_name(k)) return bad("invalid label name \"" + k + "\" in " + f.name);
        labels += (labels.empty() ? "" : ",") + k + "=\"" + escape_label_value(v) + "\"";
      }
      std::string line = f.name + (labels.empty() ? "" : "{" + labels + "}");
      if (!series.insert(line).second) return bad("duplicate series " + line);
      out += line + " " + format_value(s.value) + "\n";
    }
  }
  return out;
}

}  // namespace fabdiag
