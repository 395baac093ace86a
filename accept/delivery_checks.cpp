// What the cluster must deliver (docs/accept.md#what-each-check-reads): busbw floors per collective
// and size (fabdiag.bench/1), pair bandwidth per node and per link (fabdiag.pairwise/1), counter
// growth over the soak (fabdiag.counters/1 deltas). Floors the spec leaves out are derived from the
// topology (accept/expected.h).
#include <algorithm>
#include <map>
#include <set>

#include "accept/check_builders.h"
#include "accept/expected.h"
#include "perf/sweep.h"

namespace fabdiag::accept {

namespace {

using nlohmann::json;

const HostInputs* host_named(const Inputs& in, const std::string& host) {
  for (const auto& h : in.hosts)
    if (h.host == host) return &h;
  return nullptr;
}

std::optional<NodeNetwork> network_of(const Inputs& in, const std::string& host) {
  const HostInputs* h = host_named(in, host);
  if (!h || !h->topo) return std::nullopt;
  return node_network(h->topo->data, h->topo->source);
}

// Sets c.expected from the spec's number or the derivation.
void expect(CheckResult& c, std::optional<double> given, const Derived& d) {
  if (given) {
    c.expected = given;
    c.reason = "floor from the spec";
    return;
  }
  c.expected = d.bytes_per_s;
  c.reason = d.bytes_per_s ? "derived: " + d.formula : "no floor: " + d.reason;
}

std::vector<std::string> distinct(const json& hosts) {
  std::vector<std::string> out;
  for (const auto& h : hosts)
    if (h.is_string() && std::find(out.begin(), out.end(), h.get<std::string>()) == out.end()) out.push_back(h.get<std::string>());
  return out;
}

void busbw_of(const Spec& spec, const BusbwSpec& b, const Inputs& in, std::vector<CheckResult>& out) {
  const std::string name = "busbw:" + b.collective + ":" + perf::format_size_bytes(b.size_bytes);
  bool any = false;
  for (const auto& doc : in.bench) {
    if (doc.data.value("collective", "") != b.collective) continue;
    const std::vector<std::string> hosts = distinct(doc.data.value("hosts", json::array()));
    CheckResult c = check_row(hosts.size() > 1 ? "cluster" : "node", hosts.empty() ? doc.source : join_names(json(hosts)),
                              name, "bytes/s");
    std::optional<double> measured;
    for (const auto& r : doc.data.value("results", json::array()))
      if (json_number(r, "size_bytes") == static_cast<double>(b.size_bytes)) measured = json_number(r, "busbw_bytes_per_s");
    if (!measured) continue;  // this run did not measure the size
    any = true;
    c.measured = measured;
    std::optional<NodeNetwork> slowest;
    bool all_known = !hosts.empty();
    for (const auto& h : hosts) {
      auto net = network_of(in, h);
      if (!net) all_known = false;
      else if (!slowest || net->rail_bytes_per_s < slowest->rail_bytes_per_s) slowest = net;
    }
    const int ranks = static_cast<int>(json_number(doc.data, "ranks").value_or(0));
    expect(c, b.min_busbw_bytes_per_s,
           derive_busbw(b.collective, ranks, static_cast<int>(hosts.size()), all_known ? slowest : std::nullopt,
                        spec.deliver.efficiency));
    c.evidence.push_back(Evidence::number("busbw at " + perf::format_size_bytes(b.size_bytes), c.measured, "bytes/s", doc.source)
                             .expect(c.expected, c.expected ? ">= " + short_number(*c.expected / 1e9) + " GB/s" : ""));
    if (ranks == 1) {
      // nccl-tests' busbw is algbw x (n-1)/n for a ring of n ranks (2(n-1)/n for all_reduce,
      // nccl-tests doc/PERFORMANCE.md): 0 for one rank, whose data never leaves its GPU.
      c.status = Outcome::kNotChecked;
      c.reason = "1 rank: busbw of a single rank moves nothing between ranks (not a fabric measurement); "
                 "bench with 2 or more ranks";
    } else {
      judge(c, ">=");
    }
    out.push_back(std::move(c));
  }
  if (!any) {
    CheckResult c = check_row("cluster", "cluster", name, "bytes/s");
    c.expected = b.min_busbw_bytes_per_s;
    c.reason = "no fabdiag.bench/1 result of " + b.collective + " at " + perf::format_size_bytes(b.size_bytes) +
               " (" + spec.file + " line " + std::to_string(b.line) + ")";
    out.push_back(std::move(c));
  }
}

void pairs_of(const Spec& spec, const Doc& doc, const Inputs& in, std::vector<CheckResult>& out) {
  const json hosts = doc.data.value("hosts", json::array());
  const json m = doc.data.value("matrix_bytes_per_s", json::array());
  const json medians = doc.data.value("node_median_bytes_per_s", json::object());
  const double eff = spec.deliver.efficiency;
  std::set<std::string> slow_nodes;
  for (const auto& hj : hosts) {
    const std::string h = hj.get<std::string>();
    CheckResult c = check_row("node", h, "pair_bandwidth_median", "bytes/s");
    c.measured = json_number(medians, h.c_str());
    expect(c, spec.deliver.pair_min_bytes_per_s, derive_pair(network_of(in, h), network_of(in, h), eff));
    c.evidence.push_back(Evidence::number("median over partners", c.measured, "bytes/s", doc.source).expect(c.expected, ""));
    judge(c, ">=");
    if (c.status == Outcome::kFail) slow_nodes.insert(h);
    out.push_back(std::move(c));
  }
  for (size_t i = 0; i < hosts.size(); ++i)
    for (size_t j = i + 1; j < hosts.size(); ++j) {
      const std::string a = hosts[i].get<std::string>(), b = hosts[j].get<std::string>();
      CheckResult c = check_row("link", a + "<->" + b, "pair_bandwidth", "bytes/s");
      for (auto [s, d] : {std::pair{i, j}, std::pair{j, i}}) {
        auto v = s < m.size() && m[s].is_array() && d < m[s].size() && m[s][d].is_number() ? std::optional<double>(m[s][d].get<double>())
                                                                                         : std::nullopt;
        if (!v) continue;
        c.evidence.push_back(Evidence::number(hosts[s].get<std::string>() + "->" + hosts[d].get<std::string>(), v, "bytes/s", doc.source));
        if (!c.measured || *v < *c.measured) c.measured = v;
      }
      expect(c, spec.deliver.pair_min_bytes_per_s, derive_pair(network_of(in, a), network_of(in, b), eff));
      judge(c, ">=");
      if (c.status == Outcome::kFail && (slow_nodes.count(a) || slow_nodes.count(b))) {
        c.status = Outcome::kNotChecked;
        c.reason = "attributed to node " + (slow_nodes.count(a) ? a : b) +
                   " (its pair_bandwidth_median failed): the link is judged again once the node delivers";
      }
      out.push_back(std::move(c));
    }
}

// "counter_growth:NAME" of every port of `h` that reads NAME: one link row each (the port's link to
// its switch), subject "HOST:DEVICE"; one not-checked node row when no port of `h` reads NAME or
// the counters are one snapshot.
void counter_growth(const HostInputs& h, const std::string& name, double max, std::vector<CheckResult>& out) {
  const std::string check = "counter_growth:" + name;
  if (!h.counters) {
    out.push_back(not_checked_row(h.host, check, "count", "no fabdiag.counters/1 result of this host"));
    return;
  }
  const json& d = h.counters->data;
  auto window = json_number(d, "window_s");
  if (!window) {
    out.push_back(not_checked_row(h.host, check, "count",
                                  "one counters snapshot: no growth over the soak (give two snapshots, e.g. counters "
                                  "--interval)"));
    return;
  }
  bool seen = false;
  for (const auto& k : d.value("counters", json::array())) {
    if (k.value("name", "") != name) continue;
    auto delta = json_number(k, "delta");
    if (!delta) continue;
    seen = true;
    CheckResult c = check_row("link", h.host + ":" + k.value("device", "?"), check, "count");
    c.expected = max;
    c.measured = *delta;
    Evidence e = Evidence::number(k.value("device", "?") + " " + name + " delta", *delta, "count", h.counters->source);
    e.at_least = k.value("at_least", false);
    c.evidence.push_back(e.expect(max, "<= " + short_number(max) + " over the soak"));
    judge(c, "<=");
    c.reason = "growth over " + short_number(*window) + " s" +
               (c.status == Outcome::kFail ? " (" + short_number(*delta / *window) + "/s)" : "");
    out.push_back(std::move(c));
  }
  if (!seen)
    out.push_back(not_checked_row(h.host, check, "count",
                                  name + " not in the counters of this host (its ports do not expose it, or unmoved "
                                         "counters were left out: save `fabdiag counters --interval N --all`)"));
}

}  // namespace

std::vector<CheckResult> delivery_checks(const Spec& spec, const Inputs& in) {
  std::vector<CheckResult> out;
  for (const auto& b : spec.deliver.busbw) busbw_of(spec, b, in, out);
  if (spec.deliver.pair_checked) {
    for (const auto& doc : in.pairwise) pairs_of(spec, doc, in, out);
    if (in.pairwise.empty()) {
      CheckResult c = check_row("cluster", "cluster", "pair_bandwidth", "bytes/s");
      c.expected = spec.deliver.pair_min_bytes_per_s;
      c.reason = "no fabdiag.pairwise/1 result (give `fabdiag pairwise --format json` output, or `fabdiag import "
                 "pairs LIST --format json` of a pairs list)";
      out.push_back(std::move(c));
    }
  }
  for (const auto& [name, max] : spec.deliver.counter_growth_max)
    for (const auto& h : in.hosts) counter_growth(h, name, max, out);
  return out;
}

}  // namespace fabdiag::accept
