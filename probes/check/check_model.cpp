#include "probes/check/check_model.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/envelope.h"
#include "core/text.h"

namespace fabdiag {

namespace {

std::string squash_lower(std::string_view s) {
  std::string o;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c)))
      o.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return o;
}

// "PORT_ACTIVE (4)" / "LINK_UP (5)": the number in the trailing parentheses.
std::optional<int> trailing_number(const std::string& t) {
  if (t.empty() || t.back() != ')') return std::nullopt;
  auto open = t.rfind('(');
  if (open == std::string::npos) return std::nullopt;
  auto v = parse_u64(std::string_view(t).substr(open + 1, t.size() - open - 2));
  if (!v || *v > 255) return std::nullopt;
  return static_cast<int>(*v);
}

// "4: ACTIVE" already: leading number and colon.
bool numbered(const std::string& t) {
  auto colon = t.find(':');
  return colon != std::string::npos && colon > 0 && parse_u64(t.substr(0, colon)).has_value();
}

const char* const kStateNames[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
const char* const kPhysNames[] = {"", "Sleep", "Polling", "Disabled", "PortConfigurationTraining",
                                  "LinkUp", "LinkErrorRecovery", "Phy Test"};

// "<n>: <name>" (the sysfs form) of a state printed as "<NAME> (<n>)" or by name in any case and
// spacing ("Active", "LinkUp", "PORT_ACTIVE (4)"); names[first..last] are the sysfs spellings.
// Text that is none of these is returned trimmed.
std::string normalize_numbered(const std::string& text, const char* const* names, int first, int last) {
  std::string t = trim(text);
  if (t.empty() || numbered(t)) return t;
  if (auto n = trailing_number(t)) {
    if (*n >= first && *n <= last) return std::to_string(*n) + ": " + names[*n];
    return t;
  }
  std::string k = squash_lower(t);
  if (k == "initializing" || k == "initialize") k = "init";  // PORT_INIT spelled out
  for (int i = first; i <= last; ++i)
    if (k == squash_lower(names[i])) return std::to_string(i) + ": " + names[i];
  return t;
}

nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }
nlohmann::json opt(const std::optional<int>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }
nlohmann::json opt(const std::optional<uint64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

nlohmann::json link_json(const PcieLinkSubject& s) {
  return {{"bdf", s.bdf},
          {"label", s.label},
          {"is_gpu", s.is_gpu},
          {"current_speed_gts", opt(s.link.current_speed_gts)},
          {"max_speed_gts", opt(s.link.max_speed_gts)},
          {"current_width", opt(s.link.current_width)},
          {"max_width", opt(s.link.max_width)},
          {"parent_bdf", s.parent_bdf},
          {"parent_max_speed_gts", opt(s.parent_max_speed_gts)},
          {"parent_max_width", opt(s.parent_max_width)}};
}

nlohmann::json aer_group_json(const AerGroup& g) {
  if (!g.present) return nullptr;
  nlohmann::json named = nlohmann::json::object();
  for (const auto& [name, count] : g.nonzero) named[name] = count;
  return {{"total", opt(g.total)}, {"nonzero", named}, {"source", g.source}};
}

template <typename T, typename F>
nlohmann::json list_json(const std::optional<std::vector<T>>& v, F f) {
  if (!v) return nullptr;
  nlohmann::json a = nlohmann::json::array();
  for (const auto& x : *v) a.push_back(f(x));
  return a;
}

// The text fields PortInfo and RdmaPortFacts share, pair by pair (with `port`, the whole
// mapping): both conversions read this one table.
struct SharedPortField {
  std::string PortInfo::*info;
  std::string RdmaPortFacts::*facts;
};
constexpr SharedPortField kSharedPortFields[] = {
    {&PortInfo::device, &RdmaPortFacts::device},     {&PortInfo::ibdev, &RdmaPortFacts::ibdev},
    {&PortInfo::netdev, &RdmaPortFacts::netdev},     {&PortInfo::link_layer, &RdmaPortFacts::link_layer},
    {&PortInfo::state, &RdmaPortFacts::state},       {&PortInfo::phys_state, &RdmaPortFacts::phys_state},
    {&PortInfo::rate, &RdmaPortFacts::rate},         {&PortInfo::sysfs_dir, &RdmaPortFacts::source},
};

}  // namespace

PortInfo to_port_info(const RdmaPortFacts& p) {
  PortInfo info;
  for (const auto& f : kSharedPortFields) info.*f.info = p.*f.facts;
  info.port = p.port;
  info.is_rdma = true;
  return info;
}

RdmaPortFacts listed_rdma_port(const std::string& ibdev, int port, std::string source) {
  RdmaPortFacts p;
  p.ibdev = ibdev;
  p.port = port;
  p.device = ibdev + "/" + std::to_string(port);
  p.source = std::move(source);
  return p;
}

RdmaPortFacts rdma_port_facts(const PortInfo& port) {
  RdmaPortFacts p;
  for (const auto& f : kSharedPortFields) p.*f.facts = port.*f.info;
  p.port = port.port;
  p.rate_gbps = parse_leading_double(port.rate);
  return p;
}

std::string normalize_port_state(const std::string& text) { return normalize_numbered(text, kStateNames, 0, 5); }

std::string normalize_phys_state(const std::string& text) { return normalize_numbered(text, kPhysNames, 1, 7); }

namespace {
// enum ibv_wc_status of rdma-core libibverbs/verbs.h and the words of ibv_wc_status_str()
// (libibverbs/enum_strs.c), by value: docs/domain.md#work-completion-status.
struct WcStatusRow {
  const char* name;
  const char* meaning;
};
constexpr WcStatusRow kWcStatus[] = {
    {"SUCCESS", "success"},
    {"LOC_LEN_ERR", "local length error"},
    {"LOC_QP_OP_ERR", "local QP operation error"},
    {"LOC_EEC_OP_ERR", "local EE context operation error"},
    {"LOC_PROT_ERR", "local protection error"},
    {"WR_FLUSH_ERR", "work request flushed error"},
    {"MW_BIND_ERR", "memory management operation error"},
    {"BAD_RESP_ERR", "bad response error"},
    {"LOC_ACCESS_ERR", "local access error"},
    {"REM_INV_REQ_ERR", "remote invalid request error"},
    {"REM_ACCESS_ERR", "remote access error"},
    {"REM_OP_ERR", "remote operation error"},
    {"RETRY_EXC_ERR", "transport retry counter exceeded"},
    {"RNR_RETRY_EXC_ERR", "RNR retry counter exceeded"},
    {"LOC_RDD_VIOL_ERR", "local RDD violation error"},
    {"REM_INV_RD_REQ_ERR", "remote invalid RD request"},
    {"REM_ABORT_ERR", "aborted error"},
    {"INV_EECN_ERR", "invalid EE context number"},
    {"INV_EEC_STATE_ERR", "invalid EE context state"},
    {"FATAL_ERR", "fatal error"},
    {"RESP_TIMEOUT_ERR", "response timeout error"},
    {"GENERAL_ERR", "general error"},
};
const WcStatusRow* wc_status_row(int status) {
  if (status < 0 || status >= static_cast<int>(sizeof kWcStatus / sizeof kWcStatus[0])) return nullptr;
  return &kWcStatus[status];
}
}  // namespace

const char* wc_status_name(int status) {
  const WcStatusRow* r = wc_status_row(status);
  return r ? r->name : "";
}

const char* wc_status_meaning(int status) {
  const WcStatusRow* r = wc_status_row(status);
  return r ? r->meaning : "";
}

HostFacts facts_from_ports(std::vector<RdmaPortFacts> ports, std::string origin) {
  HostFacts f;
  f.origin = std::move(origin);
  f.rdma_ports = std::move(ports);
  return f;
}

void to_json(nlohmann::json& j, const HostFacts& f) {
  j = nlohmann::json::object();
  j["origin"] = f.origin;
  j["pcie_links"] = list_json(f.pcie_links, link_json);
  j["acs_ports"] = list_json(f.acs_ports, [](const AcsPort& p) {
    nlohmann::json o = {{"bdf", p.bdf}, {"label", p.label}, {"status", to_string(p.status)},
                        {"position_known", p.position_known}, {"below", p.below},
                        {"source", p.source}};
    if (p.status == AcsStatus::kRead) {
      o["control"] = p.control;
      o["control_text"] = acs_control_text(p.control);
    }
    if (!p.detail.empty()) o["detail"] = p.detail;
    return o;
  });
  j["aer"] = list_json(f.aer, [](const AerSubject& a) {
    return nlohmann::json{{"bdf", a.bdf},
                          {"label", a.label},
                          {"correctable", aer_group_json(a.correctable)},
                          {"fatal", aer_group_json(a.fatal)},
                          {"nonfatal", aer_group_json(a.nonfatal)}};
  });
  if (f.gdr) {
    const auto& g = *f.gdr;
    j["gdr"] = {{"gpus", g.gpus},
                {"rdma_nics", g.rdma_nics},
                {"peermem_found", g.peermem_found},
                {"peermem_checked", g.peermem_checked},
                {"nvidia_open_module", g.nvidia_open_module ? nlohmann::json(*g.nvidia_open_module) : nlohmann::json(nullptr)},
                {"nvidia_driver_major", opt(g.nvidia_driver_major)},
                {"kernel_release", g.kernel_release}};
  } else {
    j["gdr"] = nullptr;
  }
  if (f.iommu) {
    nlohmann::json domains = nlohmann::json::object();
    for (const auto& [label, type] : f.iommu->device_domains) domains[label] = type;
    j["iommu"] = {{"units", f.iommu->units},
                  {"cmdline", f.iommu->cmdline ? nlohmann::json(*f.iommu->cmdline) : nlohmann::json(nullptr)},
                  {"device_domains", domains}};
  } else {
    j["iommu"] = nullptr;
  }
  j["rdma_ports"] = list_json(f.rdma_ports, [](const RdmaPortFacts& p) {
    nlohmann::json o = {{"device", p.device},       {"ibdev", p.ibdev},
                        {"port", p.port},           {"model", p.model},
                        {"board_id", p.board_id},   {"fw_ver", p.fw_ver},
                        {"link_layer", p.link_layer}, {"state", p.state},
                        {"phys_state", p.phys_state}, {"rate", p.rate},
                        {"rate_gbps", opt(p.rate_gbps)}, {"netdev", p.netdev},
                        {"netdev_mtu_bytes", opt(p.netdev_mtu_bytes)},
                        {"active_mtu_bytes", opt(p.active_mtu_bytes)},
                        {"lid", p.lid},             {"source", p.source}};
    o["rocev2_gids"] = p.rocev2_gids ? nlohmann::json(*p.rocev2_gids) : nlohmann::json(nullptr);
    return o;
  });
  j["counters"] = list_json(f.counters, [](const CounterChange& c) { return nlohmann::json(c); });
  nlohmann::json wc = nlohmann::json::array();
  for (const auto& w : f.wc_errors)
    wc.push_back({{"status", w.status},
                  {"status_name", wc_status_name(w.status)},
                  {"opcode", opt(w.opcode)},
                  {"len_bytes", opt(w.len_bytes)},
                  {"vendor_err", opt(w.vendor_err)},
                  {"hca", w.hca},
                  {"line", w.line},
                  {"source", w.source}});
  j["wc_errors"] = wc;
  j["not_read"] = f.not_read;
}

}  // namespace fabdiag
