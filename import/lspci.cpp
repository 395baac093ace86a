#include "import/lspci.h"

#include <map>

#include <nlohmann/json.hpp>

#include "core/text.h"

namespace fabdiag {

namespace {

// "0000:17:00.0" or "17:00.0" at the start of a header line.
std::optional<PciAddress> header_address(const std::string& token) {
  if (auto a = parse_pci_address(token)) return a;
  return parse_pci_address("0000:" + token);
}

std::optional<uint32_t> hex_value(std::string_view s) {
  std::string t = trim(s);
  if (t.empty() || t.size() > 8) return std::nullopt;
  return static_cast<std::optional<uint32_t>>(parse_u64("0x" + t));
}

// "PCI bridge [0604]" -> "PCI bridge" (lspci -nn).
std::string strip_class_code(std::string name) {
  auto br = name.find(" [");
  if (br != std::string::npos && name.back() == ']') name.erase(br);
  return name;
}

PciKind kind_of(const std::string& class_name, const std::string& description) {
  bool nvidia = description.find("NVIDIA") != std::string::npos;
  if (class_name == "PCI bridge") return PciKind::kBridge;
  if ((class_name == "3D controller" || class_name == "VGA compatible controller") && nvidia) return PciKind::kGpu;
  if (class_name == "Bridge" && nvidia) return PciKind::kNvSwitch;
  if (class_name == "Ethernet controller" || class_name == "Infiniband controller") return PciKind::kNic;
  return PciKind::kOther;
}

// Value after "<key> " up to the next ',' ("Speed 32GT/s (ok), Width x16 (ok)").
std::string field(const std::string& line, const std::string& key) {
  auto p = line.find(key + " ");
  if (p == std::string::npos) return {};
  auto start = p + key.size() + 1;
  auto end = line.find(',', start);
  return trim(line.substr(start, end == std::string::npos ? std::string::npos : end - start));
}

// "32GT/s (ok)" -> 32 and note "ok"; "unknown" -> nullopt.
std::optional<double> speed_of(const std::string& v, std::string* note) {
  auto open = v.find('(');
  if (note && open != std::string::npos) {
    auto close = v.find(')', open);
    *note = v.substr(open + 1, close == std::string::npos ? std::string::npos : close - open - 1);
  }
  if (v.find("GT/s") == std::string::npos) return std::nullopt;
  auto d = parse_leading_double(v);
  if (!d || !(*d > 0)) return std::nullopt;
  return d;
}

std::optional<int> width_of(const std::string& v, std::string* note) {
  auto open = v.find('(');
  if (note && open != std::string::npos) {
    auto close = v.find(')', open);
    *note = v.substr(open + 1, close == std::string::npos ? std::string::npos : close - open - 1);
  }
  if (v.empty() || v[0] != 'x') return std::nullopt;
  auto n = parse_leading_double(std::string_view(v).substr(1));
  if (!n || *n < 0 || *n > 32) return std::nullopt;
  return static_cast<int>(*n);
}

// "Express (v2) Downstream Port (Slot+), MSI 00" -> "Downstream Port".
std::string port_type_of(const std::string& line) {
  auto p = line.find("Express (");
  if (p == std::string::npos) p = line.find("Express ");
  if (p == std::string::npos) return {};
  auto after = line.find(')', p);
  std::string rest = line.substr(after == std::string::npos ? p + 8 : after + 1);
  auto comma = rest.find(',');
  if (comma != std::string::npos) rest.erase(comma);
  auto paren = rest.find(" (");
  if (paren != std::string::npos) rest.erase(paren);
  return trim(rest);
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string where(const std::string& source, int line) { return source + " line " + std::to_string(line); }

}  // namespace

std::optional<uint16_t> parse_acs_flags(std::string_view text) {
  static const std::pair<const char*, uint16_t> kFlags[] = {
      {"SrcValid", kAcsSrcValid},     {"TransBlk", kAcsTransBlock},    {"ReqRedir", kAcsReqRedirect},
      {"CmpltRedir", kAcsCmpltRedirect}, {"UpstreamFwd", kAcsUpstreamFwd}, {"EgressCtrl", kAcsEgressCtrl},
      {"DirectTrans", kAcsDirectTrans}};
  uint16_t bits = 0;
  bool any = false;
  for (const auto& tok : split_ws(text)) {
    if (tok.size() < 2) continue;
    char sign = tok.back();
    if (sign != '+' && sign != '-') continue;
    std::string name = tok.substr(0, tok.size() - 1);
    for (const auto& [n, bit] : kFlags)
      if (name == n) {
        any = true;
        if (sign == '+') bits |= bit;
      }
  }
  if (!any) return std::nullopt;
  return bits;
}

namespace {

// A LnkCap/LnkSta line outside any device block (`lspci -vvv | grep -E 'LnkCap|LnkSta'`): one
// unnamed device per pair; a LnkCap starts the next one, and so does a second LnkSta.
void read_fragment_line(LspciListing& out, bool& frag_open, const std::string& t, int n) {
  bool cap = starts_with(t, "LnkCap:");
  LspciFunction* last = frag_open ? &out.functions.back() : nullptr;
  bool has_cap = last && (last->link.max_speed_gts || last->link.max_width);
  bool has_sta = last && (last->link.current_speed_gts || last->link.current_width);
  if (!last || (cap ? has_cap || has_sta : has_sta)) {
    LspciFunction f;
    f.fragment = true;
    f.line = n;
    out.functions.push_back(std::move(f));
    frag_open = true;
  }
  LspciFunction& fr = out.functions.back();
  if (cap) {
    fr.link.max_speed_gts = speed_of(field(t, "Speed"), nullptr);
    fr.link.max_width = width_of(field(t, "Width"), nullptr);
  } else {
    fr.link.current_speed_gts = speed_of(field(t, "Speed"), &fr.speed_note);
    fr.link.current_width = width_of(field(t, "Width"), &fr.width_note);
  }
}

}  // namespace

Result<LspciListing> parse_lspci(std::string_view text, const std::string& source, int first_line) {
  LspciListing out;
  LspciFunction* cur = nullptr;
  bool frag_open = false;  // the last function is a header-less fragment that may take more lines
  int n = first_line - 1;
  for (const auto& raw : split(text, '\n')) {
    ++n;
    std::string line = raw;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    if (line.empty()) {
      cur = nullptr;
      frag_open = false;
      continue;
    }
    bool indented = line[0] == ' ' || line[0] == '\t';
    std::string t = trim(line);
    if (!indented) {
      auto sp = line.find(' ');
      auto addr = sp == std::string::npos ? std::nullopt : header_address(line.substr(0, sp));
      auto colon = sp == std::string::npos ? std::string::npos : line.find(": ", sp + 1);
      if (!addr || colon == std::string::npos) {
        cur = nullptr;
        continue;
      }
      LspciFunction f;
      f.bdf = addr->to_string();
      f.class_name = strip_class_code(trim(line.substr(sp + 1, colon - sp - 1)));
      f.description = trim(line.substr(colon + 2));
      f.kind = kind_of(f.class_name, f.description);
      f.line = n;
      out.functions.push_back(std::move(f));
      cur = &out.functions.back();
      frag_open = false;
      continue;
    }
    if (starts_with(t, "ACSCtl:")) {
      auto bits = parse_acs_flags(t.substr(7));
      if (!bits) {
        out.gaps.push_back(make_error(ErrorCode::kParse, "ACSCtl line without ACS flags: '" + t + "'", where(source, n)));
      } else if (cur) {
        cur->acs_control = *bits;
        cur->acs_line = n;
      } else {
        out.loose_acs.push_back(LspciAcsLine{*bits, n, t});
      }
      continue;
    }
    if (!cur && (starts_with(t, "LnkCap:") || starts_with(t, "LnkSta:"))) {
      read_fragment_line(out, frag_open, t, n);
      continue;
    }
    if (!cur) continue;
    if (starts_with(t, "Capabilities: <access denied>")) {
      cur->caps_denied = true;
    } else if (starts_with(t, "Bus: ")) {
      for (const auto& part : split(t.substr(5), ',')) {
        std::string p = trim(part);
        if (starts_with(p, "secondary=")) cur->secondary_bus = hex_value(p.substr(10));
        else if (starts_with(p, "subordinate=")) cur->subordinate_bus = hex_value(p.substr(12));
      }
    } else if (starts_with(t, "Capabilities:") && t.find("Express") != std::string::npos &&
               t.find("Secondary PCI Express") == std::string::npos) {
      cur->port_type = port_type_of(t);
    } else if (starts_with(t, "LnkCap:")) {
      cur->link.max_speed_gts = speed_of(field(t, "Speed"), nullptr);
      cur->link.max_width = width_of(field(t, "Width"), nullptr);
      if (!cur->link.max_speed_gts && !cur->link.max_width)
        out.gaps.push_back(make_error(ErrorCode::kParse, "LnkCap without a speed or width: '" + t + "'", where(source, n)));
    } else if (starts_with(t, "LnkSta:")) {
      cur->link.current_speed_gts = speed_of(field(t, "Speed"), &cur->speed_note);
      cur->link.current_width = width_of(field(t, "Width"), &cur->width_note);
      if (!cur->link.current_speed_gts && !cur->link.current_width)
        out.gaps.push_back(make_error(ErrorCode::kParse, "LnkSta without a speed or width: '" + t + "'", where(source, n)));
    } else if (starts_with(t, "NUMA node:")) {
      if (auto v = parse_i64(t.substr(10))) cur->numa_node = static_cast<int>(*v);
    } else if (starts_with(t, "Kernel driver in use:")) {
      cur->driver = trim(t.substr(21));
    } else if (starts_with(t, "Product Name:")) {
      cur->product_name = trim(t.substr(13));
    }
  }
  if (out.functions.empty() && out.loose_acs.empty())
    return make_error(ErrorCode::kParse,
                      "no lspci device header (\"17:00.0 PCI bridge: ...\"), no LnkCap/LnkSta and no ACSCtl line",
                      source);
  return out;
}

HostFacts lspci_to_facts(const LspciListing& l, const std::string& source) {
  HostFacts f;
  f.origin = "lspci " + source;
  f.gaps = l.gaps;
  // (domain, secondary bus) -> bridge, for the parent of each function.
  std::map<std::pair<uint32_t, uint32_t>, const LspciFunction*> by_secondary;
  for (const auto& fn : l.functions)
    if (fn.kind == PciKind::kBridge && fn.secondary_bus)
      by_secondary[{parse_pci_address(fn.bdf)->domain, *fn.secondary_bus}] = &fn;
  auto label_of = [](const LspciFunction& fn) {
    switch (fn.kind) {
      case PciKind::kGpu: return "GPU " + fn.bdf;
      case PciKind::kNic: return "NIC " + fn.bdf;
      default: {
        std::string role = fn.port_type == "Root Port"         ? "root port"
                           : fn.port_type == "Upstream Port"   ? "switch upstream port"
                           : fn.port_type == "Downstream Port" ? "switch downstream port"
                           : fn.port_type.empty()              ? "bridge"
                                                               : lower(fn.port_type);
        return role + " " + fn.bdf;
      }
    }
  };

  if (!l.functions.empty()) {
    std::vector<PcieLinkSubject> links;
    for (const auto& fn : l.functions) {
      bool wanted = fn.kind == PciKind::kGpu || fn.kind == PciKind::kNic || fn.port_type == "Upstream Port" ||
                    fn.fragment;
      if (!wanted || fn.description.find("Virtual Function") != std::string::npos) continue;
      PcieLinkSubject s;
      s.bdf = fn.bdf;
      s.label = fn.port_type == "Upstream Port" ? "PCIe switch uplink " + fn.bdf : label_of(fn);
      s.is_gpu = fn.kind == PciKind::kGpu;
      s.link = fn.link;
      if (fn.fragment) {
        s.label = "unnamed device (LnkCap/LnkSta at " + where(source, fn.line) + ", no lspci header)";
        s.text_source = where(source, fn.line);
        links.push_back(std::move(s));
        continue;
      }
      auto a = parse_pci_address(fn.bdf);
      if (auto it = by_secondary.find({a->domain, a->bus}); it != by_secondary.end()) {
        s.parent_bdf = it->second->bdf;
        s.parent_max_speed_gts = it->second->link.max_speed_gts;
        s.parent_max_width = it->second->link.max_width;
      }
      links.push_back(std::move(s));
    }
    f.pcie_links = std::move(links);
  }

  std::vector<AcsPort> acs;
  for (const auto& fn : l.functions) {
    if (fn.kind != PciKind::kBridge || (!fn.acs_control && !fn.caps_denied)) continue;
    AcsPort p;
    p.bdf = fn.bdf;
    p.label = label_of(fn);
    if (fn.acs_control) {
      p.status = AcsStatus::kRead;
      p.control = *fn.acs_control;
      p.source = where(source, fn.acs_line);
    } else {
      p.status = AcsStatus::kNeedsRoot;
      p.detail = "lspci printed \"Capabilities: <access denied>\": it ran without root";
      p.source = where(source, fn.line);
    }
    if (fn.secondary_bus && fn.subordinate_bus) {
      p.position_known = true;
      auto dom = parse_pci_address(fn.bdf)->domain;
      for (const auto& d : l.functions) {
        if (d.kind != PciKind::kGpu && d.kind != PciKind::kNic) continue;
        auto a = parse_pci_address(d.bdf);
        if (a->domain == dom && a->bus >= *fn.secondary_bus && a->bus <= *fn.subordinate_bus)
          p.below.push_back(label_of(d));
      }
    }
    acs.push_back(std::move(p));
  }
  for (const auto& a : l.loose_acs) {
    AcsPort p;
    p.label = "ACSCtl line " + std::to_string(a.line);
    p.status = AcsStatus::kRead;
    p.control = a.control;
    p.source = where(source, a.line);
    acs.push_back(std::move(p));
  }
  f.acs_ports = std::move(acs);
  return f;
}

void to_json(nlohmann::json& j, const LspciListing& l) {
  auto opt_d = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  auto opt_i = [](const std::optional<int>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  j = nlohmann::json::object();
  nlohmann::json fns = nlohmann::json::array();
  for (const auto& f : l.functions) {
    nlohmann::json o = {{"bdf", f.bdf},
                        {"class", f.class_name},
                        {"description", f.description},
                        {"kind", to_string(f.kind)},
                        {"port_type", f.port_type},
                        {"secondary_bus", f.secondary_bus ? nlohmann::json(*f.secondary_bus) : nlohmann::json(nullptr)},
                        {"subordinate_bus", f.subordinate_bus ? nlohmann::json(*f.subordinate_bus) : nlohmann::json(nullptr)},
                        {"max_speed_gts", opt_d(f.link.max_speed_gts)},
                        {"max_width", opt_i(f.link.max_width)},
                        {"current_speed_gts", opt_d(f.link.current_speed_gts)},
                        {"current_width", opt_i(f.link.current_width)},
                        {"speed_note", f.speed_note},
                        {"width_note", f.width_note},
                        {"numa_node", f.numa_node},
                        {"driver", f.driver},
                        {"product_name", f.product_name},
                        {"line", f.line}};
    if (f.acs_control) {
      o["acs_control"] = *f.acs_control;
      o["acs_control_text"] = acs_control_text(*f.acs_control);
    } else {
      o["acs_control"] = nullptr;
    }
    fns.push_back(std::move(o));
  }
  j["functions"] = fns;
  nlohmann::json loose = nlohmann::json::array();
  for (const auto& a : l.loose_acs)
    loose.push_back({{"line", a.line}, {"control", a.control}, {"control_text", acs_control_text(a.control)}});
  j["loose_acs"] = loose;
}

}  // namespace fabdiag
