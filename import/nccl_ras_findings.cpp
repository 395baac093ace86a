// The data and findings of an NCCL RAS report (import/nccl_ras.h).
#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "import/nccl_ras.h"

namespace fabdiag {

namespace {

nlohmann::json opt(const std::optional<int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

// Who is ahead of the most frequent count (RAS prints it first), and how many ranks are behind
// the highest count.
struct Spread {
  int64_t majority_op = 0, max_op = 0, lagging = 0;
  std::vector<int64_t> ahead;
  std::vector<const RasOpCount*> above;
};

Spread spread_of(const RasEntry& e) {
  Spread s;
  if (e.counts.empty()) return s;
  s.majority_op = e.counts.front().op;
  for (const auto& c : e.counts) s.max_op = std::max(s.max_op, c.op);
  for (const auto& c : e.counts) {
    if (c.op < s.max_op) s.lagging += c.ranks;
    if (c.op > s.majority_op) {
      s.above.push_back(&c);
      s.ahead.insert(s.ahead.end(), c.listed.begin(), c.listed.end());
    }
  }
  return s;
}

std::string count_text(const RasOpCount& c) {
  return std::to_string(c.ranks) + (c.ranks == 1 ? " rank" : " ranks") +
         (c.op < 0 ? " have not launched any" : " up to operation " + std::to_string(c.op));
}

}  // namespace

nlohmann::json nccl_ras_data(const RasReport& r) {
  nlohmann::json groups = nlohmann::json::array(), entries = nlohmann::json::array();
  for (const auto& g : r.groups)
    groups.push_back({{"group", g.group}, {"comms", g.comms}, {"nodes_per_comm", g.nodes_per_comm},
                      {"ranks_per_node", g.ranks_per_node}, {"ranks_per_comm", g.ranks_per_comm},
                      {"ranks_in_group", g.ranks_in_group}, {"status", g.status}, {"errors", g.errors}, {"line", g.line}});
  for (const auto& e : r.entries) {
    nlohmann::json counts = nlohmann::json::array(), ranks = nlohmann::json::array();
    for (const auto& c : e.counts) counts.push_back({{"ranks", c.ranks}, {"op", c.op}, {"listed", c.listed}});
    for (const auto& k : e.ranks) ranks.push_back({{"rank", k.rank}, {"gpu", k.gpu}, {"pid", k.pid}, {"node", k.node}});
    Spread s = spread_of(e);
    entries.push_back({{"section", e.error ? "errors" : "warnings"}, {"comm", e.comm}, {"hash", e.hash},
                       {"kind", e.kind}, {"what", e.what}, {"counts", counts}, {"ranks", ranks}, {"ahead", s.ahead},
                       {"lagging_ranks", s.lagging}, {"text", e.text}, {"line", e.line}});
  }
  return {{"nccl_version", r.nccl_version.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.nccl_version)},
          {"job", {{"nodes", opt(r.nodes)}, {"processes_per_node", opt(r.processes_per_node)},
                   {"gpus_per_process", opt(r.gpus_per_process)}, {"processes", opt(r.processes)}, {"gpus", opt(r.gpus)}}},
          {"groups", groups},
          {"entries", entries}};
}

std::vector<Finding> nccl_ras_findings(const RasReport& r, const std::string& source) {
  std::vector<Finding> out;
  for (const auto& e : r.entries) {
    Finding f;
    f.layer = Layer::kApplication;
    f.subject = e.comm + (e.hash.empty() ? "" : " (" + e.hash + ")");
    std::string where = source + ":" + std::to_string(e.line);
    std::string kind = e.kind;
    std::transform(kind.begin(), kind.end(), kind.begin(), [](unsigned char c) { return std::tolower(c); });
    for (auto& c : kind)
      if (c == ' ') c = '_';
    Spread s = spread_of(e);
    if (e.kind == "MISMATCH" && e.counts.size() >= 2) {
      f.severity = Severity::kWarn;
      f.code = "nccl_ras_mismatch";
      std::vector<std::string> parts;
      for (const auto& c : e.counts) parts.push_back(count_text(c));
      int64_t ahead_n = 0;
      for (const auto* c : s.above) ahead_n += c->ranks;
      f.message = "communicator " + f.subject + " MISMATCH (" + e.what + "): " + join(parts, ", ") + "; " +
                  std::to_string(s.lagging) + " ranks lag behind operation " + std::to_string(s.max_op) +
                  (ahead_n ? " and the " + std::to_string(ahead_n) + " listed ranks are ahead, not at fault" : "") +
                  "; one RAS snapshot: collectives outpace its query, so this is a warning until the same spread "
                  "stays across polls";
      for (const auto& c : e.counts)
        f.evidence.push_back(Evidence::number("ranks at operation " + std::to_string(c.op), static_cast<double>(c.ranks),
                                              "count", where));
      f.action = "Query RAS again two or three times, 10 s apart: counts that advance with a small spread are "
                 "healthy; ranks that stay at the same count are where to look (their processes and GPUs).";
    } else {
      f.severity = e.error ? Severity::kError : Severity::kWarn;
      f.code = "nccl_ras_" + (kind.empty() ? std::string("entry") : kind);
      f.message = "communicator " + f.subject + " " + e.kind + (e.what.empty() ? "" : ": " + e.what) +
                  (e.text.empty() ? "" : " (" + join_first(e.text, 3, "; ", "...") + ")");
      f.evidence.push_back(Evidence::text("RAS " + std::string(e.error ? "error" : "warning"), e.kind, where));
      f.action = "Look at the ranks and processes RAS names for this communicator (their state, host and GPU), "
                 "then query RAS again to see whether it persists.";
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace fabdiag
