// `ethtool --json [-I] --show-fec` (import/ethtool_fec.h): ethtool's JSON writer (netlink/fec.c,
// fec_show_stats / fec_show_hist_bin) prints one array per command run, each element
// {"ifname", "config": [modes], "active": [mode], "statistics": {...}}. The counters get the
// names of the text form and of the live netlink source ("fec-corrected_blocks_lane0").
#include <map>

#include "core/text.h"
#include "import/ethtool_fec.h"
#include "probes/counters/sysfs_counters.h"

namespace fabdiag {
namespace {

using nlohmann::json;

constexpr size_t kMaxJsonBytes = 64u << 20;

// One JSON document of the paste and the line it starts on.
struct Document {
  std::string text;
  size_t line = 0;
};

std::string modes(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  std::string out;
  if (!j.is_array()) return out;
  for (const auto& m : j)
    if (m.is_string()) out += (out.empty() ? "" : " ") + m.get<std::string>();
  return out;
}

std::vector<uint64_t> lanes_of(const json& j) {
  std::vector<uint64_t> out;
  if (!j.is_object() || !j.contains("lanes") || !j["lanes"].is_array()) return out;
  for (const auto& v : j["lanes"])
    if (v.is_number_unsigned()) out.push_back(v.get<uint64_t>());
  return out;
}

class JsonReader {
 public:
  explicit JsonReader(const std::string& source) {
    imp_.format = "ethtool-fec";
    imp_.source = source;
  }

  void document(const Document& d) {
    json j = json::parse(d.text, nullptr, false);
    if (j.is_discarded()) {
      imp_.gaps.push_back(make_error(ErrorCode::kParse,
                                     "an `ethtool --json --show-fec` document does not parse (cut?): NOT READ, its "
                                     "netdevs are unknown",
                                     line_source(imp_.source, d.line)));
      return;
    }
    if (j.is_object()) j = json::array({j});
    if (!j.is_array()) return;
    for (const auto& dev : j) netdev(dev, line_source(imp_.source, d.line));
  }

  Result<CounterImport> done() {
    if (netdevs_ == 0 && !imp_.gaps.empty()) return imp_.gaps.front();
    if (netdevs_ == 0)
      return make_error(ErrorCode::kParse,
                        "expected `ethtool --json --show-fec` output ([{\"ifname\": ..., \"active\": [...]}]), "
                        "found no document with an \"ifname\"",
                        imp_.source);
    return std::move(imp_);
  }

 private:
  void netdev(const json& dev, const std::string& where) {
    if (!dev.is_object() || !dev.contains("ifname") || !dev["ifname"].is_string()) return;
    ++netdevs_;
    std::string nd = dev["ifname"].get<std::string>();
    PortInfo p;
    p.device = p.netdev = nd;
    merge_port(imp_.ports, p);
    if (dev.contains("config")) imp_.facts["fec"][nd]["configured"] = modes(dev["config"]);
    if (dev.contains("active")) imp_.facts["fec"][nd]["active"] = modes(dev["active"]);
    if (!dev.contains("statistics") || !dev["statistics"].is_object()) return;
    Snapshot snap;
    for (const auto& [name, stat] : dev["statistics"].items()) {
      if (name == "hist") {
        hist(nd, stat, where);
        continue;
      }
      if (!stat.is_object() || !stat.contains("total") || !stat["total"].is_number_unsigned()) continue;
      auto add = [&](const std::string& counter, uint64_t v) {
        snap.samples.push_back(make_counter(nd, CounterGroup::kEthtoolStats, counter, v, "", where));
      };
      add("fec-" + name, stat["total"].get<uint64_t>());
      auto lanes = lanes_of(stat);
      for (size_t i = 0; i < lanes.size(); ++i) add("fec-" + name + "_lane" + std::to_string(i), lanes[i]);
    }
    if (snap.samples.empty()) return;
    auto [it, fresh] = series_of_.emplace(nd, imp_.series.size());
    if (fresh) imp_.series.emplace_back();
    imp_.series[it->second].push(std::move(snap));
  }

  void hist(const std::string& nd, const json& bins, const std::string& where) {
    if (!bins.is_array()) return;
    json& out = imp_.facts["fec"][nd]["hist"];
    out = json::array();  // a later document of the netdev replaces the earlier histogram
    for (const auto& b : bins) {
      if (!b.is_object() || !b.contains("bin_low") || !b.contains("bin_high") || !b.contains("total")) continue;
      if (!b["bin_low"].is_number_unsigned() || !b["bin_high"].is_number_unsigned() ||
          !b["total"].is_number_unsigned())
        continue;
      out.push_back(fec_hist_bin_json(b["bin_low"].get<uint64_t>(), b["bin_high"].get<uint64_t>(),
                                      b["total"].get<uint64_t>(), lanes_of(b), where));
    }
  }

  CounterImport imp_;
  std::map<std::string, size_t> series_of_;
  size_t netdevs_ = 0;
};

}  // namespace

Result<CounterImport> read_ethtool_fec_json(LineSource& lines, const std::string& source, std::string head) {
  JsonReader r(source);
  Document doc{std::move(head), lines.line_no()};
  size_t bytes = doc.text.size();
  while (auto raw = lines.next()) {
    bytes += raw->size() + 1;
    if (bytes > kMaxJsonBytes)
      return make_error(ErrorCode::kParse, "`ethtool --json --show-fec` input larger than 64 MiB: not read", source);
    if (is_section_title(*raw)) continue;
    if (!raw->empty() && ((*raw)[0] == '[' || (*raw)[0] == '{') && !trim(doc.text).empty()) {
      r.document(doc);
      doc = Document{"", lines.line_no()};
    }
    doc.text.append(raw->data(), raw->size());
    doc.text += '\n';
  }
  if (lines.error()) return *lines.error();
  if (!trim(doc.text).empty()) r.document(doc);
  return r.done();
}

bool is_ethtool_fec_json_line(std::string_view line) {
  std::string t = trim(line);
  if (starts_with(t, "\"corrected_blocks\": {") || starts_with(t, "\"uncorrectable_blocks\": {")) return true;
  if (!starts_with(t, "\"active\": [") && !starts_with(t, "\"config\": [")) return false;
  size_t open = t.find('['), close = t.find(']');
  if (close == std::string::npos) return false;
  std::string inner = t.substr(open + 1, close - open - 1);
  size_t n = 0;
  for (auto& m : split(inner, ',')) {
    std::string mode = trim(m);
    static const char* kModes[] = {"\"None\"", "\"Off\"", "\"Auto\"", "\"RS\"", "\"BaseR\"", "\"LLRS\""};
    bool known = false;
    for (const char* k : kModes) known = known || mode == k;
    if (!known) return false;
    ++n;
  }
  return n > 0;
}

}  // namespace fabdiag
