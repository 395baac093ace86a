#include "import/ethtool_fec.h"

#include <map>
#include <optional>

#include "core/text.h"
#include "import/format_detect.h"
#include "probes/counters/sysfs_counters.h"

namespace fabdiag {
namespace {

// "ethtool -I --show-fec eth0" -> "eth0".
std::string netdev_in_title(const std::string& title) {
  auto words = split_ws(title);
  for (size_t i = 0; i + 1 < words.size(); ++i)
    if (words[i] == "--show-fec" && words[i + 1][0] != '-') return words[i + 1];
  return {};
}

// "# ethtool -I --show-fec eth0", "$ sudo ethtool ...", "ethtool --show-fec eth0".
bool is_command_echo(const std::string& t) {
  std::string c = t;
  if (!c.empty() && (c[0] == '#' || c[0] == '$')) c = trim(c.substr(1));
  if (starts_with(c, "sudo ")) c = trim(c.substr(5));
  return starts_with(c, "ethtool ") && c.find("--show-fec") != std::string::npos;
}

class Reader {
 public:
  Reader(const std::string& source, const std::string& device) : device_(device) {
    imp_.format = "ethtool-fec";
    imp_.source = source;
    netdev_ = device;
  }

  void line(std::string_view raw, size_t line_no) {
    std::string title;
    if (is_section_title(raw, &title)) {
      finish();
      std::string nd = netdev_in_title(title);
      netdev_ = nd.empty() ? device_ : nd;
      return;
    }
    std::string t = trim(raw);
    if (t.empty()) return;
    if (is_command_echo(t)) {  // the shell prompt line of a paste: "# ethtool -I --show-fec eni8np1"
      finish();
      std::string nd = netdev_in_title(t);
      netdev_ = nd.empty() ? device_ : nd;
      return;
    }
    if (t == "Statistics:") {
      seen_fec_ = true;
      return;
    }
    if (starts_with(t, "FEC parameters for ") && t.back() == ':') {
      seen_fec_ = true;
      finish();
      netdev_ = trim(t.substr(19, t.size() - 20));
      ++evidence_;
      return;
    }
    size_t colon = t.find(':');
    std::string key = colon == std::string::npos ? "" : trim(t.substr(0, colon));
    std::string value = colon == std::string::npos ? "" : trim(t.substr(colon + 1));
    if (key == "Configured FEC encodings" || key == "Supported/Configured FEC encodings" ||
        key == "Active FEC encoding") {
      seen_fec_ = true;
      imp_.facts["fec"][name()][key[0] == 'A' ? "active" : "configured"] = value;
      PortInfo p;
      p.device = p.netdev = name();
      merge_port(imp_.ports, p);
      ++evidence_;
      return;
    }
    if (seen_fec_ && read_stat_line(key, value, line_no)) return;
    auto v = parse_u64(value);
    if (v && starts_with(key, "Lane ") && !last_total_.empty() && parse_u64(key.substr(5))) {
      add("fec-" + last_total_ + "_lane" + key.substr(5), *v, line_no);
      return;
    }
    // A counter: in a --show-fec output, or named as FEC counters are ("corrected_blocks").
    if (v && !key.empty() && key.find(' ') == std::string::npos &&
        (seen_fec_ || key.find("correct") != std::string::npos)) {
      last_total_ = key;
      add("fec-" + key, *v, line_no);
      return;
    }
    if (!bad_) bad_first_ = line_source(imp_.source, line_no) + " " + quote_line(t);
    ++bad_;
  }

  Result<CounterImport> done(const LineSource& lines) {
    finish();
    if (lines.error()) return *lines.error();
    if (evidence_ == 0)
      return make_error(ErrorCode::kParse,
                        "expected `ethtool --show-fec` output (\"FEC parameters for <if>:\", \"Active FEC "
                        "encoding:\", FEC counters), found none" +
                            (bad_ ? "; the first other line: " + bad_first_ : std::string("; the input is empty")),
                        imp_.source);
    if (bad_)
      imp_.gaps.push_back(make_error(ErrorCode::kParse,
                                     std::to_string(bad_) + " line(s) are not --show-fec lines, the first at " +
                                         bad_first_,
                                     imp_.source));
    if (unnamed_) imp_.notes.push_back("the input does not name the netdev: it is called \"netdev\" (give --netdev NAME)");
    return std::move(imp_);
  }

 private:
  const std::string& name() {
    static const std::string kUnnamed = "netdev";
    if (netdev_.empty()) unnamed_ = true;
    return netdev_.empty() ? kUnnamed : netdev_;
  }

  // ethtool 6.18's forms: "corrected_blocks: 123 [ per_lane:  125, 120 ]" and the symbol error
  // histogram "fec_symbol_err_1_to_3: 12 [ per_lane: ... ]" (facts.fec.<netdev>.hist).
  bool read_stat_line(const std::string& key, const std::string& value, size_t line_no) {
    auto stat = parse_fec_stat_value(value);
    if (!stat) return false;
    if (auto bin = parse_fec_hist_bin_name(key)) {
      ++evidence_;
      imp_.facts["fec"][name()]["hist"].push_back(
          fec_hist_bin_json(bin->first, bin->second, stat->total, stat->lanes, line_source(imp_.source, line_no)));
      return true;
    }
    if (stat->lanes.empty() || key.find(' ') != std::string::npos) return false;
    add("fec-" + key, stat->total, line_no);
    for (size_t i = 0; i < stat->lanes.size(); ++i) add("fec-" + key + "_lane" + std::to_string(i), stat->lanes[i], line_no);
    return true;
  }

  void add(const std::string& counter, uint64_t value, size_t line_no) {
    ++evidence_;
    snap_.samples.push_back(
        make_counter(name(), CounterGroup::kEthtoolStats, counter, value, "", line_source(imp_.source, line_no)));
  }

  void finish() {
    last_total_.clear();
    if (snap_.samples.empty()) return;
    const std::string& nd = name();
    PortInfo p;
    p.device = p.netdev = nd;
    merge_port(imp_.ports, p);
    auto [it, fresh] = series_of_.emplace(nd, imp_.series.size());
    if (fresh) imp_.series.emplace_back();
    imp_.series[it->second].push(std::move(snap_));
    snap_ = Snapshot{};
  }

  CounterImport imp_;
  std::string device_, netdev_, last_total_, bad_first_;
  std::map<std::string, size_t> series_of_;
  Snapshot snap_;
  size_t evidence_ = 0, bad_ = 0;
  bool unnamed_ = false, seen_fec_ = false;
};

}  // namespace

std::optional<FecStatValue> parse_fec_stat_value(std::string_view value) {
  std::string v = trim(value);
  size_t open = v.find('[');
  FecStatValue out;
  auto total = parse_u64(trim(v.substr(0, open)));
  if (!total) return std::nullopt;
  out.total = *total;
  if (open == std::string::npos) return out;
  std::string rest = trim(v.substr(open + 1));
  if (!starts_with(rest, "per_lane:") || rest.back() != ']') return std::nullopt;
  rest = rest.substr(9, rest.size() - 10);
  for (auto& part : split(rest, ',')) {
    auto n = parse_u64(trim(part));
    if (!n) return std::nullopt;
    out.lanes.push_back(*n);
  }
  return out;
}

std::optional<std::pair<uint64_t, uint64_t>> parse_fec_hist_bin_name(std::string_view key) {
  std::string k(key);
  for (const char* prefix : {"fec_symbol_err_", "fec_symbols_err_", "fec_bit_err_"}) {
    if (!starts_with(k, prefix)) continue;
    std::string range = k.substr(std::string(prefix).size());
    size_t to = range.find("_to_");
    auto low = parse_u64(range.substr(0, to));
    auto high = to == std::string::npos ? low : parse_u64(range.substr(to + 4));
    if (!low || !high || *high < *low) return std::nullopt;
    return std::make_pair(*low, *high);
  }
  return std::nullopt;
}

nlohmann::json fec_hist_bin_json(uint64_t low, uint64_t high, uint64_t total, const std::vector<uint64_t>& lanes,
                                 const std::string& where) {
  nlohmann::json bin = {{"bin_low", low}, {"bin_high", high}, {"total", total}, {"source", where}};
  if (!lanes.empty()) bin["lanes"] = lanes;
  return bin;
}

Result<CounterImport> import_ethtool_fec(LineSource& lines, const std::string& source, const std::string& device,
                                         const ReadLimits&) {
  Reader r(source, device);
  bool first = true;
  while (auto l = lines.next()) {
    std::string t = trim(*l);
    if (first && !t.empty() && !is_section_title(*l)) {
      first = false;
      if (t[0] == '[' || t[0] == '{') return read_ethtool_fec_json(lines, source, std::string(*l) + "\n");
    }
    r.line(*l, lines.line_no());
  }
  return r.done(lines);
}

Result<CounterImport> import_ethtool_fec(std::string_view text, const std::string& source,
                                         const std::string& device) {
  auto lines = text_line_source(std::string(text));
  return import_ethtool_fec(*lines, source, device, ReadLimits{});
}

}  // namespace fabdiag
