// The data and findings of NCCL Inspector output (import/nccl_inspector.h).
#include <cmath>

#include <nlohmann/json.hpp>

#include "import/nccl_inspector.h"
#include "import/nccl_tests.h"
#include "perf/bandwidth.h"

namespace fabdiag {

namespace {

nlohmann::json opt(const std::optional<int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }
nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

// busbw / algbw nccl-tests defines for the collective ("AllReduce") at n ranks; nullopt when unknown.
std::optional<double> expected_factor(const std::string& coll, std::optional<int64_t> n) {
  auto name = baseline::normalize_collective_name(coll);
  const char* f = name ? perf::busbw_factor_formula(std::string_view(*name)) : nullptr;
  if (!f || !n || *n < 1) return std::nullopt;
  double k = static_cast<double>(*n - 1) / static_cast<double>(*n);
  std::string s = f;
  return s == "2(n-1)/n" ? 2 * k : s == "(n-1)/n" ? k : 1.0;
}

std::optional<double> observed_factor(const InspectorColl& c) {
  if (!c.algbw_bytes_per_s || !c.busbw_bytes_per_s || *c.algbw_bytes_per_s <= 0) return std::nullopt;
  return *c.busbw_bytes_per_s / *c.algbw_bytes_per_s;
}

std::optional<double> dropped_pct(const InspectorDump& d) {
  auto rec = d.stats.find("coll_records"), drop = d.stats.find("coll_dropped_since_last_dump");
  if (rec == d.stats.end() || drop == d.stats.end() || rec->second + drop->second <= 0) return std::nullopt;
  return 100.0 * static_cast<double>(drop->second) / static_cast<double>(rec->second + drop->second);
}

int64_t stat(const InspectorDump& d, const char* k) {
  auto it = d.stats.find(k);
  return it == d.stats.end() ? 0 : it->second;
}

}  // namespace

nlohmann::json nccl_inspector_data(const InspectorImport& imp) {
  nlohmann::json dumps = nlohmann::json::array(), colls = nlohmann::json::array(), metrics = nlohmann::json::array();
  for (const auto& d : imp.dumps)
    dumps.push_back({{"rank", opt(d.rank)}, {"n_ranks", opt(d.n_ranks)}, {"nnodes", opt(d.nnodes)},
                     {"hostname", d.hostname}, {"format_version", d.format_version}, {"stats", d.stats},
                     {"dropped_pct_this_dump", opt(dropped_pct(d))}, {"line", d.line}});
  for (const auto& c : imp.colls)
    colls.push_back({{"rank", opt(c.rank)}, {"n_ranks", opt(c.n_ranks)}, {"coll", c.coll}, {"algo", c.algo},
                     {"proto", c.proto}, {"sn", opt(c.sn)}, {"msg_size_bytes", opt(c.msg_size_bytes)},
                     {"exec_time_s", opt(c.exec_time_s)}, {"algbw_bytes_per_s", opt(c.algbw_bytes_per_s)},
                     {"busbw_bytes_per_s", opt(c.busbw_bytes_per_s)}, {"busbw_factor_observed", opt(observed_factor(c))},
                     {"busbw_factor_expected", opt(expected_factor(c.coll, c.n_ranks))}, {"line", c.line}});
  for (const auto& m : imp.metrics)
    metrics.push_back({{"name", m.name}, {"labels", m.labels}, {"value", m.value}, {"line", m.line}});
  return {{"dumps", dumps}, {"colls", colls}, {"colls_total", imp.colls_total}, {"metrics", metrics}};
}

std::vector<Finding> nccl_inspector_findings(const InspectorImport& imp, const std::string& source) {
  std::vector<Finding> out;
  for (const auto& d : imp.dumps) {
    int64_t since = stat(d, "coll_dropped_since_last_dump"), total = stat(d, "coll_dropped_total");
    if (since <= 0) continue;
    std::string where = source + ":" + std::to_string(d.line);
    Finding f;
    f.severity = Severity::kWarn;
    f.layer = Layer::kApplication;
    f.code = "nccl_inspector_records_dropped";
    f.subject = "rank " + (d.rank ? std::to_string(*d.rank) : std::string("?")) +
                (d.n_ranks ? " of " + std::to_string(*d.n_ranks) : "");
    auto pct = dropped_pct(d);
    f.message = "NCCL Inspector dropped " + std::to_string(since) + " collective records since its last dump against " +
                std::to_string(stat(d, "coll_records")) + " kept (" +
                (pct ? std::to_string(static_cast<int>(std::lround(*pct))) + "%" : std::string("?")) +
                " of this interval; " + std::to_string(total) +
                " dropped in total): its statistics for this rank are incomplete";
    f.evidence.push_back(Evidence::number("coll_dropped_since_last_dump", static_cast<double>(since), "count", where).expect(0, "0"));
    f.evidence.push_back(Evidence::number("coll_dropped_total", static_cast<double>(total), "count", where));
    f.action = "Dump more often or raise the Inspector's record buffer so no record is dropped, then compare again.";
    out.push_back(std::move(f));
  }
  for (const auto& c : imp.colls) {
    auto got = observed_factor(c), want = expected_factor(c.coll, c.n_ranks);
    if (!got || !want || std::abs(*got - *want) <= 0.01 * *want) continue;
    Finding f;
    f.severity = Severity::kWarn;
    f.layer = Layer::kApplication;
    f.code = "nccl_inspector_busbw_factor";
    f.subject = c.coll + " sn " + (c.sn ? std::to_string(*c.sn) : std::string("?"));
    f.message = c.coll + " record: busbw/algbw is " + std::to_string(*got) + ", not the " + std::to_string(*want) +
                " of " + std::to_string(*c.n_ranks) + " ranks: the record or its rank count is inconsistent";
    f.evidence.push_back(Evidence::number("busbw/algbw", *got, "ratio", source + ":" + std::to_string(c.line)).expect(*want, ""));
    f.action = "Check which communicator the record belongs to (its rank count) before using its busbw.";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace fabdiag
