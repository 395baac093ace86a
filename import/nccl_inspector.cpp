// NCCL Inspector output (import/nccl_inspector.h).
#include "import/nccl_inspector.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/repeats.h"
#include "core/text.h"
#include "import/common.h"

namespace fabdiag {

namespace {

using json = nlohmann::json;

std::optional<int64_t> int_of(const json& o, const char* k) {
  if (!o.is_object() || !o.contains(k) || !o[k].is_number()) return std::nullopt;
  return o[k].get<int64_t>();
}

std::optional<double> num_of(const json& o, const char* k, double scale) {
  if (!o.is_object() || !o.contains(k) || !o[k].is_number()) return std::nullopt;
  double v = o[k].get<double>();
  if (!std::isfinite(v) || v < 0) return std::nullopt;
  return v * scale;
}

std::string str_of(const json& o, const char* k) {
  return o.is_object() && o.contains(k) && o[k].is_string() ? o[k].get<std::string>() : std::string();
}

// `nccl_bus_bandwidth_gbs{a="x",b="y"} 678.263`; nullopt for any other line.
std::optional<InspectorMetric> metric_line(const std::string& t) {
  auto open = t.find('{'), close = t.rfind('}');
  if (!starts_with(t, "nccl_") || open == std::string::npos || close == std::string::npos || close < open)
    return std::nullopt;
  auto v = parse_double(trim(t.substr(close + 1)));
  if (!v) return std::nullopt;
  InspectorMetric m;
  m.name = t.substr(0, open);
  m.value = *v;
  std::string body = t.substr(open + 1, close - open - 1);
  size_t i = 0;
  while (i < body.size()) {
    auto eq = body.find("=\"", i);
    if (eq == std::string::npos) break;
    auto end = body.find('"', eq + 2);
    if (end == std::string::npos) return std::nullopt;
    m.labels[trim(body.substr(i, eq - i))] = body.substr(eq + 2, end - eq - 2);
    i = end + 1;
    if (i < body.size() && body[i] == ',') ++i;
  }
  return m;
}

class Reader {
 public:
  Reader(const std::string& source, const ReadLimits& l)
      : source_(source), gaps_(l.max_listed), max_(l.max_listed ? l.max_listed * 16 : 0) {}
  void line(std::string_view raw, size_t line_no);
  Result<InspectorImport> finish(LineSource& lines);

 private:
  void gap(const std::string& kind, const std::string& msg, size_t line) {
    gaps_.add(kind, make_error(ErrorCode::kParse, msg, line_source(source_, line)));
  }
  void record(const std::string& text, size_t line_no);
  void depth_of(const std::string& t);
  std::string source_;
  BoundedErrors gaps_;
  size_t max_;
  InspectorImport out_;
  std::string buf_;
  size_t buf_line_ = 0;
  int depth_ = 0;
  bool in_string_ = false, escaped_ = false;
  std::vector<size_t> unmarked_;  // colls read before any marker
  LineTally other_;
};

void Reader::depth_of(const std::string& t) {
  for (char c : t) {
    if (in_string_) {
      if (escaped_) escaped_ = false;
      else if (c == '\\') escaped_ = true;
      else if (c == '"') in_string_ = false;
    } else if (c == '"') in_string_ = true;
    else if (c == '{') ++depth_;
    else if (c == '}') --depth_;
  }
}

void Reader::line(std::string_view raw, size_t line_no) {
  std::string t = trim(strip_launcher_tags(raw));
  if (buf_.empty()) {
    if (t.empty() || starts_with(t, "###")) return;
    if (t[0] != '{') {
      if (auto m = metric_line(t)) {
        m->line = line_no;
        if (max_ == 0 || out_.metrics.size() < max_) out_.metrics.push_back(std::move(*m));
      } else {
        other_.add(line_no, t);
      }
      return;
    }
    buf_line_ = line_no;
    depth_ = 0, in_string_ = false, escaped_ = false;
  }
  buf_ += t + "\n";
  depth_of(t);
  if (depth_ <= 0) {
    record(buf_, buf_line_);
    buf_.clear();
  } else if (buf_.size() > kMaxLineBytes) {
    gap("record", "a JSON record longer than " + std::to_string(kMaxLineBytes) + " bytes: NOT READ", buf_line_);
    buf_.clear();
  }
}

void Reader::record(const std::string& text, size_t line_no) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return gap("record", "a JSON record that does not parse: NOT READ", line_no);
  if (j.contains("dump_stats") || j.contains("header")) {
    InspectorDump d;
    const json& h = j.contains("header") ? j["header"] : json();
    d.rank = int_of(h, "rank"), d.n_ranks = int_of(h, "n_ranks"), d.nnodes = int_of(h, "nnodes");
    const json& m = j.contains("metadata") ? j["metadata"] : json();
    d.hostname = str_of(m, "hostname");
    d.format_version = str_of(m, "inspector_output_format_version");
    if (j.contains("dump_stats") && j["dump_stats"].is_object())
      for (const auto& [k, v] : j["dump_stats"].items())
        if (v.is_number_integer()) d.stats[k] = v.get<int64_t>();
    d.line = line_no;
    for (size_t i : unmarked_) out_.colls[i].rank = d.rank, out_.colls[i].n_ranks = d.n_ranks;
    unmarked_.clear();
    if (out_.dumps.size() < 4096) out_.dumps.push_back(std::move(d));
    return;
  }
  if (!j.contains("coll_perf")) return gap("record", "a JSON record of no kind the Inspector writes: NOT READ", line_no);
  const json& c = j["coll_perf"];
  ++out_.colls_total;
  if (max_ && out_.colls.size() >= max_) return;
  InspectorColl r;
  if (!out_.dumps.empty()) r.rank = out_.dumps.back().rank, r.n_ranks = out_.dumps.back().n_ranks;
  else unmarked_.push_back(out_.colls.size());
  r.coll = str_of(c, "coll"), r.algo = str_of(c, "coll_algo"), r.proto = str_of(c, "coll_proto");
  r.sn = int_of(c, "coll_sn"), r.msg_size_bytes = int_of(c, "coll_msg_size_bytes");
  r.exec_time_s = num_of(c, "coll_exec_time_us", 1e-6);
  r.algbw_bytes_per_s = num_of(c, "coll_algobw_gbs", 1e9);
  r.busbw_bytes_per_s = num_of(c, "coll_busbw_gbs", 1e9);
  r.line = line_no;
  out_.colls.push_back(std::move(r));
}

Result<InspectorImport> Reader::finish(LineSource& lines) {
  if (lines.error()) return *lines.error();
  if (!buf_.empty()) gap("cut", "the last JSON record is cut (the output ends inside it): NOT READ", buf_line_);
  if (out_.dumps.empty() && out_.colls_total == 0 && out_.metrics.empty())
    return not_this_format("NCCL Inspector output (coll_perf / dump_stats JSON records, nccl_* Prometheus lines)",
                           source_, other_);
  out_.gaps = gaps_.take();
  add_cut_lines_gap(lines, source_, out_.gaps);
  return std::move(out_);
}

}  // namespace

Result<InspectorImport> import_nccl_inspector(LineSource& lines, const std::string& source, const ReadLimits& limits) {
  Reader r(source, limits);
  while (auto l = lines.next()) r.line(*l, lines.line_no());
  return r.finish(lines);
}

Result<InspectorImport> import_nccl_inspector(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_nccl_inspector(*lines, source, ReadLimits{});
}

}  // namespace fabdiag
