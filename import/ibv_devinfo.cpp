#include "import/ibv_devinfo.h"

#include <cstdio>

#include "core/text.h"

namespace fabdiag {

namespace {

// Per-port parsing state that does not belong in the model.
struct PortExtras {
  std::optional<int> lanes;
  std::optional<double> lane_gbps;
  bool gid_lines = false;
  bool gid_types = false;
};

void finish(RdmaPortFacts& p, const PortExtras& x) {
  if (x.lanes && x.lane_gbps) {
    double total = *x.lanes * *x.lane_gbps;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g Gb/sec (%dX %g Gbps)", total, *x.lanes, *x.lane_gbps);
    p.rate = buf;
    p.rate_gbps = total;
  }
  if (x.gid_lines && !x.gid_types) p.rocev2_gids.reset();
}

}  // namespace

Result<std::vector<RdmaPortFacts>> parse_ibv_devinfo(std::string_view text, const std::string& source, int first_line) {
  std::vector<RdmaPortFacts> ports;
  std::vector<PortExtras> extras;
  std::string hca, model, board, fw;
  int n = first_line - 1;
  for (const auto& raw : split(text, '\n')) {
    ++n;
    std::string t = trim(raw);
    if (t.empty()) continue;
    auto colon = t.find(':');
    if (colon == std::string::npos) continue;
    std::string key = trim(t.substr(0, colon)), value = trim(t.substr(colon + 1));
    if (key == "hca_id") {
      if (!ports.empty()) finish(ports.back(), extras.back());
      hca = value;
      model.clear();
      board.clear();
      fw.clear();
      continue;
    }
    if (hca.empty()) continue;
    if (key == "port") {
      auto num = parse_u64(value);
      if (!num || *num > 255) continue;
      if (!ports.empty()) finish(ports.back(), extras.back());
      RdmaPortFacts p = listed_rdma_port(
          hca, static_cast<int>(*num), source + " line " + std::to_string(n) + ": hca_id " + hca + " port " + std::to_string(*num));
      p.model = model;
      p.board_id = board;
      p.fw_ver = fw;
      ports.push_back(std::move(p));
      extras.emplace_back();
      continue;
    }
    bool in_port = !ports.empty() && ports.back().ibdev == hca;
    if (!in_port) {
      if (key == "vendor_part_id") {
        if (auto v = parse_u64(value)) model = "MT" + std::to_string(*v);
      } else if (key == "board_id") {
        board = value;
      } else if (key == "fw_ver") {
        fw = value;
      }
      continue;
    }
    RdmaPortFacts& p = ports.back();
    PortExtras& x = extras.back();
    if (key == "state") p.state = normalize_port_state(value);
    else if (key == "phys_state") p.phys_state = normalize_phys_state(value);
    else if (key == "link_layer") p.link_layer = value;
    else if (key == "port_lid") p.lid = value;
    else if (key == "active_mtu") {
      if (auto v = parse_leading_double(value); v && *v > 0 && *v <= 65536) p.active_mtu_bytes = static_cast<int>(*v);
    } else if (key == "active_width") {
      if (auto v = parse_leading_double(value); v && *v >= 1 && *v <= 32) x.lanes = static_cast<int>(*v);
    } else if (key == "active_speed") {
      if (value.find("Gbps") != std::string::npos) x.lane_gbps = parse_leading_double(value);
    } else if (starts_with(key, "GID[")) {
      // "GID[  3]:		0000:...:c000:0201, RoCE v2" (the address itself contains ':').
      // "GID[  3]:" with nothing after it, or a cut "GID[  3" (fuzz find, 2026-12): no GID.
      const size_t close = t.find("]:");
      if (close == std::string::npos) continue;
      std::string rest = trim(t.substr(close + 2));
      x.gid_lines = true;
      if (!p.rocev2_gids) p.rocev2_gids.emplace();
      auto comma = rest.find(',');
      if (comma == std::string::npos) continue;
      x.gid_types = true;
      std::string addr = trim(rest.substr(0, comma)), type = trim(rest.substr(comma + 1));
      bool zero = addr.find_first_not_of("0:") == std::string::npos;
      if (type == "RoCE v2" && !zero) p.rocev2_gids->push_back(addr);
    }
  }
  if (!ports.empty()) finish(ports.back(), extras.back());
  if (ports.empty())
    return make_error(ErrorCode::kParse, "no \"hca_id:\" block with a \"port:\" section (not ibv_devinfo output?)",
                      source);
  return ports;
}

}  // namespace fabdiag
