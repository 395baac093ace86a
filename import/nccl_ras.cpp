// NCCL RAS text reports, and the choice of form (import/nccl_ras.h).
#include "import/nccl_ras.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/repeats.h"
#include "core/text.h"
#include "import/common.h"
#include "import/nccl_ras_json.h"
#include "import/nccl_ras_monitor.h"

namespace fabdiag {

namespace {

constexpr size_t kMaxEntries = 4096, kMaxLinesPerEntry = 4096;

enum class Part { kNone, kJob, kComms, kErrors, kWarnings };

bool all_ints(const std::vector<std::string>& t, size_t n) {
  if (t.size() < n) return false;
  for (size_t i = 0; i < n; ++i)
    if (!parse_i64(t[i])) return false;
  return true;
}

// "#0-0": a communicator id.
bool is_comm_id(const std::string& t) {
  return t.size() >= 4 && t[0] == '#' && t.find('-') != std::string::npos && std::isdigit(static_cast<unsigned char>(t[1]));
}

bool has_not_launched(const std::string& text) { return text.find("have not launched any operations") != std::string::npos; }

// "Rank 12 -- GPU 4 managed by process 323032 on node 192.0.2.1" (after "Rank R has launched
// up to operation X -- " in the one-rank form).
std::optional<RasRank> rank_line(const std::vector<std::string>& t) {
  if (t.size() < 2 || t[0] != "Rank" || !parse_i64(t[1])) return std::nullopt;
  RasRank r;
  r.rank = *parse_i64(t[1]);
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i] == "GPU") r.gpu = t[i + 1];
    if (t[i] == "process") r.pid = parse_i64(t[i + 1]).value_or(-1);
    if (t[i] == "node") r.node = t[i + 1];
  }
  return r;
}

class Reader {
 public:
  Reader(const std::string& source, const ReadLimits& l) : source_(source), gaps_(l.max_listed) {}
  void line(std::string_view raw, size_t line_no);
  Result<RasReport> finish(LineSource& lines);

 private:
  void entry_line(const std::vector<std::string>& t, const std::string& text, size_t line_no);
  std::string source_;
  BoundedErrors gaps_;
  RasReport out_;
  Part part_ = Part::kNone;
  bool seen_ = false;
  LineTally other_;
};

void Reader::line(std::string_view raw, size_t line_no) {
  std::string text = trim(strip_launcher_tags(raw));
  if (text.empty() || starts_with(text, "===")) return;
  auto t = split_ws(text);
  if (starts_with(text, "NCCL version ")) {
    out_.nccl_version = t.size() > 2 ? t[2] : "";
    return;
  }
  if (text == "Job summary") return void((part_ = Part::kJob, seen_ = true));
  if (starts_with(text, "Communicators")) return void((part_ = Part::kComms, seen_ = true));
  if (text == "Errors") return void(part_ = Part::kErrors);
  if (text == "Warnings") return void(part_ = Part::kWarnings);
  if (part_ == Part::kJob && all_ints(t, 5) && t.size() == 5) {
    out_.nodes = parse_i64(t[0]), out_.processes_per_node = parse_i64(t[1]), out_.gpus_per_process = parse_i64(t[2]);
    out_.processes = parse_i64(t[3]), out_.gpus = parse_i64(t[4]);
  } else if (part_ == Part::kComms && all_ints(t, 6) && t.size() >= 7) {
    RasGroup g;
    g.group = *parse_i64(t[0]), g.comms = *parse_i64(t[1]), g.nodes_per_comm = *parse_i64(t[2]);
    g.ranks_per_node = *parse_i64(t[3]), g.ranks_per_comm = *parse_i64(t[4]), g.ranks_in_group = *parse_i64(t[5]);
    g.status = t[6];
    g.errors = t.size() > 7 ? t[7] : "";
    g.line = line_no;
    if (out_.groups.size() < kMaxEntries) out_.groups.push_back(std::move(g));
  } else if (part_ == Part::kErrors || part_ == Part::kWarnings) {
    entry_line(t, text, line_no);
  } else if (!seen_) {
    other_.add(line_no, text);
  }
}

void Reader::entry_line(const std::vector<std::string>& t, const std::string& text, size_t line_no) {
  if (is_comm_id(t[0])) {
    if (out_.entries.size() >= kMaxEntries)
      return gaps_.add("entries", make_error(ErrorCode::kParse, "more than 4096 RAS entries: not kept",
                                             line_source(source_, line_no)));
    RasEntry e;
    e.error = part_ == Part::kErrors;
    e.comm = t[0];
    size_t k = 1;
    if (t.size() > 1 && t[1].front() == '(' && t[1].back() == ')') e.hash = t[1].substr(1, t[1].size() - 2), k = 2;
    for (; k < t.size(); ++k) e.kind += (e.kind.empty() ? "" : " ") + t[k];
    e.line = line_no;
    out_.entries.push_back(std::move(e));
    return;
  }
  if (out_.entries.empty()) return;
  RasEntry& e = out_.entries.back();
  if (e.text.size() + e.ranks.size() + e.counts.size() > kMaxLinesPerEntry) return;
  auto launched = text.find("launched up to operation ");
  if (launched != std::string::npos || has_not_launched(text)) {
    RasOpCount c;
    auto op = launched != std::string::npos ? parse_i64(split_ws(text.substr(launched + 25)).front()) : std::optional<int64_t>(-1);
    c.op = op.value_or(-1);
    if (t[0] == "Rank") {  // "Rank 7 has launched up to operation 60 -- GPU 3 ..."
      c.ranks = 1;
      if (auto r = rank_line(t)) c.listed.push_back(r->rank), e.ranks.push_back(*r);
    } else {
      c.ranks = parse_i64(t[0]).value_or(0);
    }
    e.counts.push_back(std::move(c));
  } else if (auto r = rank_line(t)) {
    e.ranks.push_back(*r);
    if (!e.counts.empty()) e.counts.back().listed.push_back(r->rank);
  } else if (e.what.empty()) {
    e.what = text;
  } else {
    e.text.push_back(text);
  }
}

Result<RasReport> Reader::finish(LineSource& lines) {
  if (lines.error()) return *lines.error();
  if (!seen_)
    return not_this_format("an NCCL RAS report (\"Job summary\" / \"Communicators\" tables)", source_, other_);
  if (lines.unterminated())
    gaps_.add("cut", make_error(ErrorCode::kParse, "the last line ends without a newline: the report may be cut there",
                                line_source(source_, lines.line_no())));
  out_.gaps = gaps_.take();
  add_cut_lines_gap(lines, source_, out_.gaps);
  return std::move(out_);
}

enum class Form { kText, kJson, kMonitor };

// The form the first lines say (import/nccl_ras.h), from at most 32 lines after the first
// non-blank one: a monitor line; a '{' line and then a report key or an event key (lines before
// the '{', such as a shell prompt, are dropped from `head` for the JSON reader); a text report's
// own lines. Without any of these: JSON when the first line is '{', else text (which refuses it).
Form sniff(LineSource& lines, std::vector<std::string>& head, size_t& first_no) {
  size_t json_at = std::string::npos;
  auto json_from = [&]() {
    head.erase(head.begin(), head.begin() + static_cast<std::ptrdiff_t>(json_at));
    first_no += json_at;
    return Form::kJson;
  };
  while (auto l = lines.next()) {
    std::string t = trim(strip_launcher_tags(*l));
    if (head.empty() && t.empty()) continue;
    if (head.empty()) first_no = lines.line_no();
    head.emplace_back(*l);
    if (json_at == std::string::npos && !t.empty() && t[0] == '{') json_at = head.size() - 1;
    if (detail::is_nccl_ras_monitor_line(t)) return Form::kMonitor;
    if (json_at == std::string::npos) {
      if (t == "Job summary" || starts_with(t, "Communicators") || starts_with(t, "NCCL version ")) return Form::kText;
    } else {
      bool comms = t.find("\"communicators\"") != std::string::npos;
      if (starts_with(t, "\"timestamp\"") || (!comms && t.find("\"event\"") != std::string::npos)) return Form::kMonitor;
      if (comms || detail::is_nccl_ras_json_line(t) || t.find("\"nccl_version\"") != std::string::npos)
        return json_from();
    }
    if (head.size() >= 32) break;
  }
  return json_at == 0 ? json_from() : Form::kText;
}

}  // namespace

Result<RasReport> import_nccl_ras(LineSource& lines, const std::string& source, const ReadLimits& limits) {
  std::vector<std::string> head;
  size_t first_no = 1;
  Form form = sniff(lines, head, first_no);
  if (form == Form::kJson) return detail::read_nccl_ras_json(lines, std::move(head), first_no, source, limits);
  if (form == Form::kMonitor) return detail::read_nccl_ras_monitor(lines, std::move(head), first_no, source, limits);
  Reader r(source, limits);
  for (size_t i = 0; i < head.size(); ++i) r.line(head[i], first_no + i);
  while (auto l = lines.next()) r.line(*l, lines.line_no());
  return r.finish(lines);
}

Result<RasReport> import_nccl_ras(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_nccl_ras(*lines, source, ReadLimits{});
}

}  // namespace fabdiag
