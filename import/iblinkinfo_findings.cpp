// Findings and JSON data of an iblinkinfo import (import/iblinkinfo.h; docs/fabric.md#iblinkinfo).
#include <algorithm>
#include <map>
#include <set>

#include "core/text.h"
#include "import/common.h"
#include "import/iblinkinfo.h"

namespace fabdiag {
namespace {

constexpr double kEps = 0.01;

// "4X" -> 4; 0 when not a width.
int lanes(const std::string& width) {
  auto n = parse_u64(width.substr(0, width.find_first_of("xX")));
  return n ? static_cast<int>(*n) : 0;
}

std::string gbps(double v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s += '0';
  return s;
}

// "4X 5.0 Gbps (DDR, 20 Gb/s)"
std::string rate_text(const std::string& width, double lane, const std::string& speed_text) {
  std::string gen = ib_speed_generation(lane, speed_text);
  std::string out = width + " " + gbps(lane) + " Gbps";
  std::vector<std::string> extra;
  if (!gen.empty()) extra.push_back(gen);
  if (int n = lanes(width)) extra.push_back(gbps(lane * n) + " Gb/s");
  return extra.empty() ? out : out + " (" + join(extra, ", ") + ")";
}

// The fastest per-lane rate and the widest width of the active ports of one node.
struct Best {
  double lane = 0;
  int lanes = 0;
  std::string width, speed_text;
};

Best best_of(const IbLinkInfoImport& imp, const IbLinkNode& n) {
  Best b;
  for (size_t i : n.ports) {
    const auto& p = imp.ports[i];
    if (p.state != "Active" || !p.lane_gbps) continue;
    if (*p.lane_gbps > b.lane) {
      b.lane = *p.lane_gbps;
      b.speed_text = p.speed_text;
    }
    if (lanes(p.width) > b.lanes) {
      b.lanes = lanes(p.width);
      b.width = p.width;
    }
  }
  return b;
}

std::string port_name(const IbLinkNode& n, const IbLinkPort& p) {
  return (n.description.empty() ? n.guid : n.description) + " port " + std::to_string(p.port);
}

Finding below_switch(const IbLinkInfoImport& imp, const IbLinkNode& n, const IbLinkPort& p, const Best& b) {
  std::string host = ib_host_of_description(p.peer);
  std::string src = line_source(imp.source, p.line);
  double lane = p.lane_gbps.value_or(0);
  bool slower = lane + kEps < b.lane, narrower = lanes(p.width) < b.lanes;
  Finding f;
  bool unnamed = ib_default_description(p.peer);
  f.severity = unnamed ? Severity::kInfo : Severity::kWarn;
  f.layer = Layer::kPhysical;
  f.code = "ib_link_below_switch";
  f.subject = port_name(n, p) + " <-> " + (p.peer.empty() ? "(no name)" : p.peer);
  std::string what = "\"" + p.peer + "\" links to " + port_name(n, p) + " at " + rate_text(p.width, lane, p.speed_text);
  if (slower || narrower)
    what += ", but the switch's fastest active links run " +
            rate_text(b.width.empty() ? p.width : b.width, b.lane, b.speed_text);
  if (!p.max_msg.empty()) what += " (iblinkinfo: \"" + p.max_msg + "\")";
  std::string who = host.empty() ? "\"" + p.peer + "\"" : host;
  if (unnamed) {
    f.message = what + ": the far end is an HCA with its default description, whose own capability this "
                "output does not show (older HCAs run SDR/DDR)";
    f.action = "Check that HCA's model and firmware (ibstat on it) before suspecting the link";
  } else {
    f.message = what + ": the link to " + who + " trained below the switch's capability";
    f.action = "Reseat or replace the cable/blade connection of " + who + ", check LinkSpeedEnabled/LinkWidthEnabled "
               "on both ends (ibportstate " + std::to_string(p.lid) + " " +
               std::to_string(p.port) + "), then run iblinkinfo again";
  }
  f.evidence.push_back(Evidence::number("lane_speed", lane, "Gb/s", src)
                           .expect(b.lane, ">= " + gbps(b.lane) + " Gb/s per lane (the switch's fastest active link)"));
  if (narrower)
    f.evidence.push_back(Evidence::number("link_width", lanes(p.width), "lanes", src)
                             .expect(b.lanes, ">= " + std::to_string(b.lanes) + " lanes (the switch's widest active link)"));
  if (!host.empty()) f.evidence.push_back(Evidence::text("host", host, src));
  return f;
}

Finding not_active(const IbLinkInfoImport& imp, const IbLinkNode& n, const IbLinkPort& p) {
  Finding f;
  f.severity = Severity::kWarn;
  f.layer = Layer::kPhysical;
  f.code = "ib_port_not_active";
  f.subject = port_name(n, p) + (p.peer.empty() ? "" : " <-> " + p.peer);
  f.message = port_name(n, p) + " has physical link (" + p.phys_state + ") but is " + p.state +
              ", not Active: the subnet manager has not brought it up, no traffic passes";
  f.evidence.push_back(Evidence::text("state", p.state + "/" + p.phys_state, line_source(imp.source, p.line))
                           .expect("Active/LinkUp"));
  f.action = "Check that a subnet manager runs and sees this port (sminfo, the opensm log)";
  return f;
}

Finding old_generation(const IbLinkInfoImport& imp, const IbLinkNode& n, const Best& b, size_t active) {
  Finding f;
  f.severity = Severity::kInfo;
  f.layer = Layer::kPhysical;
  f.code = "ib_switch_old_generation";
  f.subject = n.description.empty() ? n.guid : n.description;
  f.message = "All " + std::to_string(active) + " active links of " + f.subject + " run at most " +
              rate_text(b.width, b.lane, b.speed_text) + ": the limit of that switch generation, not a fault";
  f.evidence.push_back(Evidence::number("fastest_lane_speed", b.lane, "Gb/s", line_source(imp.source, n.line)));
  f.action = "None; hosts on this plane get at most that rate";
  return f;
}

}  // namespace

std::vector<Finding> iblinkinfo_findings(const IbLinkInfoImport& imp) {
  std::vector<Finding> out;
  for (const auto& n : imp.nodes) {
    Best b = best_of(imp, n);
    bool compare = n.type != "CA";  // a CA's ports are not one switch's capability
    size_t active = 0;
    for (size_t i : n.ports) {
      const auto& p = imp.ports[i];
      if (p.up() && p.state != "Active" && p.phys_state == "LinkUp") out.push_back(not_active(imp, n, p));
      if (p.state != "Active" || !p.lane_gbps) continue;
      ++active;
      bool below = compare && (*p.lane_gbps + kEps < b.lane || lanes(p.width) < b.lanes);
      if (below || p.max_msg.find("Could be") != std::string::npos) out.push_back(below_switch(imp, n, p, b));
    }
    if (n.type == "Switch" && active && b.lane <= 5.0 + kEps) out.push_back(old_generation(imp, n, b, active));
  }
  return out;
}

nlohmann::json iblinkinfo_data(const IbLinkInfoImport& imp) {
  nlohmann::json nodes = nlohmann::json::array(), links = nlohmann::json::array();
  std::set<std::string> hosts;
  std::map<std::string, size_t> host_links_by_gen;
  size_t active_links = 0, down_ports = 0;
  for (const auto& n : imp.nodes) {
    Best b = best_of(imp, n);
    size_t active = 0, down = 0;
    for (size_t i : n.ports) {
      const auto& p = imp.ports[i];
      if (!p.up()) {
        ++down;
        continue;
      }
      ++active;
      std::string host = ib_host_of_description(p.peer);
      std::string gen = p.lane_gbps ? ib_speed_generation(*p.lane_gbps, p.speed_text) : "";
      if (!host.empty()) {
        hosts.insert(host);
        ++host_links_by_gen[gen.empty() ? "other" : gen];
      }
      nlohmann::json l = {{"node", n.description}, {"port", p.port}, {"width", p.width},
                          {"state", p.state}, {"phys_state", p.phys_state}, {"peer", p.peer},
                          {"peer_host", host}, {"generation", gen}, {"line", p.line}};
      l["lane_gbps"] = p.lane_gbps ? nlohmann::json(*p.lane_gbps) : nlohmann::json(nullptr);
      l["peer_port"] = p.peer_port ? nlohmann::json(*p.peer_port) : nlohmann::json(nullptr);
      if (!p.max_msg.empty()) l["max_msg"] = p.max_msg;
      links.push_back(std::move(l));
    }
    active_links += active;
    down_ports += down;
    nodes.push_back({{"type", n.type}, {"guid", n.guid}, {"description", n.description}, {"section", n.section_title},
                     {"active_links", active}, {"down_ports", down}, {"fastest_lane_gbps", b.lane},
                     {"widest", b.width}, {"line", n.line}});
  }
  nlohmann::json summary = {{"active_links", active_links}, {"down_ports", down_ports}, {"hosts", hosts.size()},
                            {"host_links_by_generation", host_links_by_gen}};
  return {{"nodes", nodes}, {"links", links}, {"summary", summary}};
}

}  // namespace fabdiag
