#include "baseline/fleet.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "core/envelope.h"
#include "core/stats.h"

namespace fabdiag::baseline {

namespace {

struct Value {
  std::string host, at;
  double bytes_per_s = 0;
};

using Key = std::pair<std::string, uint64_t>;

// The values of `key` kept (outliers moved to `out`).
std::vector<Value> drop_outliers(const Key& key, const std::vector<Value>& values, std::vector<FleetOutlier>& out) {
  if (values.size() < kFleetMinNodes) return values;
  std::vector<double> all;
  for (const auto& v : values) all.push_back(v.bytes_per_s);
  double mid = median(all).value_or(0);
  // Modified z (Iglewicz and Hoaglin: 0.6745 (x - median) / MAD) with MAD floored (fleet.h).
  double mad = std::max(median_abs_deviation(all).value_or(0), kFleetMadFloorShare * std::fabs(mid));
  std::vector<Value> kept;
  for (const auto& v : values) {
    double z = mad > 0 ? 0.6745 * (v.bytes_per_s - mid) / mad : 0;
    if (std::fabs(z) > kFleetOutlierZ) out.push_back({v.host, key.first, key.second, v.bytes_per_s, mid, z});
    else kept.push_back(v);
  }
  return kept;
}

nlohmann::json bench_document(const History& h, const std::vector<std::string>& hosts) {
  Envelope env = make_envelope("fabdiag.bench/1");
  env.hosts = hosts;
  nlohmann::json tables = nlohmann::json::array();
  std::map<std::string, size_t> table_of;
  for (const auto& s : h.series) {
    auto [it, added] = table_of.emplace(s.collective, tables.size());
    if (added) {
      tables.push_back({{"collective", s.collective}, {"backend", s.backend}, {"dtype", s.dtype},
                        {"hosts", hosts}, {"results", nlohmann::json::array()}});
      if (s.ranks) tables.back()["ranks"] = *s.ranks;
    }
    tables[it->second]["results"].push_back(
        {{"size_bytes", s.size_bytes}, {"busbw_bytes_per_s", median(s.last_values(0)).value_or(0)}});
  }
  env.data = {{"tables", tables}};
  env.params = {{"fleet", true}, {"outlier_modified_z", kFleetOutlierZ}};
  nlohmann::json j;
  to_json(j, env);
  return j;
}

}  // namespace

Result<FleetBaseline> build_fleet(const std::vector<FleetInput>& inputs) {
  FleetBaseline fb;
  fb.history.fleet = true;
  std::map<Key, std::vector<Value>> values;
  std::map<Key, const CollectivePoint*> first;
  std::vector<std::string> hosts;
  for (const auto& in : inputs) {
    const Measurements& m = in.measurements;
    if (m.pairwise)
      fb.gaps.push_back(make_error(ErrorCode::kNotFound,
                                   "pairwise matrix not used: a fleet baseline holds per-node collective results",
                                   in.source));
    if (m.collectives.empty()) {
      fb.gaps.push_back(make_error(ErrorCode::kNotFound, "no collective result; not part of the fleet", in.source));
      continue;
    }
    std::string host = run_scope(m.hosts).empty() ? in.source : run_scope(m.hosts);
    hosts.push_back(host);
    fb.history.runs.push_back({in.started_at, "", in.started_at, in.source, m.schema, m.hosts});
    std::map<Key, bool> seen;
    for (const auto& p : m.collectives) {
      Key k{p.collective, p.size_bytes};
      if (seen[k]) continue;  // first value per key, as a diff reads it
      seen[k] = true;
      values[k].push_back({host, in.started_at, p.busbw_bytes_per_s});
      first.emplace(k, &p);
    }
  }
  if (hosts.size() < 2)
    return make_error(ErrorCode::kInvalidArgument,
                      "a fleet baseline needs collective results of at least 2 nodes (" +
                          std::to_string(kFleetMinNodes) + " or more to drop outliers); got " +
                          std::to_string(hosts.size()),
                      "FILE");
  for (const auto& [k, vals] : values) {
    Series s;
    s.collective = k.first;
    s.size_bytes = k.second;
    const CollectivePoint* p = first[k];
    s.backend = p->backend;
    s.dtype = p->dtype;
    s.ranks = p->ranks;
    s.resolution_bytes_per_s = p->resolution_bytes_per_s;
    for (const auto& v : drop_outliers(k, vals, fb.outliers)) s.points.push_back({v.at, v.bytes_per_s, v.host});
    fb.history.series.push_back(std::move(s));  // map order = (collective, size): sorted
  }
  fb.document = bench_document(fb.history, hosts);
  return fb;
}

}  // namespace fabdiag::baseline
