#include "import/ibstat.h"

#include <optional>

#include "core/text.h"
#include "import/port_listing_gaps.h"

namespace fabdiag {

namespace {

// The lines ibstat prints in every "Port N:" block (infiniband-diags ibstat.c, port_dump()).
const std::vector<std::string>& ibstat_port_lines() {
  static const std::vector<std::string> lines = {"State", "Physical state", "Rate", "Link layer"};
  return lines;
}

// A "CA '<name>'" block: where it starts and how many ports it says it has.
struct CaBlock {
  std::string where;  // "FILE line N"
  std::string name;
  std::optional<uint64_t> declared;
  size_t listed = 0;
};

void close_ca(const CaBlock& ca, std::vector<Error>* gaps) {
  if (!gaps || ca.name.empty() || !ca.declared) return;
  for (auto& e : missing_port_blocks_gap(ca.where, "CA '" + ca.name + "'", *ca.declared, ca.listed))
    gaps->push_back(std::move(e));
}

}  // namespace

Result<std::vector<RdmaPortFacts>> parse_ibstat(std::string_view text, const std::string& source, int first_line,
                                                std::vector<Error>* gaps) {
  std::vector<RdmaPortFacts> ports;
  std::vector<PortBlockLines> read;
  CaBlock ca;
  std::string model, fw;
  RdmaPortFacts* cur = nullptr;
  int n = first_line - 1;
  for (const auto& raw : split(text, '\n')) {
    ++n;
    std::string t = trim(raw);
    if (t.empty()) continue;
    if (starts_with(t, "CA '") && t.size() > 5 && t.back() == '\'') {
      close_ca(ca, gaps);
      ca = CaBlock{source + " line " + std::to_string(n), t.substr(4, t.size() - 5), std::nullopt, 0};
      model.clear();
      fw.clear();
      cur = nullptr;
      continue;
    }
    if (ca.name.empty()) continue;
    if (starts_with(t, "Port ") && t.back() == ':') {
      auto num = parse_u64(t.substr(5, t.size() - 6));
      if (!num || *num > 255) continue;
      RdmaPortFacts p = listed_rdma_port(ca.name, static_cast<int>(*num),
                                         source + " line " + std::to_string(n) + ": CA '" + ca.name + "' port " +
                                             std::to_string(*num));
      p.model = model;
      p.fw_ver = fw;
      ports.push_back(std::move(p));
      read.push_back(PortBlockLines{ibstat_port_lines(), {}});
      ++ca.listed;
      cur = &ports.back();
      continue;
    }
    auto colon = t.find(':');
    if (colon == std::string::npos) continue;
    std::string key = trim(t.substr(0, colon)), value = trim(t.substr(colon + 1));
    if (!cur) {
      if (key == "CA type") model = value;
      else if (key == "Firmware version") fw = value;
      else if (key == "Number of ports") ca.declared = parse_u64(value);
      continue;
    }
    read.back().saw(key);
    if (key == "State") cur->state = normalize_port_state(value);
    else if (key == "Physical state") cur->phys_state = normalize_phys_state(value);
    else if (key == "Rate") {
      cur->rate = value;
      cur->rate_gbps = parse_leading_double(value);
    } else if (key == "Base lid") cur->lid = value;
    else if (key == "Link layer") cur->link_layer = value;
  }
  close_ca(ca, gaps);
  if (ports.empty())
    return make_error(ErrorCode::kParse, "no \"CA '<name>'\" block with a \"Port N:\" section (not ibstat output?)",
                      source);
  if (gaps)
    for (auto& e : missing_port_lines_gaps(ports, read)) gaps->push_back(std::move(e));
  return ports;
}

}  // namespace fabdiag
