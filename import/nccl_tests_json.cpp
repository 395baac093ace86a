// nccl-tests JSON documents, cut or whole (import/nccl_tests_json.h).
#include "import/nccl_tests_json.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "import/json_sax_values.h"
#include "import/nccl_tests_rows.h"

namespace fabdiag::baseline::detail {

namespace {

using json = nlohmann::json;

// Builds the document as far as it goes: a parse error (a cut) keeps every value completed
// before it, and the containers still open. A key written twice (nccl-tests writes "results"
// once per table) is kept as "key#2", "key#3", ...
class PartialDom : public fabdiag::detail::JsonSaxValues {
 public:
  json root;
  bool cut = false;

  bool key(string_t& k) override {
    json& obj = *stack_.back();
    std::string name = k;
    for (int n = 2; obj.contains(name); ++n) name = k + "#" + std::to_string(n);
    slot_ = &obj[name];
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    cut = true;
    return false;
  }

 private:
  json* place(json v) {
    if (stack_.empty()) {
      root = std::move(v);
      return &root;
    }
    json& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();
    }
    *slot_ = std::move(v);
    return slot_;
  }
  bool value(json v) override {
    place(std::move(v));
    return true;
  }
  bool open(json v) override {
    stack_.push_back(place(std::move(v)));
    return true;
  }
  bool close() override {
    stack_.pop_back();
    return true;
  }
  std::vector<json*> stack_;
  json* slot_ = nullptr;
};

std::optional<double> num(const json& o, const char* k) {
  if (!o.is_object() || !o.contains(k) || !o[k].is_number()) return std::nullopt;
  double v = o[k].get<double>();
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::string str(const json& o, const char* k) {
  if (!o.is_object() || !o.contains(k)) return {};
  if (o[k].is_string()) return trim(o[k].get<std::string>());
  if (o[k].is_number()) return o[k].dump();
  return {};
}

// A #wrong value: a whole non-negative number; "N/A" and null are not checked.
std::optional<uint64_t> wrong_of(const json& o, const char* k) {
  auto v = num(o, k);
  if (!v || *v < 0 || std::floor(*v) != *v || *v > 1e18) return std::nullopt;
  return static_cast<uint64_t>(*v);
}

// v x f in base units; nullopt when v is absent, negative or v x f is not finite (1e308 GB/s).
std::optional<double> scaled(std::optional<double> v, double f) {
  if (!v || *v < 0 || !std::isfinite(*v * f)) return std::nullopt;
  return *v * f;
}

// out_of_place / in_place {time|cpu_time, alg_bw, bus_bw, nwrong} and its *_per_iter object.
NcclTestsHalf half_v2(const json& h, const json& it) {
  NcclTestsHalf out;
  out.time_s = scaled(num(h, "time") ? num(h, "time") : num(h, "cpu_time"), 1e-6);
  out.algbw_bytes_per_s = scaled(num(h, "alg_bw"), 1e9);
  out.busbw_bytes_per_s = scaled(num(h, "bus_bw"), 1e9);
  out.wrong_elements = wrong_of(h, "nwrong");
  out.iter_min_s = scaled(num(it, "min_us"), 1e-6);
  out.iter_max_s = scaled(num(it, "max_us"), 1e-6);
  out.iter_p99_s = scaled(num(it, "p99_us"), 1e-6);
  out.iter_cv_pct = num(it, "cv_pct");
  if (it.is_object() && it.contains("per_process_max_times_us") && it["per_process_max_times_us"].is_array())
    for (const auto& proc : it["per_process_max_times_us"]) {
      double worst = 0;
      if (proc.is_array())
        for (const auto& t : proc)
          if (t.is_number()) worst = std::max(worst, t.get<double>());
      out.per_process_max_s.push_back(worst * 1e-6);
    }
  return out;
}

// PR #318 halves: "oop_time", "oop_algbw", "oop_busbw", "oop_error" (and "ip_").
NcclTestsHalf half_pr318(const json& r, const std::string& p) {
  NcclTestsHalf out;
  out.time_s = scaled(num(r, (p + "time").c_str()), 1e-6);
  out.algbw_bytes_per_s = scaled(num(r, (p + "algbw").c_str()), 1e9);
  out.busbw_bytes_per_s = scaled(num(r, (p + "busbw").c_str()), 1e9);
  out.wrong_elements = wrong_of(r, (p + "error").c_str());
  return out;
}

void fill_front(NcclTestsRow& row, const json& r) {
  row.count = static_cast<uint64_t>(num(r, "count").value_or(0));
  row.dtype = str(r, "type");
  row.redop = str(r, "redop");
  row.root = parse_i64(str(r, "root"));
}

std::string size_text(const json& r, const std::string& key) {
  return key.empty() ? str(r, "size") : key;
}

void pr318_tables(const json& root, JsonTables& out) {
  NcclTestsTable t;
  t.source_format = "json-pr318";
  t.layout = NcclTestsLayout::kWrongColumn;
  t.nccl_version = str(root, "version");
  const json& bench = root.contains("benchmark") ? root["benchmark"] : json();
  if (bench.is_array())
    for (const auto& entry : bench) {
      if (!entry.is_object()) continue;
      for (const auto& [key, r] : entry.items()) {
        bool whole = r.is_object() && r.contains("ip_error") && !r["ip_error"].is_null();
        auto size = parse_u64(key);
        if (!whole || !size) {
          out.gaps.push_back("JSON record of size " + key + " is cut or incomplete: NOT READ");
          continue;
        }
        NcclTestsRow row;
        row.size_bytes = *size;
        fill_front(row, r);
        row.out_of_place = half_pr318(r, "oop_");
        row.in_place = half_pr318(r, "ip_");
        t.rows.push_back(std::move(row));
      }
    }
  out.tables.push_back(std::move(t));
}

// The devices of config.devices[] (one per rank).
void devices_of(const json& root, NcclTestsTable& t) {
  if (!root.contains("config") || !root["config"].is_object()) return;
  const json& c = root["config"];
  if (auto w = num(c, "warmup_iters")) t.warmup_iters = static_cast<int64_t>(*w);
  if (auto i = num(c, "iterations")) t.iters = static_cast<int64_t>(*i);
  if (!c.contains("devices") || !c["devices"].is_array()) return;
  for (const auto& d : c["devices"]) {
    NcclTestsRank r;
    r.rank = static_cast<int64_t>(num(d, "rank").value_or(-1));
    r.host = str(d, "hostname");
    r.device = static_cast<int64_t>(num(d, "device").value_or(-1));
    r.bus_id = str(d, "device_hex");
    r.gpu = str(d, "device_info");
    t.rank_hosts.push_back(r.host);
    t.ranks.push_back(std::move(r));
  }
}

void v2_summary(const json& root, const std::string& suffix, NcclTestsTable& t, JsonTables& out) {
  std::string oob = "out_of_bounds" + suffix, avg = "average_bus_bandwidth" + suffix;
  if (root.contains(oob) && root[oob].is_object()) {
    if (auto n = num(root[oob], "count")) t.out_of_bounds_values = static_cast<uint64_t>(std::max(0.0, *n));
    t.out_of_bounds_ok = str(root[oob], "okay") != "false";
  }
  if (root.contains(avg) && root[avg].is_object() && num(root[avg], "bandwidth"))
    t.avg_busbw_bytes_per_s = scaled(num(root[avg], "bandwidth"), 1e9);
  else
    out.gaps.push_back("the JSON summary (out_of_bounds, average_bus_bandwidth) is missing: NOT READ");
}

void v2_tables(const json& root, JsonTables& out) {
  NcclTestsTable proto;
  proto.source_format = "json";
  proto.layout = NcclTestsLayout::kWrongColumn;
  if (auto code = num(root, "nccl_version")) {
    proto.nccl_library_code = static_cast<int64_t>(*code);
    proto.nccl_version = nccl_version_of_code(*proto.nccl_library_code);
  }
  if (root.contains("args") && root["args"].is_array() && !root["args"].empty() && root["args"][0].is_string())
    proto.program = program_of(root["args"][0].get<std::string>());
  devices_of(root, proto);
  for (const auto& [key, results] : root.items()) {
    if (key != "results" && !starts_with(key, "results#")) continue;
    std::string suffix = key.substr(7);
    NcclTestsTable t = proto;
    if (results.is_array())
      for (const auto& r : results) {
        auto size = num(r, "size");
        if (!r.contains("actual_iterations") || !size) {
          out.gaps.push_back("JSON record of size " + size_text(r, "") + " is cut or incomplete: NOT READ");
          continue;
        }
        NcclTestsRow row;
        row.size_bytes = static_cast<uint64_t>(*size);
        fill_front(row, r);
        static const json none;
        auto part = [&](const char* k) -> const json& { return r.contains(k) ? r[k] : none; };
        row.out_of_place = half_v2(part("out_of_place"), part("out_of_place_per_iter"));
        if (r.contains("in_place")) row.in_place = half_v2(part("in_place"), part("in_place_per_iter"));
        if (t.program.empty()) t.program = program_of(str(r, "experiment_name"));
        t.rows.push_back(std::move(row));
      }
    v2_summary(root, suffix, t, out);
    out.tables.push_back(std::move(t));
  }
}

}  // namespace

bool looks_like_nccl_tests_json(std::string_view text) {
  size_t i = text.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos || text[i] != '{') return false;
  auto has = [&](std::string_view w) { return text.find(w) != std::string_view::npos; };
  if (has("\"nccl-tests structured output\"")) return true;
  return has("\"version\"") && (has("\"nccl_version\"") || has("\"results\""));
}

JsonTables read_nccl_tests_json(std::string_view text) {
  PartialDom dom;
  json::sax_parse(text, &dom);
  JsonTables out;
  out.cut = dom.cut;
  if (dom.cut) out.gaps.push_back("the JSON document is cut short (it ends before its closing '}')");
  if (!dom.root.is_object()) return out;
  if (str(dom.root, "identifier") == "nccl-tests structured output") pr318_tables(dom.root, out);
  else v2_tables(dom.root, out);
  out.tables.erase(std::remove_if(out.tables.begin(), out.tables.end(),
                                  [](const NcclTestsTable& t) { return t.rows.empty(); }),
                   out.tables.end());
  return out;
}

}  // namespace fabdiag::baseline::detail
