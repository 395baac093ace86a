#include "import/ibv_devinfo.h"

#include <cstdio>

#include "core/text.h"
#include "import/port_listing_gaps.h"

namespace fabdiag {

namespace {

// Per-port parsing state that does not belong in the model.
struct PortExtras {
  std::optional<int> lanes;
  std::optional<double> lane_gbps;
  bool gid_lines = false;
  bool gid_types = false;
  bool verbose = false;       // -v output: its device block had max_mr_size, or the port max_msg_sz
  bool ib_transport = false;  // "transport: InfiniBand (0)": -v prints phys_state then
  PortBlockLines lines;       // the keys read in the port's block
};

// An "hca_id:" block: where it starts, what it says of itself before its ports.
struct HcaBlock {
  std::string where;  // "FILE line N"
  std::string name, model, board, fw;
  std::optional<uint64_t> declared;  // phys_port_cnt
  size_t listed = 0;
  bool verbose = false, ib_transport = false;
};

// One device-level "key: value" line of the block.
void read_hca_line(HcaBlock& h, const std::string& key, const std::string& value) {
  if (key == "vendor_part_id") {
    if (auto v = parse_u64(value)) h.model = "MT" + std::to_string(*v);
  } else if (key == "board_id") {
    h.board = value;
  } else if (key == "fw_ver") {
    h.fw = value;
  } else if (key == "phys_port_cnt") {
    h.declared = parse_u64(value);
  } else if (key == "max_mr_size") {
    h.verbose = true;
  } else if (key == "transport") {
    h.ib_transport = starts_with(value, "InfiniBand");
  }
}

// The lines ibv_devinfo prints for every port (rdma-core libibverbs/examples/devinfo.c,
// print_hca_cap()): state and link_layer always; with -v also active_width, active_speed and,
// on an InfiniBand-transport device, phys_state.
std::vector<PortBlockLines> port_lines(const std::vector<PortExtras>& extras) {
  std::vector<PortBlockLines> out;
  for (const auto& x : extras) {
    PortBlockLines l = x.lines;
    l.required = {"state", "link_layer"};
    if (x.verbose || x.lines.seen.count("max_msg_sz")) {
      l.required.insert(l.required.end(), {"active_width", "active_speed"});
      if (x.ib_transport) l.required.push_back("phys_state");
    }
    out.push_back(std::move(l));
  }
  return out;
}

// One "key: value" line (`t` as read) of a port's block.
void read_port_line(RdmaPortFacts& p, PortExtras& x, const std::string& key, const std::string& value,
                    const std::string& t) {
  x.lines.saw(key);
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
    if (close == std::string::npos) return;
    std::string rest = trim(t.substr(close + 2));
    x.gid_lines = true;
    if (!p.rocev2_gids) p.rocev2_gids.emplace();
    auto comma = rest.find(',');
    if (comma == std::string::npos) return;
    x.gid_types = true;
    std::string addr = trim(rest.substr(0, comma)), type = trim(rest.substr(comma + 1));
    bool zero = addr.find_first_not_of("0:") == std::string::npos;
    if (type == "RoCE v2" && !zero) p.rocev2_gids->push_back(addr);
  }
}

// A device block with no port block at all is cut short; one with fewer than phys_port_cnt is
// not (`ibv_devinfo -i N` prints port N only).
void close_hca(const HcaBlock& h, std::vector<Error>* gaps) {
  if (!gaps || h.name.empty() || !h.declared || h.listed > 0) return;
  for (auto& e : missing_port_blocks_gap(h.where, "hca_id " + h.name, *h.declared, h.listed)) gaps->push_back(std::move(e));
}

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

Result<std::vector<RdmaPortFacts>> parse_ibv_devinfo(std::string_view text, const std::string& source, int first_line,
                                                     std::vector<Error>* gaps) {
  std::vector<RdmaPortFacts> ports;
  std::vector<PortExtras> extras;
  HcaBlock hca;
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
      close_hca(hca, gaps);
      hca = HcaBlock{};
      hca.where = source + " line " + std::to_string(n);
      hca.name = value;
      continue;
    }
    if (hca.name.empty()) continue;
    if (key == "port") {
      auto num = parse_u64(value);
      if (!num || *num > 255) continue;
      if (!ports.empty()) finish(ports.back(), extras.back());
      RdmaPortFacts p = listed_rdma_port(
          hca.name, static_cast<int>(*num), source + " line " + std::to_string(n) + ": hca_id " + hca.name + " port " + std::to_string(*num));
      p.model = hca.model;
      p.board_id = hca.board;
      p.fw_ver = hca.fw;
      ports.push_back(std::move(p));
      extras.emplace_back();
      extras.back().verbose = hca.verbose;
      extras.back().ib_transport = hca.ib_transport;
      ++hca.listed;
      continue;
    }
    bool in_port = !ports.empty() && ports.back().ibdev == hca.name;
    if (!in_port) {
      read_hca_line(hca, key, value);
      continue;
    }
    RdmaPortFacts& p = ports.back();
    PortExtras& x = extras.back();
    read_port_line(p, x, key, value, t);
  }
  if (!ports.empty()) finish(ports.back(), extras.back());
  close_hca(hca, gaps);
  if (ports.empty())
    return make_error(ErrorCode::kParse, "no \"hca_id:\" block with a \"port:\" section (not ibv_devinfo output?)",
                      source);
  if (gaps)
    for (auto& e : missing_port_lines_gaps(ports, port_lines(extras))) gaps->push_back(std::move(e));
  return ports;
}

}  // namespace fabdiag
