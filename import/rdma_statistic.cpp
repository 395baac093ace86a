#include "import/rdma_statistic.h"

#include "core/text.h"
#include "probes/counters/sysfs_counters.h"

namespace fabdiag {
namespace {

struct Token {
  std::string text;
  size_t line = 0;
};

PortInfo port_of(const std::string& device) {
  PortInfo p;
  p.device = device;
  size_t slash = device.find('/');
  p.ibdev = device.substr(0, slash);
  if (slash != std::string::npos)
    if (auto v = parse_u64(device.substr(slash + 1))) p.port = static_cast<int>(*v);
  p.is_rdma = true;
  return p;
}

void add(CounterImport& imp, Snapshot& snap, const std::string& device, const std::string& name,
         uint64_t value, const std::string& src) {
  PortInfo p = port_of(device);
  merge_port(imp.ports, p);
  snap.samples.push_back(make_counter(device, CounterGroup::kIbHwCounters, name, value, p.ibdev, src));
}

// The text forms: a token stream where "link <dev>" starts a record and name/value pairs follow,
// whatever the line breaks.
size_t read_text(const TextSection& sec, CounterImport& imp, Snapshot& snap) {
  std::vector<Token> tokens;
  size_t line_no = sec.first_line - 1;
  for (const auto& raw : split(sec.text, '\n')) {
    ++line_no;
    for (auto& w : split_ws(raw)) tokens.push_back({w, line_no});
  }
  std::string device;
  size_t records = 0;
  std::vector<size_t> bad;
  for (size_t i = 0; i < tokens.size();) {
    if (tokens[i].text == "link" && i + 1 < tokens.size()) {
      device = tokens[i + 1].text;
      ++records;
      i += 2;
      continue;
    }
    if (device.empty() || i + 1 >= tokens.size()) {
      bad.push_back(tokens[i].line);
      ++i;
      continue;
    }
    auto v = parse_u64(tokens[i + 1].text);
    if (!v || parse_u64(tokens[i].text)) {
      bad.push_back(tokens[i].line);
      ++i;
      continue;
    }
    add(imp, snap, device, tokens[i].text, *v, line_source(imp.source, tokens[i].line));
    i += 2;
  }
  if (!bad.empty())
    snap.gaps.push_back(make_error(ErrorCode::kParse,
                                   std::to_string(bad.size()) + " token(s) are not \"name value\" "
                                   "pairs of a record, first at line " + std::to_string(bad[0]),
                                   imp.source));
  return records;
}

size_t read_json(const TextSection& sec, CounterImport& imp, Snapshot& snap) {
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(sec.text, nullptr, false);
  if (doc.is_discarded() || !doc.is_array()) {
    snap.gaps.push_back(make_error(ErrorCode::kParse, "not a JSON array (rdma -j statistic show)",
                                   line_source(imp.source, sec.first_line)));
    return 0;
  }
  size_t records = 0;
  for (const auto& rec : doc) {
    if (!rec.is_object() || !rec.contains("ifname") || !rec["ifname"].is_string()) continue;
    std::string device = rec["ifname"].get<std::string>();
    if (rec.contains("port") && rec["port"].is_number_unsigned())
      device += "/" + std::to_string(rec["port"].get<unsigned>());
    ++records;
    for (auto it = rec.begin(); it != rec.end(); ++it) {
      if (it.key() == "ifname" || it.key() == "port" || it.key() == "ifindex") continue;
      if (!it->is_number_unsigned()) continue;
      add(imp, snap, device, it.key(), it->get<uint64_t>(), imp.source + " (JSON)");
    }
  }
  return records;
}

}  // namespace

Result<CounterImport> import_rdma_statistic(std::string_view text, const std::string& source) {
  CounterImport imp;
  imp.format = "rdma-statistic";
  imp.source = source;
  imp.series.emplace_back();
  size_t records = 0;
  for (const auto& sec : split_sections(text)) {
    Snapshot snap;
    std::string t = trim(sec.text);
    records += (!t.empty() && t[0] == '[') ? read_json(sec, imp, snap) : read_text(sec, imp, snap);
    for (const auto& g : snap.gaps) imp.gaps.push_back(g);
    snap.gaps.clear();
    if (!snap.samples.empty()) imp.series[0].push_back(std::move(snap));
  }
  if (records == 0)
    return make_error(ErrorCode::kParse, "no \"link <dev>/<port>\" record (not `rdma statistic "
                      "show` output?)", source);
  return imp;
}

}  // namespace fabdiag
