#include "import/nvsmi_query.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "core/text.h"
#include "import/common.h"
#include "import/host_prefix.h"
#include "import/nul_bytes.h"
#include "import/whole_lines.h"
#include "probes/topo/pci.h"

namespace fabdiag {

std::optional<uint64_t> NvsmiField::number() const {
  size_t end = 0;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  if (end == 0 || end > 18) return std::nullopt;
  // The integer must stand alone: the end, a width's "x" ("16x"), or a unit after a space
  // ("88 C", "2560 bank(s)"). "1e30", "4e1x" or "3.5" are not a count of 1, 4 or 3.
  const std::string_view rest = std::string_view(text).substr(end);
  if (!rest.empty() && rest != "x" && rest.front() != ' ') return std::nullopt;
  return parse_u64(text.substr(0, end));
}

bool NvsmiField::unreadable() const { return !text.empty() && text != "N/A" && !number(); }

std::optional<uint64_t> NvsmiQueryGpu::uncorrectable(const std::string& scope) const {
  auto it = ecc.find(scope);
  if (it == ecc.end()) return std::nullopt;
  std::optional<uint64_t> sum;
  for (const auto& [name, f] : it->second) {
    if (name.find("uncorrectable") == std::string::npos) continue;
    if (f.unreadable()) return std::nullopt;  // one unreadable term leaves the sum unknown
    if (auto n = f.number()) sum = sum.value_or(0) + *n;
  }
  if (sum) return sum;
  if (auto dbe = it->second.find("double_bit/total"); dbe != it->second.end()) return dbe->second.number();
  return std::nullopt;
}

std::string NvsmiQueryGpu::label() const {
  std::string s = index ? "GPU " + std::to_string(*index) : std::string("GPU");
  std::vector<std::string> inside;
  inside.push_back(pci_bdf.empty() ? "no GPU header, line " + std::to_string(line) : pci_bdf);
  if (!product_name.text.empty()) inside.push_back(product_name.text);
  s += " (" + join(inside) + ")";
  return host.empty() ? s : s + " on " + host;
}

std::string NvsmiQueryGpu::subject() const {
  std::string s = pci_bdf.empty() ? "GPU at line " + std::to_string(line) : pci_bdf;
  return host.empty() ? s : host + " " + s;
}

std::string nvsmi_pci_bdf(std::string_view bus_id) {
  std::string t = trim(bus_id);
  auto colon = t.find(':');
  if (colon == std::string::npos || colon < 4) return "";
  std::string bdf = t.substr(colon - 4);  // "00000000:18:00.0" -> "0000:18:00.0"
  for (char& c : bdf) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (size_t i = 0; i < colon - 4; ++i)
    if (t[i] != '0') return "";
  return parse_pci_address(bdf) ? bdf : "";
}

bool is_nvsmi_query_marker(std::string_view line) {
  std::string t = trim(split_host_prefix(line).text);  // "gpu-node07:     Clocks Event Reasons" (pdsh)
  if (starts_with(t, "=====") && t.find("NVSMI LOG") != std::string_view::npos) return true;
  if (starts_with(t, "GPU ") && !nvsmi_pci_bdf(t.substr(4)).empty()) return true;
  if (starts_with(t, "Attached GPUs") && t.find(':') != std::string_view::npos &&
      trim(t.substr(0, t.find(':'))) == "Attached GPUs")
    return true;
  return t == "Clocks Event Reasons" || t == "Clocks Throttle Reasons";
}

namespace {

// "SRAM Uncorrectable SEC-DED" -> "sram_uncorrectable_sec_ded".
std::string snake(std::string_view name) {
  std::string out;
  for (char c : name) {
    auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) out += static_cast<char>(std::tolower(u));
    else if (!out.empty() && out.back() != '_') out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

bool contains(const std::vector<std::string>& v, std::string_view name) {
  return std::find(v.begin(), v.end(), name) != v.end();
}

// GPUs kept (a node has at most a few dozen; a collection of many nodes a few thousand).
constexpr size_t kMaxGpus = 4096;

// The GPU's top-level sections in order, to tell a cut last block from a complete one.
using SectionList = std::vector<std::string>;

// A line that encloses the lines indented below it.
struct Enclosing {
  size_t indent = 0;
  std::string name;
  size_t line = 0;
};

struct HostState {
  size_t gpu = SIZE_MAX;  ///< Index into imp.gpus of the block being read.
  std::vector<Enclosing> stack;
  std::optional<uint64_t> attached;
  SectionList reference, current;  ///< The first block's sections, the current block's.
  bool fragment = false;           ///< The current GPU is a fragment without header.
};

struct Reader {
  NvsmiQueryImport& imp;
  std::map<std::string, HostState> hosts;
  size_t evidence = 0;
  LineTally other, overflow;
  LineTally cut;  ///< A cut last line: already its own gap; named only when refusing the input.

  NvsmiQueryGpu* gpu_of(HostState& h) { return h.gpu == SIZE_MAX ? nullptr : &imp.gpus[h.gpu]; }

  void end_block(HostState& h) {
    if (h.reference.empty() && !h.fragment && h.current.size() > 1) h.reference = h.current;
    h.current.clear();
  }

  void start_gpu(HostState& h, const std::string& host, const std::string& bus_id, size_t line_no, bool fragment) {
    end_block(h);
    h.stack.clear();
    h.fragment = fragment;
    std::string bdf = fragment ? "" : nvsmi_pci_bdf(bus_id);
    if (!fragment)
      for (size_t i = 0; i < imp.gpus.size(); ++i)
        if (imp.gpus[i].host == host && imp.gpus[i].pci_bdf == bdf) {
          h.gpu = i;
          ++imp.gpus[i].samples;
          return;
        }
    if (imp.gpus.size() >= kMaxGpus) {
      overflow.add(line_no);
      h.gpu = SIZE_MAX;
      return;
    }
    NvsmiQueryGpu g;
    g.host = host;
    g.bus_id = fragment ? "" : trim(bus_id);
    g.pci_bdf = bdf;
    g.line = line_no;
    g.samples = 1;
    imp.gpus.push_back(std::move(g));
    h.gpu = imp.gpus.size() - 1;
  }

  NvsmiField* top_field(NvsmiQueryGpu& g, const std::string& key) {
    if (key == "Product Name") return &g.product_name;
    if (key == "GPU UUID") return &g.uuid;
    if (key == "Serial Number") return &g.serial;
    if (key == "Minor Number") return &g.minor_number;
    if (key == "Module ID" || key == "Module Id") return &g.module_id;
    if (key == "Performance State") return &g.performance_state;
    return nullptr;
  }

  // The field `key` names under `ctx` (the names of its enclosing lines), or nullptr when
  // fabdiag does not keep it.
  NvsmiField* field_for(NvsmiQueryGpu& g, const std::vector<std::string>& ctx, const std::string& key) {
    if (ctx.empty()) return top_field(g, key);
    const std::string& parent = ctx.back();
    if (parent == "PCIe Generation") {
      if (key == "Max") return &g.gen_max;
      if (key == "Current") return &g.gen_current;
      if (key == "Device Max") return &g.gen_device_max;
      if (key == "Host Max") return &g.gen_host_max;
      if (key == "Device Current") return &g.gen_device_current;
    }
    if (parent == "Link Width") return key == "Max" ? &g.width_max : key == "Current" ? &g.width_current : nullptr;
    if (parent == "PCI")
      return key == "Replays Since Reset" ? &g.replays : key == "Replay Number Rollovers" ? &g.replay_rollovers : nullptr;
    if (parent == "ECC Mode" || parent == "Ecc Mode")
      return key == "Current" ? &g.ecc_mode_current : key == "Pending" ? &g.ecc_mode_pending : nullptr;
    if (parent == "Retired Pages") {
      if (key == "Single Bit ECC") return &g.retired_sbe;
      if (key == "Double Bit ECC") return &g.retired_dbe;
      if (starts_with(key, "Pending")) return &g.retired_pending;
    }
    if (parent == "Remapped Rows") {
      if (key == "Correctable Error") return &g.remap_correctable;
      if (key == "Uncorrectable Error") return &g.remap_uncorrectable;
      if (key == "Pending") return &g.remap_pending;
      if (key == "Remapping Failure Occurred") return &g.remap_failure;
    }
    if (parent == "Fabric") return key == "State" ? &g.fabric_state : key == "Status" ? &g.fabric_status : nullptr;
    if (parent == "Health" && contains(ctx, "Fabric")) return &g.fabric_health[key];
    if (parent == "GPU Reset Status")
      return key == "Reset Required" ? &g.reset_required
             : key == "Drain and Reset Recommended" ? &g.drain_and_reset
                                                    : nullptr;
    if (parent == "Temperature") {
      if (key == "GPU Current Temp") return &g.temp_current;
      if (key == "GPU Shutdown Temp") return &g.temp_shutdown;
      if (key == "GPU Slowdown Temp") return &g.temp_slowdown;
      if (key == "GPU Max Operating Temp") return &g.temp_max_operating;
    }
    return ecc_or_clock_field(g, ctx, key);
  }

  NvsmiField* ecc_or_clock_field(NvsmiQueryGpu& g, const std::vector<std::string>& ctx, const std::string& key) {
    for (const char* counters : {"Clocks Event Reasons Counters", "Clocks Throttle Reasons Counters"})
      if (contains(ctx, counters)) return &g.clock_reason_counters[key];
    for (const char* title : {"Clocks Event Reasons", "Clocks Throttle Reasons"})
      if (contains(ctx, title)) {
        g.clock_reasons_title = title;
        return &g.clock_reasons[key];
      }
    if (key == "SRAM Threshold Exceeded") return &g.sram_threshold_exceeded;
    if (contains(ctx, "Aggregate Uncorrectable SRAM Sources"))
      return &g.ecc["aggregate_sram_sources"][snake(key)];
    auto scope = std::find_if(ctx.begin(), ctx.end(), [](const std::string& n) { return n == "Volatile" || n == "Aggregate"; });
    if (scope == ctx.end() || (scope != ctx.begin() && *(scope - 1) != "ECC Errors")) return nullptr;
    std::string name;
    for (auto it = scope + 1; it != ctx.end(); ++it) name += snake(*it) + "/";
    return &g.ecc[snake(*scope)][name + snake(key)];
  }

  // A field line "Key : Value" under the current GPU; a fragment GPU that already has the field
  // ends there (the next GPU of a `grep -A` paste begins).
  void field(HostState& h, const std::string& host, const std::vector<std::string>& ctx, const std::string& key,
             const std::string& value, size_t line_no) {
    NvsmiQueryGpu* g = gpu_of(h);
    if (!g) return;
    NvsmiField* f = field_for(*g, ctx, key);
    if (!f) return;
    if (h.fragment && !f->text.empty()) {
      auto stack = h.stack;  // the enclosing sections carry over to the next GPU, which begins at them
      start_gpu(h, host, "", stack.empty() ? line_no : stack.front().line, true);
      h.stack = std::move(stack);
      if (!(g = gpu_of(h)) || !(f = field_for(*g, ctx, key))) return;
    }
    *f = NvsmiField{value, line_no};
    ++evidence;
  }

  // Sections that make a headerless fragment a GPU of its own.
  static bool known_section(const std::string& name) {
    for (const char* s : {"PCI", "GPU Link Info", "PCIe Generation", "Link Width", "ECC Errors", "ECC Mode", "Ecc Mode",
                          "Retired Pages", "Remapped Rows", "Clocks Event Reasons", "Clocks Throttle Reasons",
                          "Clocks Event Reasons Counters", "Fabric", "GPU Reset Status", "Temperature", "Volatile",
                          "Aggregate"})
      if (name == s) return true;
    return false;
  }

  static bool is_log_header_key(const std::string& key) {
    return key == "Timestamp" || key == "Driver Version" || key == "CUDA Version" || key == "Attached GPUs";
  }

  // The lines of the log header, before the first GPU block.
  void top_level(HostState& h, const std::string& key, const std::string& value, size_t line_no) {
    end_block(h);
    h.gpu = SIZE_MAX, h.stack.clear(), h.fragment = false;
    if (key == "Attached GPUs") h.attached = NvsmiField{value, line_no}.number();
    else if (key == "Driver Version" && imp.driver_version.empty()) imp.driver_version = value;
    else if (key == "CUDA Version" && imp.cuda_version.empty()) imp.cuda_version = value;
  }

  void line(std::string_view raw, size_t line_no) {
    HostPrefixed hp = split_host_prefix(strip_launcher_tags(raw));
    std::string text = hp.text;
    std::replace(text.begin(), text.end(), '\t', ' ');
    size_t indent = text.find_first_not_of(' ');
    if (indent == std::string::npos) return;
    std::string t = trim(text);
    if (t == "--" || starts_with(t, "###") || starts_with(t, "$ ") || starts_with(t, "# ")) return;
    HostState& h = hosts[hp.host];
    if (starts_with(t, "=====") && t.find("NVSMI LOG") != std::string::npos) {
      end_block(h);
      h.gpu = SIZE_MAX, h.stack.clear(), h.fragment = false;
      ++imp.logs, ++evidence;
      return;
    }
    if (starts_with(t, "GPU ") && !nvsmi_pci_bdf(t.substr(4)).empty()) {
      start_gpu(h, hp.host, t.substr(4), line_no, false);
      ++evidence;
      return;
    }
    auto colon = t.find(':');
    std::string key = trim(colon == std::string::npos ? t : t.substr(0, colon));
    std::string value = colon == std::string::npos ? "" : trim(t.substr(colon + 1));
    if (indent == 0 && colon != std::string::npos && is_log_header_key(key)) {
      top_level(h, key, value, line_no);
      return;
    }
    while (!h.stack.empty() && h.stack.back().indent >= indent) h.stack.pop_back();
    if (h.gpu == SIZE_MAX) {
      if (!known_section(key)) {
        other.add(line_no, t);
        return;
      }
      start_gpu(h, hp.host, "", line_no, true);  // a `grep -A` fragment without its GPU header
      if (h.gpu == SIZE_MAX) return;
    }
    std::vector<std::string> ctx;
    for (const auto& e : h.stack) ctx.push_back(e.name);
    if (ctx.empty() && !h.fragment) h.current.push_back(key);
    if (colon != std::string::npos) field(h, hp.host, ctx, key, value, line_no);
    h.stack.push_back(Enclosing{indent, key, line_no});
  }

  // GPU indexes: the position on its host where the output lists every attached GPU.
  void assign_indexes() {
    for (const auto& [host, h] : hosts) {
      std::vector<NvsmiQueryGpu*> listed;
      for (auto& g : imp.gpus)
        if (g.host == host && !g.pci_bdf.empty()) listed.push_back(&g);
      if (!h.attached || *h.attached != listed.size()) continue;
      for (size_t i = 0; i < listed.size(); ++i) listed[i]->index = static_cast<int>(i);
    }
  }

  // The last block of a host that stops before the sections its first block had: cut.
  void cut_blocks() {
    for (auto& [host, h] : hosts) {
      NvsmiQueryGpu* g = gpu_of(h);
      if (!g || h.fragment || h.reference.empty() || h.current.empty()) continue;
      if (h.current.size() >= h.reference.size()) continue;
      if (!std::equal(h.current.begin(), h.current.end(), h.reference.begin())) continue;
      std::vector<std::string> missing(h.reference.begin() + static_cast<long>(h.current.size()), h.reference.end());
      imp.gaps.push_back(make_error(ErrorCode::kParse,
                                    "the block of " + g->label() + " ends after \"" + h.current.back() +
                                        "\" (the output was cut): NOT READ: " + join_first(missing, 6, ", ", "...") +
                                        " (printed for the GPUs before it); what they hold is unknown",
                                    line_source(imp.source, g->line)));
    }
  }
};

// Counts and widths printed as something this reader cannot take for a number ("1e30", "-3",
// 20 digits, "4e1x"): a gap naming the line, so an unknown never reads as 0 or as a prefix of it.
void unreadable_numbers(NvsmiQueryImport& imp) {
  for (const auto& g : imp.gpus) {
    std::vector<std::pair<std::string, const NvsmiField*>> fields = {
        {"Link Width Max", &g.width_max},          {"Link Width Current", &g.width_current},
        {"PCIe Generation Max", &g.gen_max},       {"PCIe Generation Current", &g.gen_current},
        {"Retired Pages Double Bit ECC", &g.retired_dbe}, {"Remapped Rows Uncorrectable", &g.remap_uncorrectable}};
    for (const auto& [scope, m] : g.ecc)
      for (const auto& [name, f] : m) fields.emplace_back("ECC " + scope + " " + name, &f);
    for (const auto& [what, f] : fields)
      if (f->unreadable())
        imp.gaps.push_back(make_error(ErrorCode::kParse,
                                      g.label() + ": " + what + " is \"" + f->text +
                                          "\", not a whole number this reader can trust: left unknown",
                                      line_source(imp.source, f->line)));
  }
}

}  // namespace

Result<NvsmiQueryImport> import_nvsmi_query(LineSource& lines, const std::string& source, const ReadLimits&) {
  NvsmiQueryImport imp;
  imp.source = source;
  Reader r{imp, {}, 0, {}, {}, {}};
  NulTally nuls;
  auto st = for_each_whole_line(
      lines, source,
      [&](std::string_view l, size_t n) {
        nuls.see(l, n);
        r.line(l, n);
      },
      imp.gaps,
      [&](std::string_view l, size_t n) { r.cut.add(n, l); });
  if (!st) return st.error();
  if (r.evidence == 0 || imp.gpus.empty()) {
    Error e = not_this_format(
        "`nvidia-smi -q` output (\"==============NVSMI LOG==============\", \"GPU 00000000:18:00.0\" blocks, "
        "or their PCI / ECC Errors / Remapped Rows / Clocks Event Reasons sections)",
        source, r.other.count ? r.other : r.cut);
    if (lines.nul_bytes()) e.message += " (binary data: " + std::to_string(lines.nul_bytes()) + " NUL bytes)";
    return e;
  }
  add_nul_gap(imp.gaps, source, nuls);  // NULs are not emptiness: the rest was read
  r.assign_indexes();
  r.cut_blocks();
  unreadable_numbers(imp);
  add_tally_gap(imp.gaps, source, r.other, "line(s) not understood");
  if (r.overflow.count)
    imp.gaps.push_back(make_error(ErrorCode::kParse,
                                  "more than " + std::to_string(kMaxGpus) + " GPUs: " + std::to_string(r.overflow.count) +
                                      " GPU block(s) past them not read",
                                  line_source(source, r.overflow.first)));
  return imp;
}

Result<NvsmiQueryImport> import_nvsmi_query(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_nvsmi_query(*lines, source, ReadLimits{});
}

}  // namespace fabdiag
