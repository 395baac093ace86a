#include "baseline/history.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

namespace fabdiag::baseline {

namespace {

const char* kHistorySchema = "fabdiag.baseline_history/1";

// Sort order of series: collectives by (scope, name, size), then pairs by (a, b, directed).
bool series_less(const Series& x, const Series& y) {
  if (x.kind != y.kind) return x.kind == Series::Kind::kCollective;
  if (x.kind == Series::Kind::kCollective)
    return std::tie(x.scope, x.collective, x.size_bytes) < std::tie(y.scope, y.collective, y.size_bytes);
  return std::tie(x.host_a, x.host_b, x.directed) < std::tie(y.host_a, y.host_b, y.directed);
}

// Index of the series of `key` in `index` (built over h.series), adding an empty one if new.
using SeriesIndex = std::map<std::string, size_t>;

std::string key_text(const Series& s) {
  if (s.kind == Series::Kind::kCollective)
    return "c\n" + s.scope + "\n" + s.collective + "\n" + std::to_string(s.size_bytes);
  return "p\n" + s.host_a + "\n" + s.host_b + "\n" + (s.directed ? "1" : "0");
}

SeriesIndex index_series(const History& h) {
  SeriesIndex index;
  for (size_t i = 0; i < h.series.size(); ++i) index.emplace(key_text(h.series[i]), i);
  return index;
}

Series* find_or_add(History& h, SeriesIndex& index, const Series& key) {
  auto [it, added] = index.emplace(key_text(key), h.series.size());
  if (added) {
    h.series.push_back(key);
    h.series.back().points.clear();
  }
  return &h.series[it->second];
}

// The series of `probe`'s key in the sorted h.series, or nullptr.
const Series* find_sorted(const History& h, const Series& probe) {
  auto it = std::lower_bound(h.series.begin(), h.series.end(), probe, series_less);
  if (it == h.series.end() || series_less(probe, *it)) return nullptr;
  return &*it;
}

void append_collectives(History& h, SeriesIndex& index, const Measurements& m, const RunRecord& run) {
  std::set<std::pair<std::string, uint64_t>> seen;
  const std::string scope = run_scope(m.hosts);
  for (const auto& p : m.collectives) {
    if (!seen.emplace(p.collective, p.size_bytes).second) continue;  // first value per key
    Series key;
    key.kind = Series::Kind::kCollective;
    key.scope = scope;
    key.collective = p.collective;
    key.size_bytes = p.size_bytes;
    Series* s = find_or_add(h, index, key);
    s->backend = p.backend;
    s->dtype = p.dtype;
    s->ranks = p.ranks;
    s->resolution_bytes_per_s = p.resolution_bytes_per_s;
    s->points.push_back({run.at, p.busbw_bytes_per_s, ""});
  }
}

void append_pairs(History& h, SeriesIndex& index, const PairMatrix& pm, const RunRecord& run) {
  std::vector<std::string> hosts = pm.hosts;
  std::sort(hosts.begin(), hosts.end());
  bool directed = pm.directed();
  for (size_t i = 0; i < hosts.size(); ++i) {
    for (size_t j = directed ? 0 : i + 1; j < hosts.size(); ++j) {
      if (i == j) continue;
      auto v = pm.value(hosts[i], hosts[j], directed);
      if (!v) continue;
      Series key;
      key.kind = Series::Kind::kPair;
      key.host_a = hosts[i];
      key.host_b = hosts[j];
      key.directed = directed;
      find_or_add(h, index, key)->points.push_back({run.at, *v, ""});
    }
  }
}

nlohmann::json series_json(const Series& s) {
  nlohmann::json j = nlohmann::json::object();
  if (s.kind == Series::Kind::kCollective) {
    j = {{"kind", "collective"}, {"scope", s.scope}, {"collective", s.collective}, {"size_bytes", s.size_bytes},
         {"backend", s.backend}, {"dtype", s.dtype}, {"resolution_bytes_per_s", s.resolution_bytes_per_s}};
    j["ranks"] = s.ranks ? nlohmann::json(*s.ranks) : nlohmann::json(nullptr);
  } else {
    j = {{"kind", "pair"}, {"host_a", s.host_a}, {"host_b", s.host_b}, {"directed", s.directed}};
  }
  j["points"] = nlohmann::json::array();
  for (const auto& p : s.points) {
    nlohmann::json pj = {{"at", p.at}, {"bytes_per_s", p.bytes_per_s}};
    if (!p.host.empty()) pj["host"] = p.host;
    j["points"].push_back(std::move(pj));
  }
  return j;
}

std::string str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Result<Series> series_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("points") || !j["points"].is_array())
    return make_error(ErrorCode::kParse, "series without a \"points\" array", where);
  Series s;
  std::string kind = str(j, "kind");
  if (kind == "collective") {
    s.kind = Series::Kind::kCollective;
    s.scope = str(j, "scope");
    s.collective = str(j, "collective");
    if (s.collective.empty() || !j.contains("size_bytes") || !j["size_bytes"].is_number_unsigned())
      return make_error(ErrorCode::kParse, "collective series needs \"collective\" and \"size_bytes\"", where);
    s.size_bytes = j["size_bytes"].get<uint64_t>();
    s.backend = str(j, "backend");
    s.dtype = str(j, "dtype");
    if (j.contains("ranks") && j["ranks"].is_number_integer()) s.ranks = j["ranks"].get<int64_t>();
    if (j.contains("resolution_bytes_per_s") && j["resolution_bytes_per_s"].is_number())
      s.resolution_bytes_per_s = j["resolution_bytes_per_s"].get<double>();
  } else if (kind == "pair") {
    s.kind = Series::Kind::kPair;
    s.host_a = str(j, "host_a");
    s.host_b = str(j, "host_b");
    if (s.host_a.empty() || s.host_b.empty())
      return make_error(ErrorCode::kParse, "pair series needs \"host_a\" and \"host_b\"", where);
    s.directed = j.value("directed", false);
  } else {
    return make_error(ErrorCode::kParse, "series \"kind\" is neither \"collective\" nor \"pair\"", where);
  }
  for (const auto& p : j["points"]) {
    if (!p.is_object() || !p.contains("bytes_per_s") || !p["bytes_per_s"].is_number())
      return make_error(ErrorCode::kParse, "point without a numeric \"bytes_per_s\"", where);
    s.points.push_back({str(p, "at"), p["bytes_per_s"].get<double>(), str(p, "host")});
  }
  return s;
}

}  // namespace

std::vector<double> Series::last_values(size_t k) const {
  size_t from = k == 0 || points.size() <= k ? 0 : points.size() - k;
  std::vector<double> v;
  for (size_t i = from; i < points.size(); ++i) v.push_back(points[i].bytes_per_s);
  return v;
}

const Series* History::find_collective(const std::string& scope, const std::string& collective,
                                       uint64_t size) const {
  Series probe;
  probe.scope = scope;
  probe.collective = collective;
  probe.size_bytes = size;
  return find_sorted(*this, probe);
}

const Series* History::find_pair(const std::string& a, const std::string& b, bool directed) const {
  Series probe;
  probe.kind = Series::Kind::kPair;
  probe.host_a = a;
  probe.host_b = b;
  probe.directed = true;
  if (directed)
    if (const Series* s = find_sorted(*this, probe)) return s;
  probe.host_a = a < b ? a : b;
  probe.host_b = a < b ? b : a;
  probe.directed = false;
  return find_sorted(*this, probe);
}

std::string run_scope(const std::vector<std::string>& hosts) { return hosts.size() == 1 ? hosts.front() : ""; }

void append_run(History& h, const Measurements& m, const RunRecord& run) {
  SeriesIndex index = index_series(h);
  append_collectives(h, index, m, run);
  if (m.pairwise) append_pairs(h, index, *m.pairwise, run);
  std::stable_sort(h.series.begin(), h.series.end(), series_less);
  h.runs.push_back(run);
}

size_t prune_history(History& h, size_t keep) {
  if (h.fleet || keep == 0) return 0;
  size_t dropped = 0;
  for (auto& s : h.series) {
    if (s.points.size() <= keep) continue;
    size_t excess = s.points.size() - keep;
    s.points.erase(s.points.begin(), s.points.begin() + static_cast<std::ptrdiff_t>(excess));
    dropped += excess;
  }
  h.series.erase(std::remove_if(h.series.begin(), h.series.end(), [](const Series& s) { return s.points.empty(); }),
                 h.series.end());
  if (h.runs.size() > keep) h.runs.erase(h.runs.begin(), h.runs.end() - static_cast<std::ptrdiff_t>(keep));
  return dropped;
}

nlohmann::json history_to_json(const History& h) {
  nlohmann::json j = {{"schema", kHistorySchema}, {"name", h.name}, {"fleet", h.fleet}};
  j["runs"] = nlohmann::json::array();
  for (const auto& r : h.runs)
    j["runs"].push_back({{"at", r.at}, {"saved_at", r.saved_at}, {"started_at", r.started_at},
                         {"source", r.source}, {"schema", r.schema}, {"hosts", r.hosts}});
  j["series"] = nlohmann::json::array();
  for (const auto& s : h.series) j["series"].push_back(series_json(s));
  return j;
}

Result<History> history_from_json(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object() || str(j, "schema") != kHistorySchema)
    return make_error(ErrorCode::kParse, std::string("not a baseline history (expected schema ") + kHistorySchema + ")",
                      source);
  if (!j.contains("series") || !j["series"].is_array() || !j.contains("runs") || !j["runs"].is_array())
    return make_error(ErrorCode::kParse, "baseline history needs \"runs\" and \"series\" arrays", source);
  History h;
  h.name = str(j, "name");
  h.fleet = j.value("fleet", false);
  for (const auto& r : j["runs"]) {
    if (!r.is_object()) return make_error(ErrorCode::kParse, "runs[] holds a non-object", source);
    RunRecord run{str(r, "at"), str(r, "saved_at"), str(r, "started_at"), str(r, "source"), str(r, "schema"), {}};
    if (r.contains("hosts") && r["hosts"].is_array())
      for (const auto& x : r["hosts"])
        if (x.is_string()) run.hosts.push_back(x.get<std::string>());
    h.runs.push_back(std::move(run));
  }
  size_t i = 0;
  for (const auto& s : j["series"]) {
    auto parsed = series_from_json(s, source + ": series[" + std::to_string(i++) + "]");
    if (!parsed) return parsed.error();
    h.series.push_back(std::move(*parsed));
  }
  std::stable_sort(h.series.begin(), h.series.end(), series_less);  // find_* search it
  return h;
}

}  // namespace fabdiag::baseline
