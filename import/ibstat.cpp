#include "import/ibstat.h"

#include "core/text.h"

namespace fabdiag {

Result<std::vector<RdmaPortFacts>> parse_ibstat(std::string_view text, const std::string& source, int first_line) {
  std::vector<RdmaPortFacts> ports;
  std::string ca, model, fw;
  RdmaPortFacts* cur = nullptr;
  int n = first_line - 1;
  for (const auto& raw : split(text, '\n')) {
    ++n;
    std::string t = trim(raw);
    if (t.empty()) continue;
    if (starts_with(t, "CA '") && t.size() > 5 && t.back() == '\'') {
      ca = t.substr(4, t.size() - 5);
      model.clear();
      fw.clear();
      cur = nullptr;
      continue;
    }
    if (ca.empty()) continue;
    if (starts_with(t, "Port ") && t.back() == ':') {
      auto num = parse_u64(t.substr(5, t.size() - 6));
      if (!num || *num > 255) continue;
      RdmaPortFacts p = listed_rdma_port(
          ca, static_cast<int>(*num), source + " line " + std::to_string(n) + ": CA '" + ca + "' port " + std::to_string(*num));
      p.model = model;
      p.fw_ver = fw;
      ports.push_back(std::move(p));
      cur = &ports.back();
      continue;
    }
    auto colon = t.find(':');
    if (colon == std::string::npos) continue;
    std::string key = trim(t.substr(0, colon)), value = trim(t.substr(colon + 1));
    if (!cur) {
      if (key == "CA type") model = value;
      else if (key == "Firmware version") fw = value;
      continue;
    }
    if (key == "State") cur->state = normalize_port_state(value);
    else if (key == "Physical state") cur->phys_state = normalize_phys_state(value);
    else if (key == "Rate") {
      cur->rate = value;
      cur->rate_gbps = parse_leading_double(value);
    } else if (key == "Base lid") cur->lid = value;
    else if (key == "Link layer") cur->link_layer = value;
  }
  if (ports.empty())
    return make_error(ErrorCode::kParse, "no \"CA '<name>'\" block with a \"Port N:\" section (not ibstat output?)",
                      source);
  return ports;
}

}  // namespace fabdiag
