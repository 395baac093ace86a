// The host -> leaf -> spine view of an ibnetdiscover graph (import/ibnetdiscover.h).
#include <algorithm>
#include <set>

#include "core/text.h"
#include "import/fabric_topology.h"
#include "import/ibnetdiscover.h"

namespace fabdiag {

namespace {

// The switch's name: its description ("leaf01"; the name inside NVIDIA's "MF0;leaf01:MQM9700/U1"),
// else its GUID.
std::string switch_name(const IbnetImport& imp, const std::string& guid) {
  const IbnetNode* n = imp.node(guid);
  std::string d = n ? trim(n->desc) : "";
  if (d.empty()) return guid;
  auto semi = d.find(';');
  auto colon = semi == std::string::npos ? std::string::npos : d.find(':', semi);
  if (colon != std::string::npos && colon > semi + 1) return d.substr(semi + 1, colon - semi - 1);
  return d;
}

bool is_switch(const IbnetImport& imp, const std::string& guid) {
  const IbnetNode* n = imp.node(guid);
  return n && n->type == "switch";
}

}  // namespace

Result<FabricTopology> read_ibnetdiscover_topology(std::string_view text, const std::string& source) {
  auto imp = import_ibnetdiscover(text, source);
  if (!imp) return imp.error();
  FabricTopology t;
  t.source = source;
  t.format = "ibnetdiscover";
  std::set<std::string> leaf_guids;
  for (const auto& l : imp->links) {  // CA <-> switch: the host's leaf
    bool a_sw = is_switch(*imp, l.a.guid), b_sw = is_switch(*imp, l.b.guid);
    if (a_sw == b_sw) continue;
    const IbnetEnd& ca = a_sw ? l.b : l.a;
    const IbnetEnd& sw = a_sw ? l.a : l.b;
    const IbnetNode* n = imp->node(ca.guid);
    auto words = split_ws(n ? n->desc : "");
    std::string host = words.empty() ? ca.guid : words[0];
    std::string leaf = switch_name(*imp, sw.guid);
    auto [it, fresh] = t.leaf_of_host.emplace(host, leaf);
    if (!fresh && it->second != leaf)
      t.notes.push_back("host " + host + " is cabled to " + it->second + " and " + leaf + " (multi-rail): kept " + it->second);
    leaf_guids.insert(sw.guid);
  }
  for (const auto& l : imp->links) {  // leaf <-> other switch: the leaf's spine
    if (!is_switch(*imp, l.a.guid) || !is_switch(*imp, l.b.guid)) continue;
    for (const auto& [leaf, other] : {std::pair{l.a.guid, l.b.guid}, std::pair{l.b.guid, l.a.guid}}) {
      if (!leaf_guids.count(leaf) || leaf_guids.count(other)) continue;
      auto& spines = t.spines_of_leaf[switch_name(*imp, leaf)];
      std::string sp = switch_name(*imp, other);
      if (std::find(spines.begin(), spines.end(), sp) == spines.end()) spines.push_back(sp);
    }
  }
  if (t.leaf_of_host.empty()) return make_error(ErrorCode::kParse, "no host (CA) is cabled to a switch", source);
  return t;
}

}  // namespace fabdiag
