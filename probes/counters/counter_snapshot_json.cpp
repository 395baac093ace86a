#include "probes/counters/counter_snapshot_json.h"

#include <nlohmann/json.hpp>

#include "core/envelope.h"

namespace fabdiag {

nlohmann::json snapshot_to_json(const Snapshot& s) {
  nlohmann::json j;
  j["taken_at"] = s.taken_at;
  j["monotonic_s"] = s.monotonic_s;
  j["ports"] = s.ports;
  nlohmann::json samples = nlohmann::json::array();
  for (const auto& c : s.samples)
    samples.push_back({{"device", c.device},
                       {"group", to_string(c.group)},
                       {"name", c.name},
                       {"canonical", c.canonical},
                       {"category", to_string(c.category)},
                       {"rule", to_string(c.rule)},
                       {"unit", c.unit},
                       {"raw", c.raw},
                       {"scale", c.scale},
                       {"value", c.value},
                       {"width_bits", c.width_bits},
                       {"wraps", c.wraps},
                       {"saturated", c.saturated},
                       {"source", c.source}});
  j["samples"] = samples;
  j["links"] = s.links;
  j["optics"] = s.optics;
  j["gaps"] = nlohmann::json::array();
  for (const auto& g : s.gaps) j["gaps"].push_back(g);
  return j;
}

Result<Snapshot> snapshot_from_json(const nlohmann::json& j) {
  try {
    Snapshot s;
    s.taken_at = j.at("taken_at").get<std::string>();
    s.monotonic_s = j.at("monotonic_s").get<double>();
    for (const auto& p : j.at("ports")) {
      PortInfo port;
      port.device = p.value("device", "");
      port.ibdev = p.value("ibdev", "");
      port.port = p.value("port", 0);
      port.netdev = p.value("netdev", "");
      port.driver = p.value("driver", "");
      port.link_layer = p.value("link_layer", "");
      port.state = p.value("state", "");
      port.phys_state = p.value("phys_state", "");
      port.rate = p.value("rate", "");
      port.is_rdma = !port.ibdev.empty();
      s.ports.push_back(std::move(port));
    }
    for (const auto& x : j.at("samples")) {
      Counter c;
      c.device = x.at("device").get<std::string>();
      auto group = parse_counter_group(x.at("group").get<std::string>());
      if (!group) return make_error(ErrorCode::kParse, "unknown counter group " + x.at("group").dump());
      c.group = *group;
      c.name = x.at("name").get<std::string>();
      c.canonical = x.value("canonical", c.name);
      c.category = parse_counter_category(x.value("category", "unknown")).value_or(CounterCategory::kUnknown);
      c.rule = parse_counter_rule(x.value("rule", "unknown")).value_or(CounterRule::kUnknown);
      c.unit = x.value("unit", "count");
      c.raw = x.at("raw").get<uint64_t>();
      c.scale = x.value("scale", uint64_t{1});
      c.value = x.at("value").get<uint64_t>();
      c.width_bits = x.value("width_bits", 64u);
      c.wraps = x.value("wraps", false);
      c.saturated = x.value("saturated", false);
      c.source = x.value("source", "");
      s.samples.push_back(std::move(c));
    }
    for (const auto& l : j.value("links", nlohmann::json::array())) s.links.push_back(l.get<LinkFacts>());
    for (const auto& m : j.value("optics", nlohmann::json::array()))
      s.optics.push_back(m.get<ModuleDiagnostics>());
    for (const auto& g : j.value("gaps", nlohmann::json::array()))
      s.gaps.push_back(make_error(parse_error_code(g.value("code", "internal")), g.value("message", ""), g.value("source", "")));
    return s;
  } catch (const nlohmann::json::exception& e) {
    return make_error(ErrorCode::kParse, std::string("malformed counter snapshot: ") + e.what());
  }
}

}  // namespace fabdiag
