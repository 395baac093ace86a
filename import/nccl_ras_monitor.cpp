// NCCL RAS monitor-mode events, text and JSON (import/nccl_ras_monitor.h).
#include "import/nccl_ras_monitor.h"

#include <cctype>
#include <map>

#include <nlohmann/json.hpp>

#include "core/repeats.h"
#include "core/text.h"
#include "import/common.h"

namespace fabdiag::detail {

namespace {

using json = nlohmann::json;

constexpr size_t kMaxEvents = 4096, kMaxJsonEventBytes = size_t{64} << 10;
constexpr std::string_view kBanner = "RAS Monitor Mode - ";

// "[2025-12-19 13:07:07]": strftime("%F %T") in brackets; its text, or empty.
std::string bracket_time(std::string_view t) {
  if (t.size() < 21 || t[0] != '[' || t[20] != ']') return "";
  static const char* shape = "dddd-dd-dd dd:dd:dd";
  for (size_t i = 0; i < 19; ++i) {
    char c = t[1 + i];
    if (shape[i] == 'd' ? !std::isdigit(static_cast<unsigned char>(c)) : c != shape[i]) return "";
  }
  return std::string(t.substr(1, 19));
}

// "PEER_DEAD:" at the start of `t`: the event name, or empty.
std::string event_name(std::string_view t) {
  size_t colon = t.find(':');
  if (colon == std::string_view::npos || colon < 6 || t.substr(0, 5) != "PEER_") return "";
  for (char c : t.substr(0, colon))
    if (!std::isupper(static_cast<unsigned char>(c)) && c != '_') return "";
  return std::string(t.substr(0, colon));
}

// "1", "0,1", "0,1 (NVML 2,3)" at the start of `t` (rasGpuDevsToString): its length.
size_t gpus_length(std::string_view t) {
  size_t n = t.find_first_not_of("0123456789,");
  if (n == std::string_view::npos) return t.size();
  if (t.substr(n, 7) == " (NVML ") {
    size_t close = t.find(')', n);
    if (close != std::string_view::npos) return close + 1;
  }
  return n;
}

// The peer and details after "PEER_X: ": "Process P on node H managing GPU[s] G details",
// "H<port> details" or "details".
void text_peer(std::string_view rest, RasEvent& e) {
  auto words = split_ws(std::string(rest));
  if (words.size() >= 7 && words[0] == "Process" && words[2] == "on" && words[3] == "node" && words[5] == "managing" &&
      (words[6] == "GPU" || words[6] == "GPUs")) {
    e.pid = parse_i64(words[1]).value_or(-1);
    e.host = words[4];
    size_t at = rest.find(" managing GPU");
    at = rest.find(' ', at + 13);
    std::string_view tail = at == std::string_view::npos ? std::string_view() : rest.substr(at + 1);
    size_t g = gpus_length(tail);
    e.gpus = std::string(tail.substr(0, g));
    e.details = trim(tail.substr(g));
    return;
  }
  if (!words.empty() && words[0].back() == '>' && words[0].find('<') != std::string::npos) {
    e.addr = words[0];
    e.details = trim(rest.substr(rest.find(words[0]) + words[0].size()));
    return;
  }
  e.details = trim(rest);
}

std::string devs_text(const json& peer, const char* key) {
  std::string s;
  if (auto it = peer.find(key); it != peer.end() && it->is_array())
    for (const auto& d : *it)
      if (d.is_number_integer()) s += (s.empty() ? "" : ",") + std::to_string(d.get<int64_t>());
  return s;
}

std::string jstr(const json& o, const char* k) {
  auto it = o.find(k);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

class Reader {
 public:
  Reader(const std::string& source, const ReadLimits& l) : source_(source), gaps_(l.max_listed) {}
  void line(std::string_view raw, size_t line_no);
  Result<RasReport> finish(LineSource& lines);

 private:
  void json_line(std::string_view raw, size_t line_no);
  void json_event(size_t line_no);
  void add(RasEvent e);
  std::string source_;
  BoundedErrors gaps_;
  RasReport out_;
  std::map<std::string, size_t> index_;
  bool seen_ = false;
  LineTally other_;
  std::string chunk_;  // a JSON event being gathered
  size_t chunk_line_ = 0;
  int depth_ = 0;
  bool in_string_ = false, escape_ = false, skipping_ = false;
};

void Reader::add(RasEvent e) {
  seen_ = true;
  ++out_.event_count;
  std::string key = e.event + "|" + e.host + "|" + std::to_string(e.pid) + "|" + e.addr;
  auto it = index_.find(key);
  if (it != index_.end()) {
    RasEvent& k = out_.events[it->second];
    ++k.count;
    k.last_time = e.first_time, k.last_line = e.line;
    if (!e.details.empty()) k.details = e.details;
    return;
  }
  if (out_.events.size() >= kMaxEvents)
    return gaps_.add("events", make_error(ErrorCode::kParse, "more than 4096 distinct RAS events (event, peer): not kept",
                                          line_source(source_, e.line)));
  e.count = 1, e.last_time = e.first_time, e.last_line = e.line;
  index_[key] = out_.events.size();
  out_.events.push_back(std::move(e));
}

void Reader::line(std::string_view raw, size_t line_no) {
  if (!chunk_.empty() || skipping_) return json_line(raw, line_no);
  std::string text = trim(strip_launcher_tags(raw));
  if (text.empty() || starts_with(text, "===")) return;
  if (text[0] == '{') return json_line(raw, line_no);
  if (starts_with(text, kBanner)) return void(seen_ = true);
  std::string time = bracket_time(text);
  std::string_view body = time.empty() ? std::string_view() : std::string_view(text).substr(21);
  while (!body.empty() && body.front() == ' ') body.remove_prefix(1);
  std::string name = event_name(body);
  if (name.empty()) return seen_ ? void() : other_.add(line_no, text);
  RasEvent e;
  e.event = name, e.first_time = time, e.line = line_no;
  text_peer(body.substr(name.size() + 1), e);
  add(std::move(e));
}

// Gathers the lines of one JSON event until its braces balance (strings and escapes honoured).
void Reader::json_line(std::string_view raw, size_t line_no) {
  if (chunk_.empty() && !skipping_) chunk_line_ = line_no, depth_ = 0, in_string_ = escape_ = false;
  for (char c : raw) {
    if (in_string_) {
      if (escape_) escape_ = false;
      else if (c == '\\') escape_ = true;
      else if (c == '"') in_string_ = false;
    } else if (c == '"') {
      in_string_ = true;
    } else if (c == '{') {
      ++depth_;
    } else if (c == '}') {
      --depth_;
    }
  }
  if (!skipping_) chunk_.append(raw.data(), raw.size()).push_back('\n');
  if (!skipping_ && chunk_.size() > kMaxJsonEventBytes) {
    gaps_.add("json", make_error(ErrorCode::kParse, "a JSON event longer than 64 KiB: skipped",
                                 line_source(source_, chunk_line_)));
    chunk_.clear(), skipping_ = true;
  }
  if (depth_ > 0) return;
  if (skipping_) return void(skipping_ = false);
  json_event(line_no);
}

void Reader::json_event(size_t line_no) {
  json j = json::parse(chunk_, nullptr, false);
  chunk_.clear();
  std::string name = j.is_object() ? jstr(j, "event") : "";
  if (name.empty()) {
    if (j.is_discarded() || seen_)
      gaps_.add("json", make_error(ErrorCode::kParse,
                                   j.is_discarded() ? "malformed JSON event (lines " + std::to_string(chunk_line_) + "-" +
                                                          std::to_string(line_no) + "): skipped"
                                                    : "a JSON object without an \"event\" key: skipped",
                                   line_source(source_, chunk_line_)));
    else
      other_.add(chunk_line_, "{");
    return;
  }
  RasEvent e;
  e.event = name, e.group = jstr(j, "group"), e.first_time = jstr(j, "timestamp"), e.details = jstr(j, "details");
  e.line = chunk_line_;
  if (auto p = j.find("peer"); p != j.end() && p->is_object()) {
    e.host = jstr(*p, "host"), e.addr = jstr(*p, "addr");
    if (auto pid = p->find("pid"); pid != p->end() && pid->is_number_integer()) e.pid = pid->get<int64_t>();
    e.gpus = devs_text(*p, "cuda_devs");
    std::string nvml = devs_text(*p, "nvml_devs");
    if (!nvml.empty() && nvml != e.gpus) e.gpus += " (NVML " + nvml + ")";
  }
  add(std::move(e));
}

Result<RasReport> Reader::finish(LineSource& lines) {
  if (lines.error()) return *lines.error();
  if (!chunk_.empty() && seen_)
    gaps_.add("cut", make_error(ErrorCode::kParse, "the stream ends inside a JSON event (cut): that event is not kept",
                                line_source(source_, chunk_line_)));
  if (!seen_)
    return not_this_format("NCCL RAS monitor events (\"[time] PEER_...:\" lines or JSON events)", source_, other_);
  if (lines.unterminated() && chunk_.empty())
    gaps_.add("cut", make_error(ErrorCode::kParse, "the last line ends without a newline: the stream may be cut there",
                                line_source(source_, lines.line_no())));
  out_.form = "monitor";
  out_.gaps = gaps_.take();
  add_cut_lines_gap(lines, source_, out_.gaps);
  return std::move(out_);
}

}  // namespace

bool is_nccl_ras_monitor_line(std::string_view line) {
  std::string t = trim(line);
  if (starts_with(t, kBanner) && t.find("watching for peer changes") != std::string::npos) return true;
  if (starts_with(t, "\"event\": \"PEER_") || starts_with(t, "\"event\":\"PEER_")) return true;
  std::string time = bracket_time(t);
  return !time.empty() && t.size() > 22 && !event_name(std::string_view(t).substr(22)).empty();
}

Result<RasReport> read_nccl_ras_monitor(LineSource& lines, std::vector<std::string> head, size_t first_no,
                                        const std::string& source, const ReadLimits& limits) {
  Reader r(source, limits);
  for (size_t i = 0; i < head.size(); ++i) r.line(head[i], first_no + i);
  while (auto l = lines.next()) r.line(*l, lines.line_no());
  return r.finish(lines);
}

}  // namespace fabdiag::detail
