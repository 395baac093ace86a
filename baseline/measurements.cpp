#include "baseline/measurements.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

namespace fabdiag::baseline {

namespace {

const std::string kBench = "fabdiag.bench/1";
const std::string kPairwise = "fabdiag.pairwise/1";
const std::string kTriage = "fabdiag.triage/1";

std::string str_or_empty(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Reads one bench table's results into `out`. Errors: kParse when it is not a bench table.
Status read_bench_table(const nlohmann::json& t, size_t index, const std::string& where,
                        Measurements& out) {
  if (!t.is_object() || !t.contains("results") || !t["results"].is_array())
    return make_error(ErrorCode::kParse, "bench data has no \"results\" array", where);
  std::string collective = str_or_empty(t, "collective");
  if (collective.empty())
    return make_error(ErrorCode::kParse, "bench data has no \"collective\" name", where);
  CollectivePoint base;
  base.collective = collective;
  base.backend = str_or_empty(t, "backend");
  base.dtype = str_or_empty(t, "dtype");
  if (t.contains("ranks") && t["ranks"].is_number_integer()) base.ranks = t["ranks"].get<int64_t>();
  if (t.contains("busbw_resolution_bytes_per_s") && t["busbw_resolution_bytes_per_s"].is_number())
    base.resolution_bytes_per_s = t["busbw_resolution_bytes_per_s"].get<double>();
  base.table_index = index;
  size_t i = 0;
  for (const auto& r : t["results"]) {
    std::string at = where + ": results[" + std::to_string(i++) + "]";
    if (!r.is_object() || !r.contains("size_bytes") || !r["size_bytes"].is_number_unsigned() ||
        !r.contains("busbw_bytes_per_s") || !r["busbw_bytes_per_s"].is_number()) {
      out.gaps.push_back(make_error(
          ErrorCode::kParse, "result without numeric size_bytes and busbw_bytes_per_s; skipped", at));
      continue;
    }
    CollectivePoint p = base;
    p.size_bytes = r["size_bytes"].get<uint64_t>();
    p.busbw_bytes_per_s = r["busbw_bytes_per_s"].get<double>();
    out.collectives.push_back(std::move(p));
  }
  return Ok{};
}

Status read_bench_data(const nlohmann::json& data, const std::string& where, Measurements& out) {
  if (data.is_object() && data.contains("tables")) {
    if (!data["tables"].is_array())
      return make_error(ErrorCode::kParse, "\"tables\" is not an array", where);
    size_t i = 0;
    for (const auto& t : data["tables"]) {
      auto st = read_bench_table(t, i, where + ": tables[" + std::to_string(i) + "]", out);
      if (!st) return st;
      ++i;
    }
    return Ok{};
  }
  return read_bench_table(data, 0, where, out);
}

Status read_pairwise_data(const nlohmann::json& data, const std::string& where, Measurements& out) {
  if (!data.is_object() || !data.contains("hosts") || !data["hosts"].is_array() ||
      !data.contains("matrix_bytes_per_s") || !data["matrix_bytes_per_s"].is_array())
    return make_error(ErrorCode::kParse, "pairwise data needs \"hosts\" and \"matrix_bytes_per_s\" arrays",
                      where);
  PairMatrix m;
  std::set<std::string> seen;
  for (const auto& h : data["hosts"]) {
    if (!h.is_string()) return make_error(ErrorCode::kParse, "pairwise \"hosts\" holds a non-string", where);
    std::string name = h.get<std::string>();
    if (!seen.insert(name).second)
      return make_error(ErrorCode::kParse,
                        "host '" + name + "' appears twice in pairwise \"hosts\"; pairs are matched by name",
                        where);
    m.hosts.push_back(name);
  }
  const auto& rows = data["matrix_bytes_per_s"];
  size_t n = m.hosts.size();
  if (rows.size() != n)
    return make_error(ErrorCode::kParse,
                      "matrix_bytes_per_s has " + std::to_string(rows.size()) + " rows for " +
                          std::to_string(n) + " hosts",
                      where);
  m.bytes_per_s.assign(n, std::vector<std::optional<double>>(n));
  for (size_t i = 0; i < n; ++i) {
    if (!rows[i].is_array() || rows[i].size() != n)
      return make_error(ErrorCode::kParse,
                        "matrix_bytes_per_s row " + std::to_string(i) + " does not have " +
                            std::to_string(n) + " cells",
                        where);
    for (size_t j = 0; j < n; ++j) {
      const auto& c = rows[i][j];
      if (c.is_number() && i != j) m.bytes_per_s[i][j] = c.get<double>();
      else if (!c.is_null() && !c.is_number())
        out.gaps.push_back(make_error(ErrorCode::kParse,
                                      "matrix cell [" + std::to_string(i) + "][" + std::to_string(j) +
                                          "] is neither a number nor null; skipped",
                                      where));
    }
  }
  out.pairwise = std::move(m);
  return Ok{};
}

// The hosts of a triage's data.suspects[].hosts, first seen first; malformed entries are skipped.
void read_suspects(const nlohmann::json& data, Measurements& out) {
  if (!data.is_object() || !data.contains("suspects") || !data["suspects"].is_array()) return;
  for (const auto& s : data["suspects"]) {
    if (!s.is_object() || !s.contains("hosts") || !s["hosts"].is_array()) continue;
    for (const auto& h : s["hosts"]) {
      if (!h.is_string()) continue;
      std::string name = h.get<std::string>();
      if (std::find(out.suspect_hosts.begin(), out.suspect_hosts.end(), name) == out.suspect_hosts.end())
        out.suspect_hosts.push_back(name);
    }
  }
}

}  // namespace

bool PairMatrix::directed() const {
  for (size_t i = 0; i < hosts.size(); ++i)
    for (size_t j = i + 1; j < hosts.size(); ++j) {
      const auto& a = bytes_per_s[i][j];
      const auto& b = bytes_per_s[j][i];
      if (a && b && std::fabs(*a - *b) > 1e-9 * std::max(std::fabs(*a), std::fabs(*b))) return true;
    }
  return false;
}

std::optional<size_t> PairMatrix::index_of(const std::string& host) const {
  auto it = std::find(hosts.begin(), hosts.end(), host);
  if (it == hosts.end()) return std::nullopt;
  return static_cast<size_t>(it - hosts.begin());
}

std::optional<double> PairMatrix::value(const std::string& a, const std::string& b, bool dir) const {
  auto i = index_of(a);
  auto j = index_of(b);
  if (!i || !j || *i == *j) return std::nullopt;
  const auto& ab = bytes_per_s[*i][*j];
  if (dir) return ab;
  const auto& ba = bytes_per_s[*j][*i];
  if (ab && ba) return (*ab + *ba) / 2;
  return ab ? ab : ba;
}

size_t PairMatrix::measured_cells() const {
  size_t n = 0;
  for (const auto& row : bytes_per_s)
    for (const auto& c : row) n += c.has_value();
  return n;
}

const std::vector<std::string>& baselinable_schemas() {
  static const std::vector<std::string> k = {kBench, kPairwise, kTriage};
  return k;
}

bool is_baselinable_schema(const std::string& schema) {
  const auto& k = baselinable_schemas();
  return std::find(k.begin(), k.end(), schema) != k.end();
}

Result<Measurements> extract_measurements(const Envelope& env, const std::string& source) {
  if (!is_baselinable_schema(env.schema))
    return make_error(ErrorCode::kInvalidArgument,
                      "schema \"" + env.schema + "\" holds nothing to baseline (expected " +
                          kBench + ", " + kPairwise + " or " + kTriage + ")",
                      source);
  Measurements m;
  m.schema = env.schema;
  m.hosts = env.hosts;
  Status st = Ok{};
  try {
    if (env.schema == kBench) {
      st = read_bench_data(env.data, source + ": data", m);
    } else if (env.schema == kPairwise) {
      st = read_pairwise_data(env.data, source + ": data", m);
    } else {  // triage: the bench and pairwise parts, whichever ran
      if (env.data.is_object() && env.data.contains("bench") && env.data["bench"].is_array()) {
        size_t i = 0;
        for (const auto& t : env.data["bench"]) {
          st = read_bench_table(t, i, source + ": data.bench[" + std::to_string(i) + "]", m);
          if (!st) break;
          ++i;
        }
      }
      if (st && env.data.is_object() && env.data.contains("pairwise") && !env.data["pairwise"].is_null())
        st = read_pairwise_data(env.data["pairwise"], source + ": data.pairwise", m);
      if (st) read_suspects(env.data, m);
    }
  } catch (const nlohmann::json::exception& e) {
    return make_error(ErrorCode::kParse, std::string("malformed data: ") + e.what(), source);
  }
  if (!st) return st.error();
  if (m.collectives.empty() && (!m.pairwise || m.pairwise->measured_cells() == 0))
    return make_error(ErrorCode::kParse, "the document holds no busbw result and no measured pair", source);
  return m;
}

}  // namespace fabdiag::baseline
