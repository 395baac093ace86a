#include "import/ibqueryerrors.h"

#include <map>
#include <set>

#include "core/text.h"
#include "probes/counters/sysfs_counters.h"

namespace fabdiag {
namespace {

// 'Errors for 0x0000000000004 "MF0;switch01:SX6036/U1"' -> the description, else the GUID.
std::string node_name(const std::string& line) {
  size_t q1 = line.find('"');
  size_t q2 = q1 == std::string::npos ? std::string::npos : line.rfind('"');
  if (q1 != std::string::npos && q2 > q1) return line.substr(q1 + 1, q2 - q1 - 1);
  auto words = split_ws(line.substr(10));
  return words.empty() ? std::string("unnamed node") : words[0];
}

struct Item {
  std::string name;
  uint64_t value = 0;
};

// "[SymbolErrorCounter == 65535] [LinkDownedCounter == 2]" -> items; false when malformed.
bool parse_items(const std::string& text, std::vector<Item>& items) {
  size_t pos = 0;
  while ((pos = text.find('[', pos)) != std::string::npos) {
    size_t end = text.find(']', pos);
    if (end == std::string::npos) return false;
    std::string inner = text.substr(pos + 1, end - pos - 1);
    size_t eq = inner.find("==");
    if (eq == std::string::npos) return false;
    auto words = split_ws(inner.substr(eq + 2));
    auto v = words.empty() ? std::nullopt : parse_u64(words[0]);
    if (!v) return false;
    items.push_back({trim(inner.substr(0, eq)), *v});
    pos = end + 1;
  }
  return !items.empty();
}

void summary_numbers(const std::string& line, nlohmann::json& summary) {
  auto words = split_ws(line);
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    auto v = parse_u64(words[i]);
    if (!v) continue;
    std::string next = words[i + 1];
    std::string after = i + 2 < words.size() ? words[i + 2] : "";
    if (next == "nodes" && after.rfind("checked", 0) == 0) summary["nodes_checked"] = *v;
    else if (next == "bad") summary["bad_nodes"] = *v;
    else if (next == "ports" && after.rfind("checked", 0) == 0) summary["ports_checked"] = *v;
    else if (next == "ports" && after == "have") summary["ports_beyond_threshold"] = *v;
  }
}

}  // namespace

Result<CounterImport> import_ibqueryerrors(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_ibqueryerrors(*lines, source, ReadLimits{});
}

namespace {

// The counters of a "port ALL" line of a node that has no per-port line in the input: the only
// data there is about that node, so its sum is judged as the node's "all ports" device.
void add_node_sums(CounterImport& imp, const nlohmann::json& aggregates, const std::set<std::string>& nodes_with_ports,
                   const std::map<std::string, size_t>& all_line, const std::string& source) {
  for (const auto& [node, items] : aggregates.items()) {
    if (nodes_with_ports.count(node)) continue;
    PortInfo p;
    p.device = node + " all ports";
    p.ibdev = node;
    p.port = 0;
    p.is_rdma = true;
    p.link_layer = "InfiniBand";
    merge_port(imp.ports, p);
    std::string src = line_source(source, all_line.at(node)) + " (port ALL: the node's sum over its ports)";
    for (const auto& [name, v] : items.items()) {
      uint64_t value = v.get<uint64_t>();
      imp.series[0].back().samples.push_back(
          make_counter(p.device, CounterGroup::kIbPortCounters, name, value, "", src, value > 0xFFFFFFFFull));
    }
  }
}

// The gaps, facts and notes once every line is read; a node known only by its "port ALL" sum
// becomes a device (add_node_sums).
void finish_import(CounterImport& imp, const LineTally& bad, const nlohmann::json& aggregates,
                   const nlohmann::json& summary, const std::set<std::string>& nodes_with_ports,
                   const std::map<std::string, size_t>& all_line, const std::string& source) {
  if (bad.count)
    imp.gaps.push_back(make_error(ErrorCode::kParse,
                                  std::to_string(bad.count) + " line(s) not understood, first at "
                                  "line " + std::to_string(bad.first),
                                  source));
  if (!aggregates.empty()) {
    imp.facts["aggregates"] = aggregates;
    imp.notes.push_back("\"port ALL\" lines are per-node sums, not ports: kept under "
                        "facts.aggregates, never added to a port; a node with no per-port line is judged "
                        "on its sum, as the device \"<node> all ports\"");
    add_node_sums(imp, aggregates, nodes_with_ports, all_line, source);
  }
  if (!summary.empty()) imp.facts["summary"] = summary;
  imp.notes.push_back("ibqueryerrors prints only counters beyond its thresholds: the others are "
                      "unknown here, not zero");
}

}  // namespace

Result<CounterImport> import_ibqueryerrors(LineSource& lines, const std::string& source, const ReadLimits&) {
  CounterImport imp;
  imp.format = "ibqueryerrors";
  imp.source = source;
  imp.series.emplace_back();
  imp.series[0].push_empty();  // one snapshot; "###" sections add later ones
  nlohmann::json aggregates = nlohmann::json::object();
  nlohmann::json summary = nlohmann::json::object();
  std::string node;
  std::set<std::string> nodes_with_ports;
  std::map<std::string, size_t> all_line;
  size_t blocks = 0, guid_lines = 0, line_no = 0;
  LineTally bad;
  bool section_used = false;
  while (auto raw = lines.next()) {
    line_no = lines.line_no();
    std::string line = trim(*raw);
    if (line.empty()) continue;
    if (starts_with(line, "###")) {  // a later run
      if (section_used) imp.series[0].push_empty();
      section_used = false;
      continue;
    }
    if (starts_with(line, "##")) {
      summary_numbers(line.substr(2), summary);
      continue;
    }
    if (starts_with(line, "Errors for")) {
      node = node_name(line);
      ++blocks;
      continue;
    }
    size_t colon = line.find(':');
    auto words = split_ws(line.substr(0, colon == std::string::npos ? line.size() : colon));
    std::vector<Item> items;
    // "GUID 0x... port 5: [...]" outside an "Errors for" block (a paste of the lines alone):
    // the GUID names the node.
    std::string line_node = node;
    if (line_node.empty() && words.size() == 4 && words[0] == "GUID") line_node = words[1];
    if (line_node.empty() || colon == std::string::npos || words.size() < 2 ||
        words[words.size() - 2] != "port" || !parse_items(line.substr(colon + 1), items)) {
      bad.add(line_no, line);
      continue;
    }
    if (words[0] == "GUID") ++guid_lines;
    const std::string& port = words.back();
    if (port == "ALL") {  // the node's sum over its ports: not a port
      for (const auto& it : items) aggregates[line_node][it.name] = it.value;
      all_line.emplace(line_node, line_no);
      continue;
    }
    auto pnum = parse_u64(port);
    if (!pnum) {
      bad.add(line_no, line);
      continue;
    }
    nodes_with_ports.insert(line_node);
    PortInfo p;
    p.device = line_node + " port " + port;
    p.ibdev = line_node;
    p.port = static_cast<int>(*pnum);
    p.is_rdma = true;
    p.link_layer = "InfiniBand";
    merge_port(imp.ports, p);
    std::string src = line_source(source, line_no);
    for (const auto& it : items)
      imp.series[0].back().samples.push_back(make_counter(p.device, CounterGroup::kIbPortCounters,
                                                          it.name, it.value, "", src,
                                                          it.value > 0xFFFFFFFFull));
    section_used = true;
  }
  if (lines.error()) return *lines.error();
  if (blocks == 0 && summary.empty() && guid_lines == 0)
    return not_this_format("ibqueryerrors output (\"Errors for <GUID> \"<node>\"\" blocks, a \"## Summary\")",
                           source, bad);
  finish_import(imp, bad, aggregates, summary, nodes_with_ports, all_line, source);
  return imp;
}

}  // namespace fabdiag
