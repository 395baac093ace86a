#include "import/ibnodes.h"

#include <map>
#include <set>

#include "core/text.h"
#include "import/common.h"
#include "import/host_prefix.h"
#include "import/iblinkinfo.h"
#include "import/whole_lines.h"

namespace fabdiag {
namespace {

struct Reader {
  IbNodesImport imp;
  std::set<std::string> guids;
  LineTally other, repeated, tool_errors;
};

void read_line(Reader& r, const std::string& raw, size_t line_no) {
  std::string t = trim(strip_launcher_tags(raw));
  if (t.empty() || starts_with(t, "###") || (t[0] == '#' && t.find("ib") != std::string::npos)) return;
  auto tool_message = [](const std::string& s) {
    return starts_with(s, "ibwarn:") || starts_with(s, "iberror:") || starts_with(s, "ibpanic:");
  };
  // "ibwarn: [pid] ..." would read as a host prefix "ibwarn": tell the tool's messages first.
  HostPrefixed hp = tool_message(t) ? HostPrefixed{} : split_host_prefix(t);
  std::string text = hp.host.empty() ? t : trim(hp.text);
  if (tool_message(text)) {
    r.tool_errors.add(line_no, t);  // ibnetdiscover's own messages, passed through by the scripts' awk
    return;
  }
  auto node = parse_ibnodes_line(text);
  if (!node) {
    r.other.add(line_no, t);
    return;
  }
  node->from_host = hp.host;
  node->line = line_no;
  if (!r.guids.insert(node->guid).second) {  // `ibhosts; ibnodes` pasted together
    r.repeated.add(line_no, t);
    return;
  }
  r.imp.nodes.push_back(std::move(*node));
}

std::string name_of(const IbNode& n) { return "\"" + n.description + "\" (" + n.guid + ")"; }

}  // namespace

std::optional<IbNode> parse_ibnodes_line(std::string_view line) {
  std::string t = trim(line);
  size_t colon = t.find(':');
  if (colon == std::string::npos) return std::nullopt;
  IbNode n;
  n.type = trim(t.substr(0, colon));
  if (n.type != "Ca" && n.type != "Switch" && n.type != "Router") return std::nullopt;
  auto w = split_ws(t.substr(colon + 1));
  if (w.size() < 4 || !starts_with(w[0], "0x") || w[1] != "ports") return std::nullopt;
  auto ports = parse_u64(w[2]);
  size_t open = t.find('"'), close = t.rfind('"');
  if (!ports || *ports > 4096 || open == std::string::npos || close == open) return std::nullopt;
  n.guid = w[0];
  n.ports = static_cast<int>(*ports);
  n.description = t.substr(open + 1, close - open - 1);
  n.host = n.type == "Ca" ? ib_host_of_description(n.description) : "";
  auto rest = split_ws(t.substr(close + 1));
  for (size_t i = 0; i + 1 < rest.size(); ++i)
    if (rest[i] == "lid")
      if (auto lid = parse_u64(rest[i + 1])) n.lid = *lid;
  return n;
}

Result<IbNodesImport> import_ibnodes(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_ibnodes(*lines, source, ReadLimits{});
}

Result<IbNodesImport> import_ibnodes(LineSource& lines, const std::string& source, const ReadLimits&) {
  Reader r;
  r.imp.source = source;
  auto st = read_whole_lines(
      lines, source, [&r](const std::string& l, size_t n) { read_line(r, l, n); },
      [&r] { return !r.imp.nodes.empty(); }, r.imp.gaps);
  if (!st) return st.error();
  if (r.imp.nodes.empty())
    return not_this_format("ibhosts/ibswitches/ibnodes output (\"Ca\t: 0x... ports N \\\"desc\\\"\" lines)", source,
                           r.other);
  add_tally_gap(r.imp.gaps, source, r.other, "line(s) not understood");
  add_tally_gap(r.imp.gaps, source, r.repeated, "line(s) repeat a node GUID already listed (kept once)");
  add_tally_gap(r.imp.gaps, source, r.tool_errors,
                "ibwarn/iberror/ibpanic line(s) of ibnetdiscover: the sweep may have missed nodes");
  return std::move(r.imp);
}

std::vector<Finding> ibnodes_findings(const IbNodesImport& imp) {
  std::vector<Finding> out;
  std::map<std::string, std::vector<const IbNode*>> by_desc;
  for (const auto& n : imp.nodes) by_desc[n.description].push_back(&n);
  for (const auto& n : imp.nodes) {
    const auto& same = by_desc[n.description];
    if (same.size() > 1 && same[0] == &n && !ib_default_description(n.description)) {
      Finding f;
      f.layer = Layer::kPhysical;
      f.code = "ib_node_duplicate_description";
      f.severity = Severity::kWarn;
      f.subject = n.description;
      std::vector<std::string> guids;
      for (const auto* s : same) {
        guids.push_back(s->guid);
        f.evidence.push_back(Evidence::text("node GUID", s->guid, line_source(imp.source, s->line)));
      }
      f.message = std::to_string(same.size()) + " nodes carry the description \"" + n.description + "\" (" +
                  join_prose(guids) + "): anything keyed by the name mixes them up";
      f.action = "Set each node's description (/sys/class/infiniband/<ibdev>/node_desc, or the switch's name)";
      out.push_back(std::move(f));
    }
    if (n.type == "Ca" && ib_default_description(n.description)) {
      Finding f;
      f.layer = Layer::kPhysical;
      f.code = "ib_node_default_description";
      f.severity = Severity::kInfo;
      f.subject = name_of(n);
      f.message = "CA " + name_of(n) + " keeps the vendor's default description: no host name to find it by";
      f.evidence.push_back(Evidence::text("node description", n.description, line_source(imp.source, n.line)));
      f.action = "Have the host write its name into node_desc (rdma-core's rdma-ndd does it at boot)";
      out.push_back(std::move(f));
    }
  }
  return out;
}

nlohmann::json ibnodes_data(const IbNodesImport& imp) {
  nlohmann::json nodes = nlohmann::json::array();
  size_t cas = 0, switches = 0, routers = 0;
  std::set<std::string> hosts;
  for (const auto& n : imp.nodes) {
    nodes.push_back({{"type", n.type}, {"guid", n.guid}, {"ports", n.ports}, {"description", n.description},
                     {"host", n.host}, {"lid", n.lid ? nlohmann::json(*n.lid) : nlohmann::json(nullptr)},
                     {"line", n.line}});
    cas += n.type == "Ca", switches += n.type == "Switch", routers += n.type == "Router";
    if (!n.host.empty()) hosts.insert(n.host);
  }
  return {{"nodes", nodes},
          {"summary", {{"cas", cas}, {"switches", switches}, {"routers", routers}, {"hosts", hosts.size()}}}};
}

}  // namespace fabdiag
