#include "import/syslog.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <span>

#include "core/text.h"
#include "import/nul_bytes.h"
#include "probes/counters/sysfs_counters.h"

namespace fabdiag {
namespace {

constexpr double kDay_s = 86400;
// Two loggers reporting one flap (the kernel's "NIC Link is Down" and systemd-networkd's or
// NetworkManager's "Lost carrier") write within this many seconds of each other.
constexpr double kOtherLoggerSameEvent_s = 10;
// One logger printing the same loss twice (asix: two "Link is Down" lines in one second) with
// no link-up between them.
constexpr double kSameLoggerRepeat_s = 1;

std::string lower(std::string_view s) {
  std::string o(s);
  for (auto& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return o;
}

int month_of(std::string_view m) {
  static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (int i = 0; i < 12; ++i)
    if (m == kMonths[i]) return i + 1;
  return 0;
}

// Days from 1970-01-01 to y-m-d (proleptic Gregorian; H. Hinnant's days_from_civil).
double days_from_civil(int y, int m, int d) {
  y -= m <= 2;
  int era = (y >= 0 ? y : y - 399) / 400;
  int yoe = y - era * 400;
  int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097.0 + doe - 719468;
}

std::optional<double> hms(std::string_view t) {  // "12:00:01" or "12:00:01.123"
  auto parts = split(t, ':');
  if (parts.size() != 3) return std::nullopt;
  auto h = parse_u64(parts[0]), m = parse_u64(parts[1]);
  auto s = parse_double(parts[2]);
  if (!h || !m || !s) return std::nullopt;
  return static_cast<double>(*h * 3600 + *m * 60) + *s;
}

// Interface-like word: letters, digits and _ . : @ - (netdev names, PCI addresses).
bool iface_like(const std::string& w) {
  if (w.empty() || w.size() > 32) return false;
  for (char c : w)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != ':' &&
        c != '@' && c != '-')
      return false;
  return std::isalpha(static_cast<unsigned char>(w[0])) || std::isdigit(static_cast<unsigned char>(w[0]));
}

// Position and length of the first of `phrases` in the lower-cased line, or npos.
std::pair<size_t, size_t> find_phrase(const std::string& l, std::span<const char* const> phrases) {
  for (const char* p : phrases) {
    size_t at = l.find(p);
    if (at == std::string::npos) continue;
    size_t end = at + std::string(p).size();
    // "link down" must end there ("link downshift" is not a flap).
    if (end < l.size() && std::isalpha(static_cast<unsigned char>(l[end]))) continue;
    return {at, end - at};
  }
  return {std::string::npos, 0};
}

// Event times kept per interface for the busiest 24 h: enough for any real log (a flap a
// second for 18 h); past it the window's count is a lower bound.
constexpr size_t kMaxTimes = size_t{1} << 16;

struct Events {
  size_t count = 0;
  std::vector<double> times;
  size_t timed = 0;  // events with a timestamp (times holds the first kMaxTimes)
  size_t first_line = 0, last_line = 0;
  size_t merged = 0;  // lines folded into an event already counted
  std::string last_logger;   // who wrote the last counted loss
  bool up_since_last = false;  // a link-up line of the interface came after it
};

}  // namespace

std::optional<double> log_line_time_s(std::string_view raw) {
  std::string line = trim(raw);
  auto words = split_ws(line);
  if (words.empty()) return std::nullopt;
  // ISO 8601: 2024-01-10T12:00:01.123+00:00
  if (words[0].size() >= 19 && words[0][4] == '-' && words[0][10] == 'T') {
    auto y = parse_u64(words[0].substr(0, 4)), mo = parse_u64(words[0].substr(5, 2)),
         d = parse_u64(words[0].substr(8, 2));
    std::string rest = words[0].substr(11);
    size_t tz = rest.find_first_of("+-Z");
    auto t = hms(rest.substr(0, tz));
    if (y && mo && d && t)
      return days_from_civil(static_cast<int>(*y), static_cast<int>(*mo), static_cast<int>(*d)) * kDay_s + *t;
  }
  // dmesg: [12345.678901] or dmesg -T: [Wed Jan 10 12:00:01 2024]
  if (line[0] == '[') {
    size_t close = line.find(']');
    if (close == std::string::npos) return std::nullopt;
    std::string inner = trim(line.substr(1, close - 1));
    // dmesg prints seconds with a fraction ("%5lu.%06lu"): a bare "[0]" or "[80746]" is a
    // launcher's rank label or a line number, not a time.
    if (inner.find('.') != std::string::npos)
      if (auto s = parse_double(inner)) return *s;
    auto w = split_ws(inner);
    if (w.size() == 5 && month_of(w[1])) {
      auto d = parse_u64(w[2]), y = parse_u64(w[4]);
      auto t = hms(w[3]);
      if (d && y && t)
        return days_from_civil(static_cast<int>(*y), month_of(w[1]), static_cast<int>(*d)) * kDay_s + *t;
    }
    return std::nullopt;
  }
  // syslog: Jan 10 12:00:01 (no year: year 2000 is assumed, times compare within the log only)
  if (words.size() >= 3 && month_of(words[0])) {
    auto d = parse_u64(words[1]);
    auto t = hms(words[2]);
    if (d && t) return days_from_civil(2000, month_of(words[0]), static_cast<int>(*d)) * kDay_s + *t;
  }
  return std::nullopt;
}

namespace {

// A line a logger wrote: a timestamp, a kernel ring-buffer priority ("<6>"), or a
// "kernel:" / "systemd-networkd[...]:" tag.
bool looks_logged(const std::string& line) {
  if (log_line_time_s(line)) return true;
  std::string t = trim(line);
  if (t.size() > 2 && t[0] == '<' && std::isdigit(static_cast<unsigned char>(t[1])) && t.find('>') < 5) return true;
  return t.find("kernel: ") != std::string::npos || t.find("]: ") != std::string::npos;
}

constexpr const char* kDownPhrases[] = {"nic link is down", "link is down", "lost carrier", "link down"};
constexpr const char* kUpPhrases[] = {"nic link is up", "link is up", "gained carrier", "link up"};

// The interface a line with one of `phrases` is about, or "" when it has none.
std::string phrase_iface(std::string_view raw, std::span<const char* const> phrases) {
  std::string l = lower(raw);
  auto [at, len] = find_phrase(l, phrases);
  if (at == std::string::npos) return {};
  auto before = split_ws(raw.substr(0, at));
  while (!before.empty() && lower(before.back()) == "nic") before.pop_back();
  if (before.empty()) return {};
  std::string iface = before.back();
  while (!iface.empty() && iface.back() == ':') iface.pop_back();
  if (!iface_like(iface) || iface == "kernel") return {};
  return iface;
}

// Who wrote a log line: the syslog tag before ": " ("kernel", "NetworkManager",
// "systemd-networkd"), "kernel" for dmesg lines ("[123.4] ...", "<6>...") and for lines without
// a tag.
std::string logger_of(std::string_view raw) {
  std::string t = trim(raw);
  if (t.empty() || t[0] == '[' || t[0] == '<') return "kernel";
  auto words = split_ws(t);
  for (size_t i = 0; i < words.size() && i < 7; ++i) {
    const std::string& w = words[i];
    if (w.size() < 2 || w.back() != ':' || w.find(':') != w.size() - 1) continue;
    std::string tag = w.substr(0, w.size() - 1);
    size_t pid = tag.find('[');
    if (pid != std::string::npos) tag = tag.substr(0, pid);
    if (!tag.empty() && std::isalpha(static_cast<unsigned char>(tag[0]))) return tag;
  }
  return "kernel";
}

// Counts the loss in `raw` unless it is the last counted one again: the same flap from another
// logger within kOtherLoggerSameEvent_s, or the same logger repeating itself within
// kSameLoggerRepeat_s with no link-up between. A logger's losses further apart are separate
// flaps even without a link-up line between them (the up may not have been logged).
void count_event(Events& e, std::string_view raw, size_t line_no) {
  auto t = log_line_time_s(raw);
  std::string logger = logger_of(raw);
  if (t && !e.times.empty() && e.timed == e.count && !e.up_since_last) {
    double dt = std::abs(*t - e.times.back());
    bool same = logger == e.last_logger ? dt <= kSameLoggerRepeat_s : dt <= kOtherLoggerSameEvent_s;
    if (same) {
      ++e.merged;
      return;
    }
  }
  e.last_logger = logger;
  e.up_since_last = false;
  ++e.count;
  if (t) {
    ++e.timed;
    if (e.times.size() < kMaxTimes) e.times.push_back(*t);
    else e.times.back() = *t;  // the last time still merges the next line of the same flap
  }
  if (!e.first_line) e.first_line = line_no;
  e.last_line = line_no;
}

// Most events within any 24 h of the sorted `t`.
size_t max_in_a_day(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  size_t best = 0;
  for (size_t i = 0, k = 0; i < t.size(); ++i) {
    while (t[i] - t[k] > kDay_s) ++k;
    best = std::max(best, i - k + 1);
  }
  return best;
}

}  // namespace

Result<CounterImport> import_syslog(LineSource& lines, const std::string& source, const ReadLimits&) {
  CounterImport imp;
  imp.format = "syslog";
  imp.source = source;
  std::map<std::string, Events> events;
  std::vector<std::string> order;
  size_t non_blank = 0, logged = 0;
  LineTally other;
  while (auto raw = lines.next()) {
    if (trim(*raw).empty()) continue;
    ++non_blank;
    std::string line(*raw);
    std::string iface = phrase_iface(line, kDownPhrases);
    if (!iface.empty() || looks_logged(line)) ++logged;
    else other.add(lines.line_no(), line);
    if (iface.empty()) {
      std::string up = phrase_iface(line, kUpPhrases);
      if (auto it = events.find(up); !up.empty() && it != events.end()) it->second.up_since_last = true;
      continue;
    }
    auto [it, fresh] = events.try_emplace(iface);
    if (fresh) order.push_back(iface);
    count_event(it->second, line, lines.line_no());
  }
  if (lines.error()) return *lines.error();
  if (non_blank == 0) return make_error(ErrorCode::kParse, "the log is empty", source);
  if (logged == 0 || (lines.nul_bytes() > 0 && logged * 2 < non_blank)) {
    return not_this_format_text("syslog, journal or dmesg lines (a timestamp such as \"Jan 10 12:00:01\", "
                              "\"2024-01-10T12:00:01\" or \"[12345.678]\", or a carrier-loss message)",
                              source, other, lines);
  }
  imp.series.emplace_back();
  Snapshot& snap = imp.series[0].push_empty();
  nlohmann::json ifaces = nlohmann::json::object();
  for (const auto& name : order) {
    const Events& e = events[name];
    PortInfo p;
    p.device = p.netdev = name;
    merge_port(imp.ports, p);
    std::string src = source + ":" + std::to_string(e.first_line) + ".." +
                      std::to_string(e.last_line) + " (" + std::to_string(e.count) + " carrier loss(es))";
    snap.samples.push_back(make_counter(name, CounterGroup::kLogEvents, "carrier_lost_events",
                                        e.count, "", src));
    nlohmann::json j = {{"events", e.count},
                        {"first_line", e.first_line},
                        {"last_line", e.last_line},
                        {"lines_merged_into_one_event", e.merged}};
    if (e.timed == e.count) {
      size_t best = max_in_a_day(e.times);
      snap.samples.push_back(make_counter(name, CounterGroup::kLogEvents,
                                          "carrier_lost_events_max_24h", best, "", src));
      if (e.timed > e.times.size()) snap.samples.back().saturated = true;  // a lower bound
      j["span_s"] = e.times.back() - e.times.front();
      j["max_in_24h"] = best;
    } else {
      j["span_s"] = nullptr;
    }
    ifaces[name] = j;
  }
  imp.facts["lines_read"] = non_blank;
  imp.facts["interfaces"] = ifaces;
  return imp;
}

Result<CounterImport> import_syslog(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_syslog(*lines, source, ReadLimits{});
}

}  // namespace fabdiag
