#include "import/nvsmi_nvlink.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "core/text.h"
#include "import/common.h"
#include "import/format_detect.h"
#include "import/nul_bytes.h"
#include "import/whole_lines.h"

namespace fabdiag {

size_t NvlinkGpu::active_links() const {
  return static_cast<size_t>(std::count_if(links.begin(), links.end(), [](const NvlinkLink& l) {
    return l.speed_bytes_per_s.has_value();
  }));
}

double NvlinkGpu::total_bytes_per_s() const {
  double sum = 0;
  for (const auto& l : links) sum += l.speed_bytes_per_s.value_or(0);
  return sum;
}

bool NvlinkGpu::status_known() const {
  return all_inactive || std::any_of(links.begin(), links.end(), [](const NvlinkLink& l) { return !l.state.empty(); });
}

namespace {

bool has(std::string_view s, std::string_view w) { return s.find(w) != std::string_view::npos; }

// "Replay Errors" -> "replay_errors".
std::string counter_key(std::string_view name) {
  std::string out;
  for (char c : trim(name)) {
    auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) out += static_cast<char>(std::tolower(u));
    else if (!out.empty() && out.back() != '_') out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

// "GPU 7: NVIDIA A100-SXM4-80GB (UUID: GPU-...)" -> index, name, uuid.
std::optional<NvlinkGpu> parse_gpu_header(const std::string& t, size_t line_no) {
  if (!starts_with(t, "GPU ")) return std::nullopt;
  auto colon = t.find(':');
  if (colon == std::string::npos) return std::nullopt;
  auto index = parse_u64(t.substr(4, colon - 4));
  if (!index || *index > 4096) return std::nullopt;
  NvlinkGpu g;
  g.index = static_cast<int>(*index);
  g.line = line_no;
  std::string rest = trim(t.substr(colon + 1));
  if (auto u = rest.find("(UUID: "); u != std::string::npos) {
    auto end = rest.find(')', u);
    g.uuid = trim(rest.substr(u + 7, end == std::string::npos ? std::string::npos : end - u - 7));
    rest = trim(rest.substr(0, u));
  }
  g.name = rest;
  return g;
}

// GPUs kept (a node has at most a few dozen; more is a paste of many nodes or junk).
constexpr size_t kMaxGpus = 1024;

struct Reader {
  NvsmiNvlinkImport& imp;
  NvlinkGpu* gpu = nullptr;
  size_t evidence = 0;
  LineTally other;
  LineTally orphan, overflow;  // link lines before any GPU header; GPUs past kMaxGpus

  // The GPU of header `g`: one already read with the same index (and UUID, where both print one),
  // else a new one; nullptr past kMaxGpus.
  NvlinkGpu* gpu_for(NvlinkGpu g) {
    for (auto& have : imp.gpus)
      if (have.index == g.index && (have.uuid == g.uuid || have.uuid.empty() || g.uuid.empty())) {
        if (have.uuid.empty()) have.uuid = g.uuid;
        if (have.name.empty()) have.name = g.name;
        return &have;
      }
    if (imp.gpus.size() >= kMaxGpus) return nullptr;
    imp.gpus.push_back(std::move(g));
    return &imp.gpus.back();
  }

  NvlinkLink& link_for(int n, size_t line_no) {
    auto it = std::find_if(gpu->links.begin(), gpu->links.end(), [n](const NvlinkLink& l) { return l.link == n; });
    if (it != gpu->links.end()) return *it;
    NvlinkLink l;
    l.link = n;
    l.line = line_no;
    auto at = std::upper_bound(gpu->links.begin(), gpu->links.end(), n,
                               [](int v, const NvlinkLink& x) { return v < x.link; });
    return *gpu->links.insert(at, l);
  }

  // "Link 3: 25 GB/s", "Link 3: <inactive>", "Link 0: Replay Errors: 0".
  bool link_line(const std::string& t, size_t line_no) {
    if (!starts_with(t, "Link ")) return false;
    auto colon = t.find(": ");
    auto n = colon == std::string::npos ? std::nullopt : parse_u64(t.substr(5, colon - 5));
    if (!n || *n > 1024) return false;
    std::string v = trim(t.substr(colon + 2));
    bool speed = ends_with(v, "GB/s"), inactive = v == "<inactive>";
    auto ec = v.rfind(": ");
    bool counter = !speed && !inactive && ec != std::string::npos && has(v.substr(0, ec), "Errors");
    if (!speed && !inactive && !counter) return false;
    if (!gpu) {
      (imp.gpus.size() >= kMaxGpus ? overflow : orphan).add(line_no, t);
      return true;
    }
    NvlinkLink& l = link_for(static_cast<int>(*n), line_no);
    if (counter) {
      auto value = parse_u64(trim(v.substr(ec + 2)));
      if (!value) return false;
      l.errors[counter_key(v.substr(0, ec))] = *value;
      imp.errors_read = true;
    } else {
      l.state = v;
      if (speed)
        if (auto gb = parse_leading_double(v); gb && *gb > 0) l.speed_bytes_per_s = *gb * 1e9;
      imp.status_read = true;
    }
    ++evidence;
    return true;
  }

  void line(std::string_view raw, size_t line_no) {
    std::string t = trim(raw);
    if (t.empty() || starts_with(t, "###")) return;
    if (auto g = parse_gpu_header(t, line_no)) {
      gpu = gpu_for(std::move(*g));
      return;
    }
    if (starts_with(t, "NVML: Unable to retrieve NVLink information") && gpu) {
      gpu->all_inactive = has(t, "inactive");
      imp.status_read = true;
      ++evidence;
      return;
    }
    if (!link_line(t, line_no)) other.add(line_no, t);
  }
};

}  // namespace

Result<NvsmiNvlinkImport> import_nvsmi_nvlink(LineSource& lines, const std::string& source, const ReadLimits&) {
  NvsmiNvlinkImport imp;
  imp.source = source;
  Reader r{imp, nullptr, 0, {}, {}, {}};
  NulTally nuls;
  auto st = for_each_whole_line(
      lines, source,
      [&](std::string_view l, size_t n) {
        nuls.see(l, n);
        r.line(l, n);
      },
      imp.gaps,
      [&](std::string_view l, size_t n) { r.other.add(n, l); });
  if (!st) return st.error();
  if (r.orphan.count)
    imp.gaps.push_back(make_error(ErrorCode::kParse,
                                  std::to_string(r.orphan.count) + " link line(s) before any \"GPU N:\" line, not read; the first: " +
                                      r.orphan.first_text,
                                  line_source(source, r.orphan.first)));
  if (r.overflow.count)
    imp.gaps.push_back(make_error(ErrorCode::kParse,
                                  "more than " + std::to_string(kMaxGpus) + " GPUs: " + std::to_string(r.overflow.count) +
                                      " link line(s) of the GPUs past them not read",
                                  line_source(source, r.overflow.first)));
  if (r.evidence == 0) {
    Error e = not_this_format(
        "`nvidia-smi nvlink -s` or `-e` output (\"GPU N: <name> (UUID: ...)\" then \"Link N: 25 GB/s\", "
        "\"Link N: <inactive>\" or \"Link N: Replay Errors: 0\")",
        source, r.other);
    if (lines.nul_bytes()) e.message += " (binary data: " + std::to_string(lines.nul_bytes()) + " NUL bytes)";
    return e;
  }
  add_nul_gap(imp.gaps, source, nuls);  // NULs are not emptiness: the rest was read
  return imp;
}

Result<NvsmiNvlinkImport> import_nvsmi_nvlink(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_nvsmi_nvlink(*lines, source, ReadLimits{});
}

namespace {

std::string gpu_subject(const NvlinkGpu& g) { return "GPU " + std::to_string(g.index); }

std::string gb_s(double bytes_per_s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g GB/s", bytes_per_s / 1e9);
  return buf;
}

// SXM and Grace-Blackwell parts reach their peers over NVLink (NVSwitch or a board mesh); a PCIe
// card may have no bridge at all.
bool nvlink_expected(const std::string& name) { return has(name, "SXM") || has(name, "NVIDIA GB"); }

std::string src(const NvsmiNvlinkImport& imp, size_t line) { return line_source(imp.source, line); }

// The GPUs other than `g` with links up: "GPU 7 (12 x 25 GB/s)".
std::vector<std::string> peers_up(const NvsmiNvlinkImport& imp, const NvlinkGpu& g) {
  std::vector<std::string> out;
  for (const auto& p : imp.gpus)
    if (&p != &g && p.active_links() > 0)
      out.push_back(gpu_subject(p) + " (" + std::to_string(p.active_links()) + " links, " + gb_s(p.total_bytes_per_s()) +
                    ")");
  return out;
}

void no_link_finding(const NvsmiNvlinkImport& imp, const NvlinkGpu& g, std::vector<Finding>& out) {
  auto peers = peers_up(imp, g);
  bool fault = nvlink_expected(g.name) || !peers.empty();
  Finding f;
  f.severity = fault ? Severity::kError : Severity::kInfo;
  f.code = "nvlink_all_inactive";
  f.subject = gpu_subject(g);
  f.message = gpu_subject(g) + " (" + (g.name.empty() ? "model not printed" : g.name) + ") has no active NVLink" +
              (g.links.empty() ? "" : " (" + std::to_string(g.links.size()) + " links listed, all <inactive>)") +
              (fault ? ": it is cut off from the NVLink fabric and its peer traffic falls back to PCIe" +
                           (peers.empty() ? std::string() : "; up on " + join(peers))
                     : ": normal for a PCIe card without an NVLink bridge or a lone GPU");
  Evidence e = Evidence::number("nvlink links active", 0, "links", src(imp, g.line));
  e.value_text = g.all_inactive ? "NVML: all links are inactive" : "every link <inactive>";
  f.evidence.push_back(e.expect(fault ? "links up (an NVLink part, or its peers have links up)" : "none expected"));
  f.action = fault ? "Check the Fabric Manager service (NVSwitch systems) and the kernel log for Xid 74/79 on this GPU; "
                     "reset the GPU (nvidia-smi -r) or reboot, and RMA it when the links stay down."
                   : "Nothing, unless this GPU should have an NVLink bridge.";
  out.push_back(std::move(f));
}

void partial_findings(const NvsmiNvlinkImport& imp, const NvlinkGpu& g, std::vector<Finding>& out) {
  double fastest = 0;
  for (const auto& l : g.links) fastest = std::max(fastest, l.speed_bytes_per_s.value_or(0));
  Finding down, slow;
  for (const auto& l : g.links) {
    std::string name = "link " + std::to_string(l.link);
    if (!l.speed_bytes_per_s && !l.state.empty())
      down.evidence.push_back(Evidence::text(name, l.state, src(imp, l.line)).expect(gb_s(fastest)));
    else if (l.speed_bytes_per_s && *l.speed_bytes_per_s < fastest * 0.99)
      slow.evidence.push_back(
          Evidence::number(name + " speed", *l.speed_bytes_per_s, "bytes/s", src(imp, l.line)).expect(fastest, gb_s(fastest)));
  }
  std::string who = gpu_subject(g) + (g.name.empty() ? "" : " (" + g.name + ")");
  if (!down.evidence.empty()) {
    down.severity = Severity::kError;
    down.code = "nvlink_links_inactive";
    down.subject = gpu_subject(g);
    down.message = who + ": " + std::to_string(down.evidence.size()) + " of " + std::to_string(g.links.size()) +
                   " NVLinks inactive, " + std::to_string(g.active_links()) + " up (" + gb_s(g.total_bytes_per_s()) +
                   " in all): peer bandwidth is reduced and NCCL may route around this GPU";
    down.action = "Look for Xid 74 on this GPU in the kernel log and at `nvidia-smi nvlink -e`; reset the GPU or "
                  "reboot, and RMA (or reseat the bridge) when the same links stay down.";
    out.push_back(std::move(down));
  }
  if (!slow.evidence.empty()) {
    slow.severity = Severity::kWarn;
    slow.code = "nvlink_speed_low";
    slow.subject = gpu_subject(g);
    slow.message = who + ": " + std::to_string(slow.evidence.size()) + " active NVLink(s) slower than its fastest (" +
                   gb_s(fastest) + ")";
    slow.action = "Compare with `nvidia-smi nvlink -s` after a GPU reset; a link that trains at a lower speed is a "
                  "hardware or bridge fault.";
    out.push_back(std::move(slow));
  }
}

void error_counter_finding(const NvsmiNvlinkImport& imp, const NvlinkGpu& g, std::vector<Finding>& out) {
  Finding f;
  uint64_t total = 0;
  std::vector<std::string> links;
  for (const auto& l : g.links) {
    bool any = false;
    for (const auto& [name, v] : l.errors)
      if (v > 0) {
        f.evidence.push_back(Evidence::number("link " + std::to_string(l.link) + " " + name, static_cast<double>(v),
                                              "count", src(imp, l.line))
                                 .expect(0, "0"));
        total += v;
        any = true;
      }
    if (any) links.push_back(std::to_string(l.link));
  }
  if (f.evidence.empty()) return;
  f.severity = Severity::kWarn;
  f.code = "nvlink_error_counters";
  f.subject = gpu_subject(g);
  f.message = gpu_subject(g) + ": " + std::to_string(total) + " NVLink errors (replay, recovery or CRC) on link(s) " +
              join(links) + " since the counters were last reset";
  f.action = "Read `nvidia-smi nvlink -e` again after a workload: counters that keep rising on one link point at that "
             "link (bridge, NVSwitch port or the GPU); recovery errors are link retraining events.";
  out.push_back(std::move(f));
}

}  // namespace

std::vector<Finding> nvsmi_nvlink_findings(const NvsmiNvlinkImport& imp) {
  std::vector<Finding> out;
  for (const auto& g : imp.gpus) {
    if (g.status_known() && g.active_links() == 0) no_link_finding(imp, g, out);
    else if (g.status_known()) partial_findings(imp, g, out);
    error_counter_finding(imp, g, out);
  }
  return out;
}

nlohmann::json nvsmi_nvlink_data(const NvsmiNvlinkImport& imp) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : imp.gpus) {
    nlohmann::json links = nlohmann::json::array();
    double fastest = 0;
    std::map<std::string, uint64_t> sums;
    for (const auto& l : g.links) {
      nlohmann::json j = {{"link", l.link}, {"state", l.state}, {"errors", l.errors}};
      j["speed_bytes_per_s"] = l.speed_bytes_per_s ? nlohmann::json(*l.speed_bytes_per_s) : nlohmann::json(nullptr);
      fastest = std::max(fastest, l.speed_bytes_per_s.value_or(0));
      for (const auto& [k, v] : l.errors) sums[k] += v;
      links.push_back(std::move(j));
    }
    gpus.push_back({{"gpu_index", g.index},
                    {"name", g.name},
                    {"uuid", g.uuid},
                    {"links_listed", g.links.size()},
                    {"links_active", g.active_links()},
                    {"all_links_inactive", g.status_known() && g.active_links() == 0},
                    {"link_speed_bytes_per_s", fastest},
                    {"total_bytes_per_s", g.total_bytes_per_s()},
                    {"error_counters", sums},
                    {"links", links}});
  }
  return {{"tool", "nvidia-smi nvlink"},
          {"status_read", imp.status_read},
          {"errors_read", imp.errors_read},
          {"gpus", gpus}};
}

}  // namespace fabdiag
