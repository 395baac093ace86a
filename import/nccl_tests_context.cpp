// Findings from what surrounds nccl-tests' numbers (import/nccl_tests.h): the line rate, given,
// known from the platform or a floor (nccl_tests_link_findings()), the NCCL settings of the command line
// (nccl_tests_setting_findings()); and NCCL version codes.
#include <algorithm>
#include <cstdio>
#include <set>

#include "core/text.h"
#include "import/nccl_tests.h"

namespace fabdiag::baseline {

namespace {

// A platform whose hosts are joined by one link of a known rate: the rate is not in the
// output of nccl-tests, but follows from the GPU name its rank lines print.
struct KnownLink {
  const char* gpu;   // the device name of "#  Rank ... [000f:01:00] NVIDIA GB10"
  double gbit_per_s;
  const char* what;
  const char* action;
};
constexpr KnownLink kKnownLinks[] = {
    {"NVIDIA GB10", 200, "one 200 Gb/s QSFP port (ConnectX-7) joins DGX Spark (GB10) hosts",
     "Check the MTU of the RDMA interface on both hosts (1500 caps RoCE; set 9000 end to end) and that "
     "NCCL_IB_HCA names both halves of the port (GB10 shows the one QSFP port as two RDMA devices); "
     "re-run and compare."},
};
constexpr const char* kFabricAction =
    "The inter-node path is suspect: check which transport NCCL used (NCCL_DEBUG=INFO: NET/IB, not NET/Socket), "
    "GDR, that every rail's HCA is in NCCL_IB_HCA and up at full rate (fabdiag check), and the MTU end to end "
    "(1500 caps RoCE; 9000); then compare pairs with `fabdiag pairwise`.";
constexpr double kBelowLinkShare = 0.9;  // best busbw under 90% of the line rate is a warning
// The slowest RDMA port of GPU training fabrics (EDR / HDR100 InfiniBand, 100 GbE RoCE): the
// floor busbw is judged against when neither --line-rate nor the platform gives the rate.
constexpr double kFloorGbitPerS = 100;
// Below this size a sweep is latency-bound and says nothing of the line rate.
constexpr uint64_t kMinJudgedSizeBytes = uint64_t{64} << 20;

// Collectives whose busbw approaches one port's rate on a healthy multi-node fabric (nccl-tests'
// busbw is defined so). alltoall is left out: with several GPUs per NIC its ceiling is a share
// of the port, which the output does not give.
bool bandwidth_bound(const std::string& collective) {
  static const std::set<std::string> kBound = {"all_reduce", "all_gather", "reduce_scatter",
                                               "broadcast",  "reduce",     "sendrecv"};
  return kBound.count(collective) > 0;
}

const KnownLink* known_link_of(const NcclTestsTable& t) {
  if (t.ranks.empty()) return nullptr;
  for (const auto& k : kKnownLinks) {
    bool all = std::all_of(t.ranks.begin(), t.ranks.end(), [&](const NcclTestsRank& r) { return r.gpu == k.gpu; });
    if (all) return &k;
  }
  return nullptr;
}

// The rate one table is judged against, and where it comes from; nullopt when none applies.
struct JudgedRate {
  double gbit_per_s = 0;
  std::string what;  // ends the message: why this rate
  const char* action = kFabricAction;
};
std::optional<JudgedRate> judged_rate(const NcclTestsTable& t, size_t hosts, std::optional<double> given_gbit_per_s) {
  if (hosts == 1) return std::nullopt;  // one node: NVLink/PCIe, not the network
  if (!bandwidth_bound(t.collective)) return std::nullopt;
  if (given_gbit_per_s)
    return JudgedRate{*given_gbit_per_s, "the line rate given with --line-rate", kFabricAction};
  if (const KnownLink* link = known_link_of(t); link && hosts >= 2)
    return JudgedRate{link->gbit_per_s,
                      std::string(link->what) + " (a rate known from the platform, not printed by nccl-tests)", link->action};
  std::string what = "100 Gb/s, the slowest RDMA port of GPU fabrics (EDR/HDR100 InfiniBand, 100 GbE): nccl-tests "
                     "does not print the line rate; give it with --line-rate GBPS";
  if (hosts == 0) what += ", and if all ranks ran on one node the network is not involved";
  return JudgedRate{kFloorGbitPerS, what, kFabricAction};
}

std::string gbps(double bytes_per_s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f GB/s", bytes_per_s / 1e9);
  return b;
}

std::string pct(double share) { return std::to_string(static_cast<int>(share * 100 + 0.5)) + "%"; }

Finding below_link_finding(const NcclTestsTable& t, const NcclTestsRow& best, const std::set<std::string>& hosts,
                           const JudgedRate& rate, const std::string& source) {
  const double line_rate = rate.gbit_per_s * 1e9 / 8;  // bytes/s
  std::string where = source + ":" + std::to_string(best.line ? best.line : t.header_line);
  Finding f;
  f.severity = Severity::kWarn;
  f.layer = Layer::kCollective;
  f.code = "nccl_tests_busbw_below_link";
  f.subject = hosts.empty() ? t.collective : t.collective + " " + join(std::vector<std::string>(hosts.begin(), hosts.end()), ",");
  std::string figures;
  for (const auto* h : {&best.out_of_place, best.in_place ? &*best.in_place : nullptr}) {
    if (!h || !h->busbw_bytes_per_s) continue;
    const char* half = h == &best.out_of_place ? "out-of-place" : "in-place";
    figures += (figures.empty() ? "" : ", ") + gbps(*h->busbw_bytes_per_s) + " " + half + " (" +
               pct(*h->busbw_bytes_per_s / line_rate) + ")";
    f.evidence.push_back(Evidence::number(std::string("busbw ") + half + " at " + std::to_string(best.size_bytes) + " B",
                                          *h->busbw_bytes_per_s, "bytes/s", where)
                             .expect(kBelowLinkShare * line_rate, ">= 90% of " + gbps(line_rate)));
  }
  f.message = t.collective + (hosts.empty() ? std::string() : " over " + std::to_string(hosts.size()) + " hosts") +
              " reaches busbw " + figures + " of the " + gbps(line_rate) + " line rate at " +
              std::to_string(best.size_bytes) + " B: " + rate.what;
  f.action = rate.action;
  return f;
}

}  // namespace

std::string nccl_version_of_code(int64_t code) {
  if (code >= 20900 && code < 1000000)
    return std::to_string(code / 10000) + "." + std::to_string(code % 10000 / 100) + "." + std::to_string(code % 100);
  if (code >= 2000 && code < 2900)
    return std::to_string(code / 1000) + "." + std::to_string(code % 1000 / 100) + "." + std::to_string(code % 100);
  return {};
}

std::vector<Finding> nccl_tests_link_findings(const NcclTestsImport& import, const std::string& source,
                                              std::optional<double> line_rate_gbit_per_s) {
  std::vector<Finding> out;
  for (const auto& t : import.tables) {
    std::set<std::string> hosts;
    for (const auto& r : t.ranks)
      if (!r.host.empty()) hosts.insert(r.host);
    auto rate = judged_rate(t, hosts.size(), line_rate_gbit_per_s);
    if (!rate) continue;
    const NcclTestsRow* best = nullptr;
    double best_bw = 0;
    for (const auto& r : t.rows) {
      if (r.size_bytes < kMinJudgedSizeBytes) continue;
      double bw = std::max(r.out_of_place.busbw_bytes_per_s.value_or(0),
                           r.in_place ? r.in_place->busbw_bytes_per_s.value_or(0) : 0.0);
      if (!best || bw > best_bw) best = &r, best_bw = bw;
    }
    double line_rate = rate->gbit_per_s * 1e9 / 8;  // bytes/s
    if (!best || best_bw <= 0 || best_bw >= kBelowLinkShare * line_rate) continue;
    out.push_back(below_link_finding(t, *best, hosts, *rate, source));
  }
  return out;
}

std::vector<Finding> nccl_tests_setting_findings(const NcclTestsImport& import, const std::string& source) {
  struct Off {
    const char* name;
    const char* what;
  };
  static constexpr Off kOff[] = {
      {"NCCL_P2P_DISABLE", "peer-to-peer (p2p) transport disabled: GPUs of one node exchange data through host "
                           "shared memory, not NVLink or PCIe P2P"},
      {"NCCL_SHM_DISABLE", "shared-memory transport disabled: GPUs of one node without P2P go through the network"},
      {"NCCL_IB_DISABLE", "InfiniBand/RoCE transport disabled: NCCL uses TCP sockets between nodes"},
  };
  std::vector<Finding> out;
  std::set<std::string> seen;
  for (const auto& t : import.tables)
    for (const auto& [name, value] : t.command_env)
      for (const auto& off : kOff) {
        if (name != off.name || value != "1" || !seen.insert(name).second) continue;
        Finding f;
        f.severity = Severity::kInfo;
        f.layer = Layer::kApplication;
        f.code = "nccl_tests_transport_disabled";
        f.subject = name;
        f.message = name + "=1 on the command line: " + off.what + "; the busbw of " + t.collective +
                    " measures that path, by choice (not a fault)";
        f.evidence.push_back(Evidence::text(name, value, source + ":" + std::to_string(t.header_line)));
        f.action = "Leave it if intended (a test of the fallback path); unset it to measure the hardware path.";
        out.push_back(std::move(f));
      }
  return out;
}

}  // namespace fabdiag::baseline
