#include "import/ethtool_s.h"

#include <map>
#include <set>

#include "core/text.h"
#include "import/format_detect.h"
#include "import/sysfs_dump_lines.h"
#include "probes/counters/ethtool_s_text.h"
#include "probes/counters/sysfs_counters.h"

namespace fabdiag {
namespace {

constexpr size_t kListedLines = 8;  // line numbers named in one "not name: number" gap

// "ethtool -S enp178s0f0 | grep prio (before)" or "root@h:~# ethtool -S eth1" -> the netdev.
std::string netdev_in_command(std::string_view text) {
  auto words = split_ws(std::string(text));
  for (size_t i = 0; i + 1 < words.size(); ++i)
    if ((words[i] == "-S" || words[i] == "--statistics") && words[i + 1][0] != '-' &&
        (i == 0 || words[i - 1] == "ethtool" || ends_with(words[i - 1], "/ethtool")))
      return words[i + 1];
  return {};
}

// True when `cut` holds fewer counters than `full` and they are exactly its first ones.
bool is_prefix(const std::vector<Counter>& cut, const std::vector<Counter>& full) {
  if (cut.empty() || cut.size() >= full.size()) return false;
  for (size_t i = 0; i < cut.size(); ++i)
    if (cut[i].name != full[i].name) return false;
  return true;
}

// The reading of one input: the section and snapshot being read, the series so far.
class Reader {
 public:
  Reader(const std::string& source, const std::string& device, const ReadLimits& limits)
      : device_(device), gaps_(limits.max_listed) {
    imp_.format = "ethtool-s";
    imp_.source = source;
    start_section("");
  }

  void line(std::string_view raw, size_t line_no) {
    std::string title;
    if (is_section_title(raw, &title)) {
      finish_snapshots();
      start_section(title);
      return;
    }
    if (dump_line(raw, line_no)) return;
    if (read_sysfs_line(raw, imp_.source, line_no, sys_, imp_.ports)) {
      ++sysfs_lines_;
      return;
    }
    EthtoolSLine l = parse_ethtool_s_line(raw);
    if (l.kind != EthtoolSLineKind::kStat) {
      // "# ethtool -S eth1 | grep prio", "sudo ethtool -S eth8 | grep lsc_int", a prompt line:
      // the command names the netdev of the counters after it (another device, not a later
      // snapshot of the same one).
      if (std::string nd = netdev_in_command(raw); !nd.empty()) {
        if (!eth_.samples.empty() || bad_count_) finish_ethtool();
        netdev_ = nd;
        return;
      }
    }
    switch (l.kind) {
      case EthtoolSLineKind::kSkip: return;
      case EthtoolSLineKind::kHeader:  // a repeated header: the next snapshot of the netdev
        if (!eth_.samples.empty()) finish_ethtool();
        return;
      case EthtoolSLineKind::kStat:
        eth_.samples.push_back(make_counter(netdev(), CounterGroup::kEthtoolStats, l.stat.name, l.stat.value, "",
                                            line_source(imp_.source, line_no)));
        return;
      case EthtoolSLineKind::kBad: break;
    }
    if (!first_bad_line_) {
      first_bad_line_ = line_no;
      first_bad_text_ = quote_line(raw);
    }
    if (bad_count_++ < kListedLines) bad_lines_.push_back(std::to_string(line_no));
    last_bad_line_ = line_no;
    last_bad_text_ = quote_line(raw);
  }

  Result<CounterImport> finish(const LineSource& lines) {
    if (lines.unterminated() && last_bad_line_ == lines.line_no() && counters_ + eth_.samples.size() > 0)
      cut_last_line();
    finish_snapshots();
    if (lines.error()) return *lines.error();
    if (counters_ == 0 && sysfs_lines_ == 0) {
      std::string seen = first_bad_line_ ? "; the first line that is not one: " + first_bad_text_ : "; the input is empty";
      return make_error(ErrorCode::kParse,
                        "expected `ethtool -S` output (\"name: number\" counter lines, after an optional "
                        "\"NIC statistics:\"), found no counter line" + seen,
                        line_source(imp_.source, first_bad_line_ ? first_bad_line_ : 1));
    }
    imp_.gaps = gaps_.take();
    if (unnamed_)
      imp_.notes.push_back("the input does not name the netdev: it is called \"netdev\" (give --netdev NAME)");
    return std::move(imp_);
  }

 private:
  void start_section(const std::string& title) {
    title_ = title;
    netdev_ = netdev_in_command(title);
    if (netdev_.empty()) netdev_ = device_;
  }

  // The netdev of the snapshot being read: the section title's, a prompt line's, --netdev's.
  const std::string& netdev() const {
    static const std::string kUnnamed = "netdev";
    return netdev_.empty() ? kUnnamed : netdev_;
  }

  std::string where() const {
    return title_.empty() ? imp_.source : imp_.source + " (section \"" + title_ + "\")";
  }

  void finish_snapshots() {
    finish_ethtool();
    finish_sysfs();
  }

  void push(const std::string& key, Snapshot snap) {
    counters_ += snap.samples.size();
    auto [it, fresh] = series_of_.emplace(key, imp_.series.size());
    if (fresh) imp_.series.emplace_back();
    imp_.series[it->second].push(std::move(snap));
  }

  // A line of a named-file dump (import/sysfs_dump_lines.h): the prompt's directory, a file
  // title, the value after it (read as "path:value"), the shell loop around them.
  bool dump_line(std::string_view raw, size_t line_no) {
    if (auto dir = prompt_sysfs_dir(raw)) {
      dump_dir_ = *dir;
      return true;
    }
    if (auto file = dump_title_file(raw)) {
      dump_file_ = dump_file_path(dump_dir_, *file);
      return true;
    }
    if (!dump_file_.empty() && !trim(raw).empty()) {
      std::string path = std::move(dump_file_);
      dump_file_.clear();
      if (read_sysfs_line(path + ":" + trim(raw), imp_.source, line_no, sys_, imp_.ports)) {
        ++sysfs_lines_;
        return true;
      }
    }
    return !dump_dir_.empty() && is_shell_loop_line(raw);
  }

  // The last line ends without a newline and is no counter line ("rx_crc_err"): it was cut while
  // the output was saved, a gap of its own instead of a line "not name: number".
  void cut_last_line() {
    --bad_count_;
    if (!bad_lines_.empty() && bad_lines_.back() == std::to_string(last_bad_line_)) bad_lines_.pop_back();
    gaps_.add("cut", make_error(ErrorCode::kParse,
                                "the last line ends without a newline (the output was cut); NOT READ: " + last_bad_text_,
                                line_source(imp_.source, last_bad_line_)));
  }

  void finish_ethtool();
  void finish_sysfs();

  CounterImport imp_;
  std::string device_, title_, netdev_;
  std::string dump_dir_, dump_file_;  // a named-file dump's directory and the file awaiting its value
  BoundedErrors gaps_;
  std::map<std::string, size_t> series_of_;  // stream key -> index in imp_.series
  Snapshot eth_, sys_;
  size_t bad_count_ = 0, first_bad_line_ = 0, last_bad_line_ = 0, counters_ = 0;
  size_t sysfs_lines_ = 0;  // sysfs path:value lines read (a port whose files all say "N/A (no PMA)" has no counter)
  std::vector<std::string> bad_lines_;
  std::string first_bad_text_, last_bad_text_;
  bool unnamed_ = false;
};

void Reader::finish_ethtool() {
  if (eth_.samples.empty() && bad_count_ == 0) return;
  const std::string& nd = netdev();
  unnamed_ = unnamed_ || netdev_.empty();
  PortInfo port;
  port.device = port.netdev = nd;
  merge_port(imp_.ports, port);
  if (bad_count_)
    gaps_.add("not name: number",
              make_error(ErrorCode::kParse,
                         std::to_string(bad_count_) + " line(s) are not \"name: number\" (lines " +
                             join(bad_lines_, ", ") + (bad_count_ > bad_lines_.size() ? ", ...)" : ")"),
                         where()));
  std::string key = "ethtool " + nd;
  if (auto it = series_of_.find(key); it != series_of_.end()) {
    const Snapshot& prev = imp_.series[it->second].back();
    if (is_prefix(eth_.samples, prev.samples)) {
      eth_.truncated = true;
      gaps_.add("ends early", make_error(ErrorCode::kParse,
                                         "the capture ends early after " + eth_.samples.back().name + ": " +
                                             std::to_string(prev.samples.size() - eth_.samples.size()) +
                                             " counter(s) of the previous section are missing here (unknown, not zero)",
                                         where()));
    }
  }
  push(key, std::move(eth_));
  eth_ = Snapshot{};
  bad_count_ = 0;
  bad_lines_.clear();
}

void Reader::finish_sysfs() {
  if (sys_.samples.empty() && sys_.gaps.empty()) return;
  // "N/A (no PMA)" files (a port without a performance-management agent: iWARP, RoCE on some
  // drivers) are one "not supported" note for the snapshot, as the live reader gives it.
  std::vector<std::string> unsupported;
  for (auto& g : sys_.gaps) {
    if (g.code == ErrorCode::kUnsupported) unsupported.push_back(g.source);
    else gaps_.add("sysfs value", std::move(g));
  }
  if (!unsupported.empty())
    gaps_.add("sysfs unsupported",
              make_error(ErrorCode::kUnsupported,
                         std::to_string(unsupported.size()) +
                             " counter file(s) not supported by the device (\"N/A (no PMA)\"): not read, not zero; "
                             "first " + unsupported.front(),
                         where()));
  sys_.gaps.clear();
  std::set<std::string> devices;
  for (const auto& c : sys_.samples) devices.insert(c.device);
  std::string key = "sysfs";
  for (const auto& d : devices) key += " " + d;
  push(key, std::move(sys_));
  sys_ = Snapshot{};
}

}  // namespace

Result<CounterImport> import_ethtool_s(LineSource& lines, const std::string& source, const std::string& device,
                                       const ReadLimits& limits) {
  Reader r(source, device, limits);
  while (auto l = lines.next()) r.line(*l, lines.line_no());
  return r.finish(lines);
}

Result<CounterImport> import_ethtool_s(std::string_view text, const std::string& source,
                                       const std::string& device) {
  auto lines = text_line_source(std::string(text));
  return import_ethtool_s(*lines, source, device, ReadLimits{});
}

}  // namespace fabdiag
