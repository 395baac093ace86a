// PyTorch ProcessGroupNCCL watchdog lines (import/pytorch_watchdog.h).
#include "import/pytorch_watchdog.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/repeats.h"
#include "core/text.h"
#include "import/common.h"
#include "import/format_detect.h"

namespace fabdiag {

namespace {

constexpr size_t kMaxRecords = size_t{1} << 17;  // ranks x groups kept; no job comes near it

bool has(std::string_view s, std::string_view w) { return s.find(w) != std::string_view::npos; }

// The integer right after `key` (blanks skipped), or nullopt.
std::optional<int64_t> int_after(std::string_view s, std::string_view key) {
  auto at = s.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  size_t i = at + key.size(), j;
  while (i < s.size() && s[i] == ' ') ++i;
  j = i;
  if (j < s.size() && s[j] == '-') ++j;
  while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
  if (j == i || (j == i + 1 && s[i] == '-')) return std::nullopt;
  return parse_i64(s.substr(i, j - i));
}

// The word right after `key`, up to ',', ')', ']' or a blank.
std::string word_after(std::string_view s, std::string_view key) {
  auto at = s.find(key);
  if (at == std::string_view::npos) return {};
  size_t i = at + key.size(), j = i;
  while (j < s.size() && s[j] != ',' && s[j] != ')' && s[j] != ']' && s[j] != ' ') ++j;
  return std::string(s.substr(i, j - i));
}

// "[Rank 1]" or "... Rank 1]": the rank a ProcessGroupNCCL line is about; else "[rank1]:".
std::optional<int64_t> rank_of(std::string_view s) {
  for (size_t at = s.find("Rank "); at != std::string_view::npos; at = s.find("Rank ", at + 5)) {
    if (at > 0 && s[at - 1] != '[' && s[at - 1] != ' ') continue;
    auto v = int_after(s.substr(at), "Rank ");
    size_t close = s.find(']', at);
    if (v && close != std::string_view::npos && close < at + 16) return v;
  }
  return int_after(s, "[rank");
}

// "[PG ID 0 PG GUID 0(default_pg) Rank 1]" -> "0 (default_pg)"; "[PG 0 (default_pg) Rank 1]" too.
std::string pg_of(std::string_view s) {
  std::optional<int64_t> id = int_after(s, "[PG ID ");
  if (!id) id = int_after(s, "[PG ");
  if (!id) return {};
  std::string label = std::to_string(*id);
  auto at = s.find("[PG ");
  auto open = s.find('(', at), close = s.find(')', at), end = s.find(']', at);
  if (open != std::string_view::npos && close != std::string_view::npos && close > open && close < end)
    label += " (" + std::string(s.substr(open + 1, close - open - 1)) + ")";
  return label;
}

class Reader {
 public:
  Reader(const std::string& source, const ReadLimits& limits) : source_(source), gaps_(limits.max_listed) {}

  void line(std::string_view raw, size_t line_no);
  Result<WatchdogImport> finish(LineSource& lines);

 private:
  void gap(const std::string& kind, const std::string& message, size_t line) {
    gaps_.add(kind, make_error(ErrorCode::kParse, message, line_source(source_, line)));
  }
  WatchdogRank* record(int64_t rank, std::optional<int64_t> seq, const std::string& pg, size_t line);
  void summary_line(const std::string& t);
  WatchdogGroup judge(std::string pg, std::vector<WatchdogRank> ranks) const;

  std::string source_;
  BoundedErrors gaps_;
  std::vector<WatchdogRank> records_;
  std::map<std::pair<int64_t, int64_t>, size_t> index_;  // (rank, seq or INT64_MIN) -> record
  std::map<int64_t, std::string> hosts_;                 // torchrun's failure summary
  std::map<int64_t, std::string> pg_hint_;               // the group of a rank named by a cut line
  std::string summary_host_;
  size_t watchdog_lines_ = 0;
  LineTally other_;
};

WatchdogRank* Reader::record(int64_t rank, std::optional<int64_t> seq, const std::string& pg, size_t line) {
  auto key = std::make_pair(rank, seq.value_or(INT64_MIN));
  auto it = index_.find(key);
  if (it == index_.end()) {
    if (records_.size() >= kMaxRecords) {
      gap("records", "more than " + std::to_string(kMaxRecords) + " rank records: this one is not kept", line);
      return nullptr;
    }
    it = index_.emplace(key, records_.size()).first;
    WatchdogRank r;
    r.rank = rank;
    r.seq = seq;
    r.line = line;
    records_.push_back(std::move(r));
  }
  WatchdogRank* r = &records_[it->second];
  if (r->pg.empty()) r->pg = pg;
  return r;
}

// torchrun's ChildFailedError summary: "host      : node01", "rank      : 2 (local_rank: 2)".
void Reader::summary_line(const std::string& t) {
  auto colon = t.find(':');
  if (colon == std::string::npos) return;
  std::string key = trim(t.substr(0, colon));
  auto words = split_ws(t.substr(colon + 1));
  if (words.empty()) return;
  if (key == "host" && words.size() == 1) summary_host_ = words[0];
  else if (key == "rank" && !summary_host_.empty())
    if (auto r = parse_i64(words[0])) hosts_[*r] = summary_host_;
}

void Reader::line(std::string_view raw, size_t line_no) {
  std::string s = strip_launcher_tags(raw);
  // "Watchdog caught ...", and with TORCH_NCCL_BLOCKING_WAIT the waiting rank's own "Work
  // WorkNCCL(SeqNum=...) timed out in blocking wait."
  const bool blocking = has(s, "timed out in blocking wait") && has(s, "WorkNCCL(");
  bool caught = has(s, "Watchdog caught collective operation timeout") || blocking;
  // "... last enqueued NCCL work: 811, last completed NCCL work: 807." and PyTorch 2.6's "failure
  // detected by watchdog at work sequence id: 808 PG status: last enqueued work: 811, ...".
  bool status = has(s, "NCCL work:") || has(s, "last enqueued work:");
  if (!caught && !status) {
    if (has(s, "Exception (either") || has(s, "WorkNCCL(")) {
      ++watchdog_lines_;
      // A cut line may still name its rank's group.
      if (auto rank = rank_of(s); rank && !pg_of(s).empty()) pg_hint_.emplace(*rank, pg_of(s));
      return gap("cut", "a watchdog line that is cut or garbled: NOT READ: " + quote_line(s), line_no);
    }
    std::string t = trim(s);
    if (!t.empty()) other_.add(line_no, t);
    return summary_line(t);
  }
  ++watchdog_lines_;
  auto rank = rank_of(s);
  if (!rank) return gap("no rank", "a watchdog line that names no rank: NOT READ: " + quote_line(s), line_no);
  std::string pg = pg_of(s);
  if (caught) {
    auto seq = int_after(s, "SeqNum=");
    WatchdogRank* r = seq ? record(*rank, seq, pg, line_no) : nullptr;
    if (!r) return gap("cut", "a watchdog timeout line without its SeqNum: NOT READ: " + quote_line(s), line_no);
    r->op = word_after(s, "OpType=");
    r->numel_in = int_after(s, "NumelIn=");
    r->numel_out = int_after(s, "NumelOut=");
    r->timeout_ms = int_after(s, "Timeout(ms)=");
    if (blocking) return;  // names no run time
    r->ran_for_ms = int_after(s, "ran for ");
    if (!has(s, "before timing out"))
      gap("cut", "the watchdog timeout line of rank " + std::to_string(*rank) + " is cut: its run time NOT READ", line_no);
    return;
  }
  std::optional<int64_t> seq = int_after(s, "at work: ");
  if (!seq) seq = int_after(s, "at NCCL work: ");
  if (!seq) seq = int_after(s, "work sequence id: ");
  auto enq = int_after(s, "nqueued NCCL work: "), done = int_after(s, "ompleted NCCL work: ");
  if (!enq) enq = int_after(s, "nqueued work: ");
  if (!done) done = int_after(s, "ompleted work: ");
  WatchdogRank* r = record(*rank, seq, pg, line_no);
  if (!r) return;
  if (enq) r->last_enqueued = std::max(*enq, r->last_enqueued.value_or(*enq));
  if (done) r->last_completed = done;
  if (!enq || !done)
    gap("cut", "the watchdog line of rank " + std::to_string(*rank) + " is cut: last enqueued/completed NOT READ",
        line_no);
}

WatchdogGroup Reader::judge(std::string pg, std::vector<WatchdogRank> ranks) const {
  WatchdogGroup g;
  g.pg = std::move(pg);
  std::sort(ranks.begin(), ranks.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
  std::set<int64_t> timed;
  for (const auto& r : ranks)
    if (r.seq) {
      timed.insert(r.rank);
      g.stuck_seq = g.stuck_seq ? std::min(*g.stuck_seq, *r.seq) : *r.seq;
    }
  std::set<int64_t> seen, stuck, moved, not_launched;
  for (const auto& r : ranks) {
    seen.insert(r.rank);
    if (!g.stuck_seq) continue;
    if (r.seq) (*r.seq == *g.stuck_seq ? stuck : moved).insert(r.rank);
    else if (!timed.count(r.rank) && r.last_completed && *r.last_completed >= *g.stuck_seq) moved.insert(r.rank);
    else if (!timed.count(r.rank) && r.last_enqueued && *r.last_enqueued < *g.stuck_seq) not_launched.insert(r.rank);
  }
  for (int64_t r : stuck) moved.erase(r);
  g.timed_out.assign(timed.begin(), timed.end());
  g.stuck.assign(stuck.begin(), stuck.end());
  g.moved_on.assign(moved.begin(), moved.end());
  g.not_launched.assign(not_launched.begin(), not_launched.end());
  if (!seen.empty())
    for (int64_t r = 0; r < *seen.rbegin() && g.not_in_log.size() < 4096; ++r)
      if (!seen.count(r)) g.not_in_log.push_back(r);
  g.same_op_everywhere = g.stuck_seq && moved.empty() && not_launched.empty() && stuck.size() == seen.size();
  g.ranks = std::move(ranks);
  return g;
}

Result<WatchdogImport> Reader::finish(LineSource& lines) {
  if (lines.error()) return *lines.error();
  if (watchdog_lines_ == 0) return not_this_format("a PyTorch NCCL watchdog log (\"Watchdog caught collective "
                                                   "operation timeout\" / \"last enqueued NCCL work\" lines)",
                                                   source_, other_);
  // A rank's record without a group takes the group its other lines name, else the one group
  // of the log when there is one.
  std::map<int64_t, std::string> pg_of_rank = pg_hint_;
  std::set<std::string> named;
  for (const auto& r : records_)
    if (!r.pg.empty()) pg_of_rank.emplace(r.rank, r.pg), named.insert(r.pg);
  for (const auto& [rank, pg] : pg_hint_) named.insert(pg);
  std::vector<std::string> order;
  std::map<std::string, std::vector<WatchdogRank>> by_pg;
  for (auto& r : records_) {
    if (r.pg.empty() && pg_of_rank.count(r.rank)) r.pg = pg_of_rank[r.rank];
    if (r.pg.empty() && named.size() == 1) r.pg = *named.begin();
    if (auto h = hosts_.find(r.rank); h != hosts_.end()) r.host = h->second;
    if (!by_pg.count(r.pg)) order.push_back(r.pg);
    by_pg[r.pg].push_back(r);
  }
  WatchdogImport out;
  for (const auto& pg : order) out.groups.push_back(judge(pg, std::move(by_pg[pg])));
  out.gaps = gaps_.take();
  add_cut_lines_gap(lines, source_, out.gaps);
  return out;
}

}  // namespace

Result<WatchdogImport> import_pytorch_watchdog(LineSource& lines, const std::string& source, const ReadLimits& limits) {
  Reader r(source, limits);
  while (auto l = lines.next()) r.line(*l, lines.line_no());
  return r.finish(lines);
}

Result<WatchdogImport> import_pytorch_watchdog(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_pytorch_watchdog(*lines, source, ReadLimits{});
}

}  // namespace fabdiag
