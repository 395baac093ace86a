#include "report/prometheus.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <set>
#include <unordered_set>

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

void append_escaped_label_value(std::string& o, const std::string& s) {
  for (char c : s) {
    if (c == '\\') o += "\\\\";
    else if (c == '"') o += "\\\"";
    else if (c == '\n') o += "\\n";
    else o += c;
  }
}

// The sample value: exact integers as integers ("%.0f" of them, without printf), NaN and
// infinities in Prometheus spelling, anything else in the shortest round-trip form.
void append_value(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "+Inf" : "-Inf";
    return;
  }
  char buf[64];
  std::to_chars_result r;
  if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0) {
    if (v == 0 && std::signbit(v)) {
      out += "-0";  // as "%.0f" writes it
      return;
    }
    r = std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(v));
  } else {
    r = std::to_chars(buf, buf + sizeof buf, v);
  }
  out.append(buf, r.ptr);
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
  std::string line;  // one series' name and labels, reused
  std::unordered_set<std::string> series;
  for (const auto& f : families) {
    if (f.samples.empty()) continue;
    if (!is_valid_metric_name(f.name)) return bad("invalid metric name \"" + f.name + "\"");
    if (!names.insert(f.name).second) return bad("metric family \"" + f.name + "\" appears twice");
    out += "# HELP " + f.name + " " + escape_help(f.help) + "\n";
    out += "# TYPE " + f.name + (f.type == MetricType::kCounter ? " counter\n" : " gauge\n");
    series.clear();
    series.reserve(f.samples.size());
    for (const auto& s : f.samples) {
      line.assign(f.name);
      for (size_t i = 0; i < s.labels.size(); ++i) {
        const auto& [k, v] = s.labels[i];
        if (!is_valid_label_name(k)) return bad("invalid label name \"" + k + "\" in " + f.name);
        line += i == 0 ? '{' : ',';
        line += k;
        line += "=\"";
        append_escaped_label_value(line, v);
        line += '"';
      }
      if (!s.labels.empty()) line += '}';
      if (!series.insert(line).second) return bad("duplicate series " + line);
      out += line;
      out += ' ';
      append_value(out, s.value);
      out += '\n';
    }
  }
  return out;
}

}  // namespace fabdiag
