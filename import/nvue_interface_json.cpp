// `nv show interface ... -o json` (import/nvue_interface.h): NVUE writes the same keys as the
// text form, as one flat object for one interface or as objects by interface name; values are
// numbers or strings ("1E-7", "3.37 MB"). Nested objects are read by their leaf keys.
#include "core/text.h"
#include "import/nvue_interface.h"

namespace fabdiag {
namespace {

using nlohmann::json;

constexpr const char* kNoPort = "(port not named)";

bool has_nvue_key(const json& j) {
  if (!j.is_object()) return false;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    if (k == "carrier-transitions" || k == "effective-errors" || k == "effective-ber" || k == "raw-ber" ||
        k == "in-errors" || k == "symbol-errors" || k == "out-errors")
      return true;
    if (it.value().is_object() && has_nvue_key(it.value())) return true;
  }
  return false;
}

void read_leaves(NvuePort& p, const json& j, int depth) {
  if (depth > 8) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const json& v = it.value();
    if (v.is_object()) read_leaves(p, v, depth + 1);
    else if (v.is_string()) nvue_add_value(p, it.key(), v.get<std::string>(), 0);
    else if (v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0))
      nvue_add_value(p, it.key(), std::to_string(v.get<uint64_t>()), 0);
    else if (v.is_number()) nvue_add_value(p, it.key(), v.dump(), 0);
  }
}

}  // namespace

Result<NvueImport> parse_nvue_interface_json(const std::string& text, const std::string& source,
                                             const std::string& host, const std::string& port) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded())
    return make_error(ErrorCode::kParse, "the JSON does not parse (cut, or not `nv show ... -o json` output)", source);
  if (!has_nvue_key(doc))
    return make_error(ErrorCode::kParse,
                      "expected `nv show interface ... -o json` output (carrier-transitions, in-errors, raw-ber, "
                      "effective-errors ...), found none of its keys",
                      source);
  NvueImport imp;
  imp.source = source;
  imp.format = "json";
  bool flat = false;
  for (auto it = doc.begin(); it != doc.end(); ++it) flat = flat || !it.value().is_object();
  if (flat) {
    NvuePort p;
    p.host = host;
    p.port = port.empty() ? kNoPort : port;
    read_leaves(p, doc, 0);
    imp.ports.push_back(std::move(p));
    return imp;
  }
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (!has_nvue_key(it.value())) continue;
    NvuePort p;
    p.host = host;
    p.port = it.key();
    read_leaves(p, it.value(), 0);
    imp.ports.push_back(std::move(p));
  }
  return imp;
}

}  // namespace fabdiag
