#include "import/xid_catalog.h"

#include <cstdlib>
#include <map>

#include <nlohmann/json.hpp>

namespace fabdiag {

namespace embedded {
extern const unsigned char kXidCatalogJson[];
extern const std::size_t kXidCatalogJsonSize;
}  // namespace embedded

namespace {

std::map<int, XidInfo> load() {
  std::string_view text(reinterpret_cast<const char*>(embedded::kXidCatalogJson), embedded::kXidCatalogJsonSize);
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.contains("xids") || !doc.contains("buckets")) std::abort();
  std::map<int, XidInfo> out;
  for (const auto& x : doc["xids"]) {
    XidInfo i;
    i.xid = x.value("xid", 0);
    i.mnemonic = x.value("mnemonic", "");
    i.description = x.value("description", "");
    i.immediate = x.value("immediate", "");
    i.investigatory = x.value("investigatory", "");
    const auto& b = doc["buckets"].value(i.immediate, nlohmann::json::object());
    i.severity = parse_severity(b.value("severity", "warn")).value_or(Severity::kWarn);
    i.action = b.value("action", "See NVIDIA's Xid catalog for " + i.immediate + ".");
    out[i.xid] = std::move(i);
  }
  return out;
}

}  // namespace

XidInfo xid_info(int xid) {
  static const std::map<int, XidInfo> catalog = load();
  if (auto it = catalog.find(xid); it != catalog.end()) return it->second;
  XidInfo i;
  i.xid = xid;
  i.action = "Look Xid " + std::to_string(xid) +
             " up in NVIDIA's Xid catalog (docs.nvidia.com/deploy/xid-errors) for its resolution bucket.";
  return i;
}

std::optional<std::pair<Severity, std::string>> xid154_recovery(const std::string& label) {
  if (label == "None") return std::pair{Severity::kInfo, std::string("The driver needs no recovery.")};
  if (label == "Drain P2P")
    return std::pair{Severity::kWarn, std::string("Drain peer-to-peer traffic from this GPU (stop the jobs using it).")};
  if (label == "Drain and Reset")
    return std::pair{Severity::kError, std::string("Drain the GPU's jobs, then reset it (`nvidia-smi -r -i <index>`).")};
  if (label == "GPU Reset Required")
    return std::pair{Severity::kError, std::string("Reset the GPU (`nvidia-smi -r -i <index>`) or reboot the node.")};
  if (label == "Node Reboot Required")
    return std::pair{Severity::kCritical, std::string("Drain and reboot the node.")};
  return std::nullopt;
}

}  // namespace fabdiag
