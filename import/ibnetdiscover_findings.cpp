// The graph, findings and JSON data of an ibnetdiscover import (import/ibnetdiscover.h;
// docs/fabric.md#ibnetdiscover-findings, #ibnetdiscover-graph).
#include <map>

#include "core/text.h"
#include "import/common.h"
#include "import/ibnetdiscover.h"

namespace fabdiag {
namespace {

std::string type_of(const IbnetImport& imp, const std::string& guid) {
  const IbnetNode* n = imp.node(guid);
  return n ? n->type : "";
}

std::string desc_of(const IbnetImport& imp, const std::string& guid) {
  const IbnetNode* n = imp.node(guid);
  return n && !n->desc.empty() ? n->desc : guid;
}

// "switch-switch", "switch-ca", or the two types joined.
std::string kind_of(const IbnetImport& imp, const IbnetLink& l) {
  std::string a = type_of(imp, l.a.guid), b = type_of(imp, l.b.guid);
  if (a == "switch" && b == "switch") return "switch-switch";
  if ((a == "switch" && b == "ca") || (a == "ca" && b == "switch")) return "switch-ca";
  return a + "-" + b;
}

// The width and speed most links of one kind have: each only when more than half agree.
struct Majority {
  uint32_t lanes = 0;
  std::string speed;
};

std::map<std::string, Majority> majorities(const IbnetImport& imp) {
  std::map<std::string, std::map<uint32_t, size_t>> lanes;
  std::map<std::string, std::map<std::string, size_t>> speeds;
  std::map<std::string, size_t> total;
  for (const auto& l : imp.links) {
    if (l.lanes == 0) continue;
    std::string k = kind_of(imp, l);
    ++lanes[k][l.lanes];
    ++speeds[k][l.speed];
    ++total[k];
  }
  std::map<std::string, Majority> out;
  for (const auto& [k, n] : total) {
    Majority m;
    for (const auto& [v, c] : lanes[k])
      if (c * 2 > n) m.lanes = v;
    for (const auto& [v, c] : speeds[k])
      if (c * 2 > n) m.speed = v;
    out[k] = m;
  }
  return out;
}

std::string end_text(const IbnetImport& imp, const IbnetEnd& e) {
  return "\"" + desc_of(imp, e.guid) + "\" (" + e.guid + ") port " + std::to_string(e.port);
}

nlohmann::json end_json(const IbnetImport& imp, const IbnetEnd& e) {
  const IbnetNode* n = imp.node(e.guid);
  return {{"guid", e.guid}, {"type", n ? n->type : ""}, {"desc", n ? n->desc : ""}, {"port", e.port}};
}

nlohmann::json lid_json(const IbnetNode& n) { return n.lid ? nlohmann::json(*n.lid) : nlohmann::json(nullptr); }

// switch -> its CAs and its switch neighbours.
nlohmann::json switch_json(const IbnetImport& imp, const IbnetNode& sw) {
  nlohmann::json hosts = nlohmann::json::array();
  std::map<std::string, std::vector<uint32_t>> up;
  for (const auto& l : imp.links) {
    const IbnetEnd* self = l.a.guid == sw.guid ? &l.a : l.b.guid == sw.guid ? &l.b : nullptr;
    if (!self) continue;
    const IbnetEnd& peer = self == &l.a ? l.b : l.a;
    std::string t = type_of(imp, peer.guid);
    if (t == "switch") up[peer.guid].push_back(self->port);
    else hosts.push_back({{"guid", peer.guid}, {"desc", desc_of(imp, peer.guid)}, {"port", self->port}, {"peer_port", peer.port}});
  }
  nlohmann::json uplinks = nlohmann::json::array();
  for (const auto& [g, ports] : up)
    uplinks.push_back({{"guid", g}, {"desc", desc_of(imp, g)}, {"links", ports.size()}, {"ports", ports}});
  std::string role = !hosts.empty() ? "leaf" : !uplinks.empty() ? "spine" : "isolated";
  return {{"guid", sw.guid}, {"desc", sw.desc}, {"lid", lid_json(sw)}, {"ports", sw.ports}, {"role", role},
          {"hcas", hosts}, {"uplinks", uplinks}};
}

}  // namespace

std::vector<Finding> ibnetdiscover_findings(const IbnetImport& imp) {
  std::vector<Finding> out;
  auto maj = majorities(imp);
  for (const auto& l : imp.links) {
    if (l.lanes == 0) continue;
    std::string k = kind_of(imp, l);
    const Majority& m = maj[k];
    bool narrow = m.lanes && l.lanes < m.lanes;
    bool slow = !m.speed.empty() && ib_speed_rank(l.speed) < ib_speed_rank(m.speed);
    if (!narrow && !slow) continue;
    std::string src = line_source(imp.source, l.line);
    std::string have = std::to_string(l.lanes) + "x" + l.speed;
    std::string want = (m.lanes ? std::to_string(m.lanes) : std::string("?")) + "x" + (m.speed.empty() ? "?" : m.speed);
    Finding f;
    f.severity = Severity::kWarn;
    f.layer = Layer::kPhysical;
    f.code = "ibnetdiscover_link_degraded";
    f.subject = desc_of(imp, l.a.guid) + "/" + std::to_string(l.a.port) + "<->" + desc_of(imp, l.b.guid) + "/" +
                std::to_string(l.b.port);
    f.message = "The " + k + " link " + end_text(imp, l.a) + " <-> " + end_text(imp, l.b) + " runs at " + have +
                " where most " + k + " links run at " + want + (narrow ? ": lanes are down" : ": the speed fell back");
    if (narrow) f.evidence.push_back(Evidence::number("width", l.lanes, "lanes", src).expect(m.lanes, std::to_string(m.lanes) + "x (majority)"));
    if (slow) f.evidence.push_back(Evidence::text("speed", l.speed, src).expect(m.speed + " (majority)"));
    f.action = "Reseat or replace the cable between both ends; check the port's error counters (ibqueryerrors, "
               "perfquery) and the module (mlxlink)";
    out.push_back(std::move(f));
  }
  return out;
}

nlohmann::json ibnetdiscover_data(const IbnetImport& imp) {
  nlohmann::json switches = nlohmann::json::array(), cas = nlohmann::json::array(), links = nlohmann::json::array();
  for (const auto& n : imp.nodes) {
    if (n.type == "switch") {
      switches.push_back(switch_json(imp, n));
      continue;
    }
    nlohmann::json sw = nlohmann::json::array();
    for (const auto& l : imp.links) {
      if (l.a.guid == n.guid && type_of(imp, l.b.guid) == "switch") sw.push_back({{"guid", l.b.guid}, {"port", l.b.port}, {"local_port", l.a.port}});
      if (l.b.guid == n.guid && type_of(imp, l.a.guid) == "switch") sw.push_back({{"guid", l.a.guid}, {"port", l.a.port}, {"local_port", l.b.port}});
    }
    cas.push_back({{"guid", n.guid}, {"type", n.type}, {"desc", n.desc}, {"lid", lid_json(n)}, {"switches", sw}});
  }
  for (const auto& l : imp.links)
    links.push_back({{"a", end_json(imp, l.a)},
                     {"b", end_json(imp, l.b)},
                     {"kind", kind_of(imp, l)},
                     {"lanes", l.lanes ? nlohmann::json(l.lanes) : nlohmann::json(nullptr)},
                     {"speed", l.speed.empty() ? nlohmann::json(nullptr) : nlohmann::json(l.speed)},
                     {"line", l.line}});
  nlohmann::json majority = nlohmann::json::object();
  for (const auto& [k, m] : majorities(imp))
    majority[k] = {{"lanes", m.lanes ? nlohmann::json(m.lanes) : nlohmann::json(nullptr)},
                   {"speed", m.speed.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.speed)}};
  return {{"format", imp.format}, {"switches", switches}, {"cas", cas}, {"links", links}, {"majority", majority}};
}

}  // namespace fabdiag
