// The checks RAS's text client makes, over one communicator of a JSON report
// (import/nccl_ras_json.h): NCCL src/ras/client_support.cc, rasClientRunComms and its
// INCOMPLETE / ERROR / MISMATCH printing, applied to the raw records the JSON form dumps.
#include <algorithm>
#include <map>

#include "import/nccl_ras_json.h"

namespace fabdiag::detail {

namespace {

// RAS_CLIENT_DETAIL_THRESHOLD and RAS_CLIENT_OUTLIER_FRACTION (non-verbose rasCountIsOutlier):
// a group of ranks is listed when it has one rank, or at most 10 ranks and at most 25% of all.
bool is_outlier(size_t count, size_t total) { return count == 1 || (count <= 10 && count * 4 <= total); }

constexpr size_t kMaxListedRanks = 64;

// "4", or "4 (NVML 6)" when CUDA_VISIBLE_DEVICES renumbers (client_support.cc rasGpuToString).
std::string gpu_text(const RasRankRecord& r) {
  if (r.cuda_dev < 0) return "";
  std::string g = std::to_string(r.cuda_dev);
  if (r.nvml_dev >= 0 && r.nvml_dev != r.cuda_dev) g += " (NVML " + std::to_string(r.nvml_dev) + ")";
  return g;
}

RasRank rank_of(const RasRankRecord& r) {
  RasRank k;
  k.rank = r.rank, k.gpu = gpu_text(r), k.node = r.host, k.pid = r.pid;
  return k;
}

RasEntry entry(const RasComm& c, bool error, const std::string& kind, const std::string& what, size_t line) {
  RasEntry e;
  e.error = error, e.comm = c.id, e.hash = c.hash, e.kind = kind, e.what = what, e.line = line;
  return e;
}

std::string plural(size_t n, const std::string& one) { return std::to_string(n) + " " + one + (n == 1 ? "" : "s"); }

void list_ranks(RasEntry& e, const std::vector<const RasRankRecord*>& rs) {
  for (const auto* r : rs) {
    if (e.ranks.size() >= kMaxListedRanks) {
      e.text.push_back("... and " + std::to_string(rs.size() - kMaxListedRanks) + " more ranks");
      break;
    }
    e.ranks.push_back(rank_of(*r));
  }
}

void incomplete(const RasCommRecords& c, std::vector<RasEntry>& out) {
  size_t n = c.missing.empty() && c.comm.missing_count > 0 ? static_cast<size_t>(c.comm.missing_count) : c.missing.size();
  if (n == 0) return;
  RasEntry e = entry(c.comm, true, "INCOMPLETE", "Missing communicator data from " + plural(n, "rank"),
                     c.missing.empty() ? c.comm.line : c.missing.front().line);
  std::vector<const RasRankRecord*> rs, dead;
  size_t unresponsive = 0;
  for (const auto& m : c.missing) {
    rs.push_back(&m);
    if (m.unresponsive) ++unresponsive;
    if (m.dead) dead.push_back(&m);
  }
  if (!c.missing.empty())
    e.text.push_back(std::to_string(unresponsive) + " of them unresponsive to RAS, " + std::to_string(dead.size()) +
                     " considered dead");
  list_ranks(e, rs);
  out.push_back(std::move(e));
  if (dead.empty()) return;
  RasEntry d = entry(c.comm, true, "DEAD",
                     plural(dead.size(), "rank") +
                         " of the communicator on processes considered dead (unreachable via the RAS network)",
                     dead.front()->line);
  list_ranks(d, dead);
  out.push_back(std::move(d));
}

// ncclResult_t as client_support.cc's ncclErrorToString words it.
std::string nccl_error_text(int64_t v) {
  switch (v) {
    case 1: return "Unhandled CUDA error";
    case 2: return "System error";
    case 3: return "Internal error";
    case 4: return "Invalid argument";
    case 5: return "Invalid usage";
    case 6: return "Remote process error";
    case 7: return "NCCL operation in progress";
    default: return "Unexpected error";
  }
}

void errors(const RasCommRecords& c, std::vector<RasEntry>& out) {
  auto bad = [](int64_t v) { return v != 0 && v != 7; };
  std::vector<const RasRankRecord*> rs;
  std::map<std::string, size_t> by;
  size_t init = 0, async = 0;
  for (const auto& r : c.ranks) {
    if (!bad(r.init_state) && !bad(r.async_error)) continue;
    rs.push_back(&r);
    if (bad(r.init_state)) ++init, ++by["initialization: " + nccl_error_text(r.init_state)];
    if (bad(r.async_error)) ++async, ++by["asynchronous: " + nccl_error_text(r.async_error)];
  }
  if (rs.empty()) return;
  std::string what = init ? "Initialization error" + std::string(init > 1 ? "s" : "") + " on " + plural(init, "rank") : "";
  if (async)
    what += (what.empty() ? "" : "; ") + std::string("Asynchronous error") + (async > 1 ? "s" : "") + " on " +
            plural(async, "rank");
  RasEntry e = entry(c.comm, true, "ERROR", what, rs.front()->line);
  for (const auto& [text, n] : by) e.text.push_back(plural(n, "rank") + " reported " + text);
  list_ranks(e, rs);
  out.push_back(std::move(e));
}

// The status RAS's text client gives a rank (client_support.cc statusStr): a rank past
// ncclCommAbort / ncclCommDestroy / ncclCommFinalize, still initialising, or running.
std::string status_of(const RasRankRecord& r) {
  if (r.abort_flag) return "ABORT";
  if (r.destroy_flag) return "DESTROY";
  if (r.finalize_called) return "FINALIZE";
  if (r.init_state == 7) return "INIT";
  return "RUNNING";
}

// Groups the ranks by value, most frequent first (ties: higher value first, as RAS's
// rasValCountsCompareRev); calls add(value,
// ranks of that value) for each.
template <typename Key, typename Fn>
void by_value(const std::vector<RasRankRecord>& ranks, Key key, Fn add) {
  std::map<decltype(key(ranks.front())), std::vector<const RasRankRecord*>> groups;
  for (const auto& r : ranks) groups[key(r)].push_back(&r);
  std::vector<std::pair<decltype(key(ranks.front())), std::vector<const RasRankRecord*>>> sorted(groups.rbegin(), groups.rend());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  for (const auto& [v, rs] : sorted) add(v, rs);
}

void mismatches(const RasCommRecords& c, std::vector<RasEntry>& out) {
  if (c.ranks.size() < 2) return;
  size_t total = c.ranks.size();
  RasEntry st = entry(c.comm, false, "MISMATCH", "Communicator ranks have different status", c.ranks.front().line);
  size_t groups = 0;
  by_value(c.ranks, status_of, [&](const std::string& v, const std::vector<const RasRankRecord*>& rs) {
    ++groups;
    st.text.push_back(plural(rs.size(), "rank") + (rs.size() == 1 ? " has" : " have") + " status " + v);
    if (is_outlier(rs.size(), total)) list_ranks(st, rs);
  });
  if (groups > 1) out.push_back(std::move(st));
  for (size_t op = 0; op < c.ops.size(); ++op) {
    RasEntry e = entry(c.comm, false, "MISMATCH", "Communicator ranks have different " + c.ops[op] + " operation counts",
                       c.ranks.front().line);
    by_value(c.ranks, [op](const RasRankRecord& r) { return r.counts[op]; },
             [&](uint64_t v, const std::vector<const RasRankRecord*>& rs) {
               RasOpCount n;
               n.ranks = static_cast<int64_t>(rs.size());
               n.op = v == 0 ? -1 : static_cast<int64_t>(std::min<uint64_t>(v, INT64_MAX));
               if (is_outlier(rs.size(), total))
                 for (const auto* r : rs) n.listed.push_back(r->rank);
               if (is_outlier(rs.size(), total)) list_ranks(e, rs);
               e.counts.push_back(std::move(n));
             });
    if (e.counts.size() > 1) out.push_back(std::move(e));
  }
}

void inconsistencies(const RasCommRecords& c, std::vector<RasEntry>& out) {
  std::vector<std::string> why;
  size_t more = 0;
  auto add = [&](std::string w) { why.size() < 16 ? why.push_back(std::move(w)) : void(++more); };
  const RasComm& m = c.comm;
  if (!m.cut) {
    if (m.ranks_count >= 0 && m.ranks_count != m.ranks_read)
      add("\"ranks_count\" is " + std::to_string(m.ranks_count) + " but " + std::to_string(m.ranks_read) + " rank records follow");
    if (m.missing_count >= 0 && m.missing_count != m.missing_read)
      add("\"missing_ranks_count\" is " + std::to_string(m.missing_count) + " but " + std::to_string(m.missing_read) +
                    " missing-rank records follow");
    if (m.size >= 0 && m.ranks_count >= 0 && m.missing_count >= 0 && m.size != m.ranks_count + m.missing_count)
      add("\"size\" " + std::to_string(m.size) + " is not ranks_count + missing_ranks_count (" +
                    std::to_string(m.ranks_count + m.missing_count) + ")");
  }
  std::vector<int64_t> seen;
  for (const auto* list : {&c.ranks, &c.missing})
    for (const auto& r : *list) {
      seen.push_back(r.rank);
      if (r.rank < 0 || (m.size >= 0 && r.rank >= m.size))
        add("rank " + std::to_string(r.rank) + " (line " + std::to_string(r.line) + ") is outside 0.." +
                      std::to_string(m.size - 1));
    }
  std::sort(seen.begin(), seen.end());
  for (size_t i = 1; i < seen.size(); ++i)
    if (seen[i] == seen[i - 1] && (i < 2 || seen[i - 2] != seen[i]))
      add("rank " + std::to_string(seen[i]) + " has more than one record");
  if (why.empty()) return;
  RasEntry e = entry(m, false, "INCONSISTENT", "the communicator's records contradict each other", m.line);
  e.text = why;
  if (more) e.text.push_back("... and " + std::to_string(more) + " more");
  out.push_back(std::move(e));
}

}  // namespace

void check_ras_comm(const RasCommRecords& c, std::vector<RasEntry>& out) {
  incomplete(c, out);
  errors(c, out);
  mismatches(c, out);
  inconsistencies(c, out);
}

}  // namespace fabdiag::detail
