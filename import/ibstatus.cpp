#include "import/ibstatus.h"

#include "core/text.h"
#include "import/port_listing_gaps.h"

namespace fabdiag {

namespace {

// The lines ibstatus prints for every port (infiniband-diags scripts/ibstatus, get_ib_status()).
const std::vector<std::string>& ibstatus_port_lines() {
  static const std::vector<std::string> lines = {"state", "phys state", "rate", "link_layer"};
  return lines;
}

}  // namespace

Result<std::vector<RdmaPortFacts>> parse_ibstatus(std::string_view text, const std::string& source, int first_line,
                                                  std::vector<Error>* gaps) {
  std::vector<RdmaPortFacts> ports;
  std::vector<PortBlockLines> read;
  RdmaPortFacts* cur = nullptr;
  int n = first_line - 1;
  const std::string head = "Infiniband device '";
  for (const auto& raw : split(text, '\n')) {
    ++n;
    std::string t = trim(raw);
    if (t.empty()) continue;
    if (starts_with(t, head)) {
      auto q = t.find('\'', head.size());
      auto port_kw = t.find(" port ", q == std::string::npos ? 0 : q);
      if (q == std::string::npos || port_kw == std::string::npos) {
        cur = nullptr;
        continue;
      }
      auto words = split_ws(t.substr(port_kw + 6));
      auto num = words.empty() ? std::nullopt : parse_u64(words[0]);
      if (!num || *num > 255) {
        cur = nullptr;
        continue;
      }
      std::string ibdev = t.substr(head.size(), q - head.size());
      ports.push_back(listed_rdma_port(ibdev, static_cast<int>(*num),
                                       source + " line " + std::to_string(n) + ": " + ibdev + " port " + std::to_string(*num)));
      read.push_back(PortBlockLines{ibstatus_port_lines(), {}});
      cur = &ports.back();
      continue;
    }
    if (!cur) continue;
    auto colon = t.find(':');
    if (colon == std::string::npos) continue;
    std::string key = trim(t.substr(0, colon)), value = trim(t.substr(colon + 1));
    read.back().saw(key);
    if (key == "state") cur->state = normalize_port_state(value);
    else if (key == "phys state") cur->phys_state = normalize_phys_state(value);
    else if (key == "rate") {
      cur->rate = value;
      cur->rate_gbps = parse_leading_double(value);
    } else if (key == "base lid") cur->lid = value;
    else if (key == "link_layer") cur->link_layer = value;
  }
  if (ports.empty())
    return make_error(ErrorCode::kParse,
                      "no \"Infiniband device '<name>' port <n> status:\" line (not ibstatus output?)", source);
  if (gaps)
    for (auto& e : missing_port_lines_gaps(ports, read)) gaps->push_back(std::move(e));
  return ports;
}

}  // namespace fabdiag
