// `lldpctl -f json` (import/lldpctl.h): lldpd's JSON writer turns a list of one into an
// object, so every list here may be an object or an array.
#include "core/text.h"
#include "import/lldpctl.h"

namespace fabdiag {
namespace {

using nlohmann::json;

// An object or an array of them, as a list.
std::vector<const json*> items(const json& j) {
  std::vector<const json*> out;
  if (j.is_array())
    for (const auto& e : j) out.push_back(&e);
  else if (!j.is_null())
    out.push_back(&j);
  return out;
}

std::string str(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return "";
  const json& v = j.at(key);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return v.dump();
  return "";
}

std::optional<int> num(const json& j, const char* key) {
  auto v = parse_i64(str(j, key));
  if (!v || *v < 0 || *v > 1000000) return std::nullopt;
  return static_cast<int>(*v);
}

std::optional<bool> flag(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return std::nullopt;
  const json& v = j.at(key);
  if (v.is_boolean()) return v.get<bool>();
  std::string s = str(j, key);
  if (s == "yes" || s == "true") return true;
  if (s == "no" || s == "false") return false;
  return std::nullopt;
}

// "chassis": {"switch01": {...}} (a system name) or {"id": {...}, ...} (none).
void read_chassis(const json& c, LldpNeighbor& n) {
  const json* body = &c;
  if (c.is_object() && !c.contains("id") && c.size() == 1 && c.begin().value().is_object()) {
    n.sysname = c.begin().key();
    body = &c.begin().value();
  }
  const json& b = *body;
  if (b.contains("id")) {
    n.chassis_id_type = str(b.at("id"), "type");
    n.chassis_id = str(b.at("id"), "value");
  }
  if (n.sysname.empty()) n.sysname = str(b, "name");
  n.sysdescr = str(b, "descr");
  if (b.contains("mgmt-ip"))
    for (const json* ip : items(b.at("mgmt-ip")))
      if (ip->is_string()) n.mgmt_ips.push_back(ip->get<std::string>());
  if (b.contains("capability"))
    for (const json* cap : items(b.at("capability")))
      if (flag(*cap, "enabled").value_or(false)) n.capabilities.push_back(str(*cap, "type"));
}

void read_port(const json& p, LldpNeighbor& n) {
  if (p.contains("id")) {
    n.port_id_type = str(p.at("id"), "type");
    n.port_id = str(p.at("id"), "value");
  }
  n.port_descr = str(p, "descr");
  n.ttl_s = num(p, "ttl");
  n.mfs = num(p, "mfs");
  if (p.contains("auto-negotiation")) {
    const json& a = p.at("auto-negotiation");
    n.autoneg_supported = flag(a, "supported");
    n.autoneg_enabled = flag(a, "enabled");
    n.mau_oper_type = str(a, "current");
  }
}

LldpNeighbor read_interface(const std::string& name, const json& i) {
  LldpNeighbor n;
  n.local_port = name;
  n.via = str(i, "via");
  n.age = str(i, "age");
  if (i.contains("chassis")) read_chassis(i.at("chassis"), n);
  if (i.contains("port") && i.at("port").is_object()) {
    read_port(i.at("port"), n);
    if (n.ttl_s == std::nullopt) n.ttl_s = num(i.at("port"), "ttl");
  }
  if (!n.ttl_s) n.ttl_s = num(i, "ttl");
  if (i.contains("vlan"))
    for (const json* v : items(i.at("vlan"))) {
      auto id = num(*v, "vlan-id");
      if (!id) continue;
      n.vlans.push_back(*id);
      if (flag(*v, "pvid").value_or(false)) n.pvid = *id;
    }
  return n;
}

}  // namespace

Result<LldpImport> parse_lldpctl_json(const std::string& text, const std::string& source) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded())
    return make_error(ErrorCode::kParse, "the JSON does not parse (cut or not lldpctl -f json output)", source);
  if (!doc.is_object() || !doc.contains("lldp") || !doc.at("lldp").is_object())
    return make_error(ErrorCode::kParse, "expected lldpctl -f json output (an \"lldp\" object), found none", source);
  LldpImport imp;
  imp.source = source;
  imp.format = "json";
  const json& lldp = doc.at("lldp");
  if (!lldp.contains("interface")) return imp;  // no neighbour at all
  for (const json* entry : items(lldp.at("interface"))) {
    if (!entry->is_object()) continue;
    for (auto it = entry->begin(); it != entry->end(); ++it) {
      if (!it.value().is_object()) {
        imp.gaps.push_back(make_error(ErrorCode::kParse, "interface \"" + it.key() + "\" is not an object: NOT READ", source));
        continue;
      }
      imp.neighbors.push_back(read_interface(it.key(), it.value()));
    }
  }
  return imp;
}

}  // namespace fabdiag
