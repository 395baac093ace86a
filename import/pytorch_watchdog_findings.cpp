// The data and the verdict of a PyTorch watchdog log (import/pytorch_watchdog.h).
#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "import/pytorch_watchdog.h"

namespace fabdiag {

namespace {

nlohmann::json opt(const std::optional<int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

std::string ranks_text(const std::vector<int64_t>& ranks) {
  std::vector<std::string> s;
  for (auto r : ranks) s.push_back(std::to_string(r));
  if (s.size() > 16) {
    s.resize(16);
    s.push_back(std::to_string(ranks.size() - 16) + " more");
  }
  return (ranks.size() == 1 ? "rank " : "ranks ") + join_prose(s);
}

// min..max of one field over the stuck ranks.
struct Span {
  std::optional<int64_t> lo, hi;
  void add(const std::optional<int64_t>& v) {
    if (!v) return;
    lo = lo ? std::min(*lo, *v) : *v;
    hi = hi ? std::max(*hi, *v) : *v;
  }
  std::string text() const {
    if (!lo) return "?";
    return *lo == *hi ? std::to_string(*lo) : std::to_string(*lo) + "-" + std::to_string(*hi);
  }
};

struct Stuck {
  std::string op;
  std::optional<int64_t> numel;
  Span timeout, ran_for, enqueued, completed;
  size_t line = 0;
};

Stuck stuck_of(const WatchdogGroup& g) {
  Stuck s;
  for (const auto& r : g.ranks) {
    if (!r.seq || *r.seq != *g.stuck_seq) continue;
    if (s.op.empty()) s.op = r.op;
    if (!s.numel) s.numel = r.numel_in;
    if (!s.line) s.line = r.line;
    s.timeout.add(r.timeout_ms);
    s.ran_for.add(r.ran_for_ms);
    s.enqueued.add(r.last_enqueued);
    s.completed.add(r.last_completed);
  }
  return s;
}

std::string verdict(const WatchdogGroup& g, const Stuck& s) {
  std::string seq = "SeqNum " + std::to_string(*g.stuck_seq);
  std::string what = (s.op.empty() ? "collective" : s.op) + ", " + seq +
                     (s.numel ? " (" + std::to_string(*s.numel) + " elements)" : "");
  std::string timing = "after " + s.ran_for.text() + " ms against a " + s.timeout.text() + " ms timeout, last completed " +
                       s.completed.text() + ", last enqueued " + s.enqueued.text();
  if (g.same_op_everywhere) {
    std::string m = "all " + std::to_string(g.stuck.size()) + " reporting ranks (" + ranks_text(g.stuck) +
                    ") timed out on the same " + what + " " + timing +
                    ": every reporting rank entered the collective and none finished, so a participant never "
                    "joined or the transport stalled";
    if (!g.not_in_log.empty()) m += "; " + ranks_text(g.not_in_log) + " report nothing in this log: the first suspects";
    else m += "; a rank missing from this log (the world size is not in it) is the first suspect";
    return m;
  }
  std::string m = ranks_text(g.stuck) + " stuck at " + what + " " + timing;
  if (!g.moved_on.empty()) m += "; the others (" + ranks_text(g.moved_on) + ") moved on past it";
  if (!g.not_launched.empty())
    m += "; " + ranks_text(g.not_launched) + " never launched " + seq + ": the ones the stuck ranks wait for";
  return m;
}

}  // namespace

nlohmann::json pytorch_watchdog_data(const WatchdogImport& imp) {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : imp.groups) {
    nlohmann::json ranks = nlohmann::json::array();
    for (const auto& r : g.ranks)
      ranks.push_back({{"rank", r.rank},
                       {"seq", opt(r.seq)},
                       {"op", r.op.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.op)},
                       {"numel_in", opt(r.numel_in)},
                       {"numel_out", opt(r.numel_out)},
                       {"timeout_ms", opt(r.timeout_ms)},
                       {"ran_for_ms", opt(r.ran_for_ms)},
                       {"last_enqueued", opt(r.last_enqueued)},
                       {"last_completed", opt(r.last_completed)},
                       {"host", r.host.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.host)},
                       {"line", r.line}});
    groups.push_back({{"pg", g.pg.empty() ? nlohmann::json(nullptr) : nlohmann::json(g.pg)},
                      {"stuck_seq", opt(g.stuck_seq)},
                      {"timed_out", g.timed_out},
                      {"stuck", g.stuck},
                      {"moved_on", g.moved_on},
                      {"not_launched", g.not_launched},
                      {"not_in_log", g.not_in_log},
                      {"same_op_everywhere", g.same_op_everywhere},
                      {"ranks", ranks}});
  }
  return {{"groups", groups}};
}

std::vector<Finding> pytorch_watchdog_findings(const WatchdogImport& imp, const std::string& source) {
  std::vector<Finding> out;
  for (const auto& g : imp.groups) {
    if (!g.stuck_seq) continue;
    Stuck s = stuck_of(g);
    std::string where = source + ":" + std::to_string(s.line);
    Finding f;
    f.severity = Severity::kError;
    f.layer = Layer::kApplication;
    f.code = "pytorch_collective_timeout";
    f.subject = "PG " + (g.pg.empty() ? std::string("?") : g.pg) + " SeqNum " + std::to_string(*g.stuck_seq);
    f.message = "NCCL collective timeout (PyTorch watchdog): " + verdict(g, s);
    f.evidence.push_back(Evidence::text("op", s.op.empty() ? "?" : s.op, where));
    f.evidence.push_back(Evidence::number("SeqNum", static_cast<double>(*g.stuck_seq), "count", where));
    if (s.timeout.lo) f.evidence.push_back(Evidence::number("timeout", static_cast<double>(*s.timeout.hi) / 1e3, "s", where));
    if (s.ran_for.hi)
      f.evidence.push_back(Evidence::number("ran for, longest", static_cast<double>(*s.ran_for.hi) / 1e3, "s", where)
                               .expect(s.timeout.hi ? std::optional<double>(static_cast<double>(*s.timeout.hi) / 1e3)
                                                    : std::nullopt,
                                       "< the timeout"));
    if (s.numel) f.evidence.push_back(Evidence::number("NumelIn", static_cast<double>(*s.numel), "count", where));
    if (s.completed.lo)
      f.evidence.push_back(Evidence::number("last completed NCCL work", static_cast<double>(*s.completed.lo), "count", where));
    if (s.enqueued.hi)
      f.evidence.push_back(Evidence::number("last enqueued NCCL work", static_cast<double>(*s.enqueued.hi), "count", where));
    f.evidence.push_back(Evidence::number("ranks timed out", static_cast<double>(g.timed_out.size()), "count", where));
    f.action = g.same_op_everywhere
                   ? "Find the ranks of the job missing from this log and their hosts (a crashed or hung process, a "
                     "host that never joined); if none is missing, check the network between the hosts (fabdiag "
                     "triage) and the NCCL log (NCCL_DEBUG=INFO) around the timeout."
                   : "Look at the stuck or never-launched ranks first: their Python stacks (py-spy dump), their GPU "
                     "(XID errors in dmesg) and whether they take a different code path (a collective skipped or "
                     "issued in another order).";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace fabdiag
