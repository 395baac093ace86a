#include "import/ethtool_s.h"

#include <map>
#include <set>

#include "core/text.h"
#include "probes/counters/ethtool_s_text.h"
#include "probes/counters/sysfs_counters.h"

namespace fabdiag {
namespace {

// "ethtool -S enp178s0f0 | grep prio (before)" -> "enp178s0f0".
std::string netdev_in_title(const std::string& title) {
  auto words = split_ws(title);
  for (size_t i = 0; i + 1 < words.size(); ++i)
    if ((words[i] == "-S" || words[i] == "--statistics") && words[i + 1][0] != '-')
      return words[i + 1];
  return {};
}

std::string list_lines(const std::vector<size_t>& lines) {
  std::vector<std::string> numbers;
  for (size_t n : lines) numbers.push_back(std::to_string(n));
  return join_first(numbers, 8, ", ", "...");
}

// True when `cut` holds fewer names than `full` and they are exactly its first ones.
bool is_prefix(const std::vector<EthtoolStat>& cut, const std::vector<EthtoolStat>& full) {
  if (cut.empty() || cut.size() >= full.size()) return false;
  for (size_t i = 0; i < cut.size(); ++i)
    if (cut[i].name != full[i].name) return false;
  return true;
}

}  // namespace

Result<CounterImport> import_ethtool_s(std::string_view text, const std::string& source,
                                       const std::string& device) {
  CounterImport imp;
  imp.format = "ethtool-s";
  imp.source = source;
  std::map<std::string, size_t> series_of;            // stream key -> index in imp.series
  std::map<std::string, std::vector<EthtoolStat>> last;  // netdev -> previous section's stats
  bool unnamed = false;
  size_t counters = 0;
  for (const auto& sec : split_sections(text)) {
    Snapshot snap;
    std::string key;
    if (looks_like_sysfs_lines(sec.text)) {
      read_sysfs_lines(sec, source, snap, imp.ports);
      std::set<std::string> devices;
      for (const auto& c : snap.samples) devices.insert(c.device);
      key = "sysfs";
      for (const auto& d : devices) key += " " + d;
    } else {
      // kLenient never fails: bad lines are collected.
      EthtoolSText p = *parse_ethtool_s_text(sec.text, source, EthtoolSStrictness::kLenient, sec.first_line);
      if (p.stats.empty() && p.bad_lines.empty()) continue;
      std::string nd = netdev_in_title(sec.title);
      if (nd.empty()) nd = device;
      if (nd.empty()) {
        nd = "netdev";
        unnamed = true;
      }
      PortInfo port;
      port.device = port.netdev = nd;
      merge_port(imp.ports, port);
      std::string where = sec.title.empty() ? source : source + " (section \"" + sec.title + "\")";
      for (size_t i = 0; i < p.stats.size(); ++i)
        snap.samples.push_back(make_counter(nd, CounterGroup::kEthtoolStats, p.stats[i].name,
                                            p.stats[i].value, "", line_source(source, p.stat_lines[i])));
      if (!p.bad_lines.empty())
        snap.gaps.push_back(make_error(ErrorCode::kParse,
                                       std::to_string(p.bad_lines.size()) +
                                           " line(s) are not \"name: number\" (lines " +
                                           list_lines(p.bad_lines) + ")",
                                       where));
      if (auto it = last.find(nd); it != last.end() && is_prefix(p.stats, it->second)) {
        snap.truncated = true;
        snap.gaps.push_back(make_error(
            ErrorCode::kParse,
            "the capture ends early after " + p.stats.back().name + ": " +
                std::to_string(it->second.size() - p.stats.size()) +
                " counter(s) of the previous section are missing here (unknown, not zero)",
            where));
      }
      last[nd] = p.stats;
      key = "ethtool " + nd;
    }
    counters += snap.samples.size();
    for (const auto& g : snap.gaps) imp.gaps.push_back(g);
    snap.gaps.clear();
    auto [it, fresh] = series_of.emplace(key, imp.series.size());
    if (fresh) imp.series.emplace_back();
    imp.series[it->second].push_back(std::move(snap));
  }
  if (counters == 0)
    return make_error(ErrorCode::kParse, "no \"name: number\" counter lines (not `ethtool -S` output?)",
                      source);
  if (unnamed)
    imp.notes.push_back("the input does not name the netdev: it is called \"netdev\" (give --netdev NAME)");
  return imp;
}

}  // namespace fabdiag
