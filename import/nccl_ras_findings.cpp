// The data and findings of an NCCL RAS report or monitor stream (import/nccl_ras.h).
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

// "rank 21 (GPU 5, process 3487984 on node 172.16.64.213)", the first 8 ranks, then "and K more".
std::string ranks_text(const std::vector<RasRank>& ranks) {
  std::vector<std::string> parts;
  for (const auto& k : ranks) {
    std::string where;
    if (!k.gpu.empty()) where = "GPU " + k.gpu;
    if (k.pid >= 0) where += (where.empty() ? "" : ", ") + std::string("process ") + std::to_string(k.pid);
    if (!k.node.empty()) where += " on node " + k.node;
    parts.push_back("rank " + std::to_string(k.rank) + (where.empty() ? "" : " (" + where + ")"));
  }
  return join_first(parts, 8, ", ", "...");
}

// The peer of an event: "process 1524345 on node 172.16.64.245 (GPU 1)", or its address.
std::string peer_text(const RasEvent& e) {
  if (e.host.empty()) return e.addr.empty() ? "an unnamed peer" : "the peer at " + e.addr;
  return (e.pid >= 0 ? "process " + std::to_string(e.pid) + " on " : "") + std::string("node ") + e.host +
         (e.gpus.empty() ? "" : " (GPU" + std::string(e.gpus.find(',') != std::string::npos ? "s " : " ") + e.gpus + ")");
}

bool same_peer(const RasEvent& a, const RasEvent& b) {
  return a.host == b.host && a.pid == b.pid && a.addr == b.addr;
}

// Peer-loss events: dead (error) or unreachable (warn); later events of the same peer that say
// it answers again make an unreachable peer info, and a later death replaces its warnings.
void event_findings(const RasReport& r, const std::string& source, std::vector<Finding>& out) {
  static const std::vector<std::string> kDead = {"PEER_DEAD", "PEER_TIMEOUT_DEAD"};
  static const std::vector<std::string> kLost = {"PEER_UNRESPONSIVE", "PEER_KEEPALIVE_TIMEOUT", "PEER_SEND_STUCK",
                                                 "PEER_INIT_TIMEOUT", "PEER_DISCONNECTED"};
  auto in = [](const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  for (const auto& e : r.events) {
    bool dead = in(kDead, e.event);
    if (!dead && !in(kLost, e.event)) continue;
    const RasEvent* back = nullptr;
    bool dies = false;  // the peer is declared dead later: that finding says it
    for (const auto& o : r.events) {
      if (!same_peer(o, e)) continue;
      if ((o.event == "PEER_RECOVERED" || o.event == "PEER_CONNECTED") && o.last_line > e.last_line) back = &o;
      if (!dead && in(kDead, o.event) && o.line > e.line) dies = true;
    }
    if (dies) continue;
    Finding f;
    f.layer = Layer::kApplication;
    f.subject = e.host.empty() ? e.addr : e.host + (e.pid >= 0 ? " pid " + std::to_string(e.pid) : "");
    f.code = dead ? "nccl_ras_peer_dead" : "nccl_ras_peer_unreachable";
    f.severity = dead ? Severity::kError : back ? Severity::kInfo : Severity::kWarn;
    std::string when = e.count > 1 ? std::to_string(e.count) + " times from " + e.first_time + " to " + e.last_time
                                   : "at " + e.first_time;
    f.message = "RAS " + e.event + " for " + peer_text(e) + ", " + when +
                (e.details.empty() ? "" : " (" + e.details + ")") +
                (dead ? ": RAS declared the process dead and stopped talking to it"
                      : back ? "; it answered again (" + back->event + " at " + back->last_time + ")"
                             : "; not seen answering again in this capture");
    f.evidence.push_back(Evidence::number(e.event + " events", static_cast<double>(e.count), "count",
                                          source + ":" + std::to_string(e.line)));
    f.action = dead ? "Look at that process and its node now (crashed, hung, OOM-killed, node down, network to it): "
                      "NCCL collectives of its communicators cannot complete without it."
                    : "Check that node's host network (the RAS/bootstrap interface) and the process's state; repeated "
                      "timeouts that end in PEER_DEAD mean the process is gone.";
    out.push_back(std::move(f));
  }
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
  nlohmann::json out = {
      {"form", r.form},
      {"nccl_version", r.nccl_version.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.nccl_version)},
      {"job", {{"nodes", opt(r.nodes)}, {"processes_per_node", opt(r.processes_per_node)},
               {"gpus_per_process", opt(r.gpus_per_process)}, {"processes", opt(r.processes)}, {"gpus", opt(r.gpus)}}},
      {"groups", groups},
      {"entries", entries}};
  if (r.form == "json") {
    nlohmann::json comms = nlohmann::json::array();
    for (const auto& c : r.comms)
      comms.push_back({{"id", c.id}, {"hash", c.hash}, {"secondary_hash", c.secondary_hash}, {"size", c.size},
                       {"ranks_count", c.ranks_count}, {"missing_ranks_count", c.missing_count},
                       {"ranks_read", c.ranks_read}, {"missing_read", c.missing_read}, {"cut", c.cut}, {"line", c.line}});
    out["timestamp"] = r.timestamp;
    out["cuda_runtime"] = opt(r.cuda_runtime), out["cuda_driver"] = opt(r.cuda_driver);
    out["communicators_count"] = opt(r.communicators_count), out["timeouts"] = opt(r.timeouts);
    out["collection_s"] = r.collection_s ? nlohmann::json(*r.collection_s) : nlohmann::json(nullptr);
    out["comms"] = comms;
  }
  if (r.form == "monitor") {
    nlohmann::json events = nlohmann::json::array();
    for (const auto& e : r.events)
      events.push_back({{"event", e.event}, {"group", e.group}, {"host", e.host}, {"pid", e.pid}, {"addr", e.addr},
                        {"gpus", e.gpus}, {"details", e.details}, {"first_time", e.first_time},
                        {"last_time", e.last_time}, {"count", e.count}, {"line", e.line}, {"last_line", e.last_line}});
    out["event_count"] = r.event_count;
    out["events"] = events;
  }
  return out;
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
      std::string who = e.comm == "(report)" ? std::string("the RAS report") : "communicator " + f.subject;
      f.message = who + " " + e.kind + (e.what.empty() ? "" : ": " + e.what) +
                  (e.text.empty() ? "" : " (" + join_first(e.text, 3, "; ", "...") + ")") +
                  (e.ranks.empty() ? "" : "; " + ranks_text(e.ranks));
      f.evidence.push_back(Evidence::text("RAS " + std::string(e.error ? "error" : "warning"), e.kind, where));
      f.action = "Look at the ranks and processes RAS names for this communicator (their state, host and GPU), "
                 "then query RAS again to see whether it persists.";
    }
    out.push_back(std::move(f));
  }
  event_findings(r, source, out);
  return out;
}

}  // namespace fabdiag
