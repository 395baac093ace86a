#include "import/nvsmi_topo.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "core/line_source.h"
#include "core/text.h"

namespace fabdiag {

namespace {


// GPU3, NIC0, or an RDMA device name (mlx5_0, mlx5_bond_0) as older drivers print them.
bool is_device_token(std::string_view t) {
  if (starts_with(t, "GPU") && all_digits(t.substr(3))) return true;
  if (starts_with(t, "NIC") && all_digits(t.substr(3))) return true;
  auto us = t.rfind('_');
  return us != std::string_view::npos && us > 0 && all_digits(t.substr(us + 1)) &&
         std::isalpha(static_cast<unsigned char>(t[0]));
}

bool is_gpu_name(std::string_view t) { return starts_with(t, "GPU") && all_digits(t.substr(3)); }

std::string at(const std::string& source, size_t line) { return source + ":" + std::to_string(line); }

Relation parse_cell(const std::string& c) {
  Relation r;
  if (c == "X") r.pcie = PcieLevel::kSelf;
  else if (c == "PIX") r.pcie = PcieLevel::kPix;
  else if (c == "PXB") r.pcie = PcieLevel::kPxb;
  else if (c == "PHB") r.pcie = PcieLevel::kPhb;
  else if (c == "NODE") r.pcie = PcieLevel::kNode;
  else if (c == "SYS" || c == "SOC") r.pcie = PcieLevel::kSys;
  else if (starts_with(c, "NV") && all_digits(std::string_view(c).substr(2))) {
    // is_nvsmi_relation admits at most 3 digits (NV18 is the most a GPU pair has today).
    if (auto n = parse_u64(std::string_view(c).substr(2)); n && *n <= 999) r.nvlink_links = static_cast<int>(*n);
  }
  return r;  // "N/A": unknown
}

}  // namespace

bool is_nvsmi_relation(std::string_view t) {
  static const std::set<std::string_view> kCodes = {"X", "PIX", "PXB", "PHB", "NODE", "SYS", "SOC", "N/A"};
  if (kCodes.count(t)) return true;
  return starts_with(t, "NV") && all_digits(t.substr(2)) && t.size() <= 5;
}

namespace {

// The matrix being read, line by line: a header line starts it, and a header read again (the
// command run again, pastes of a loop) starts it over: the later matrix replaces the earlier one.
struct TopoParser {
  const std::string& source;
  NvsmiTopo out;
  std::map<std::string, size_t> col_index;
  std::set<std::string> seen;
  enum class Mode { kMatrix, kLegend, kNicLegend } mode = Mode::kMatrix;

  // A header line ("GPU0 GPU1 ... NIC0 CPU Affinity NUMA Affinity"): the matrix starts (over).
  bool read_header(const std::vector<std::string>& tok) {
    bool starts = tok[0] == "GPU0" || tok[0] == "NIC0" ||
                  (is_device_token(tok[0]) && tok.size() > 1 && is_device_token(tok[1]));
    if (!starts || (tok.size() > 1 && is_nvsmi_relation(tok[1]))) return false;  // a row, not the header
    if (!out.columns.empty()) ++out.matrices_replaced;
    out.columns.clear(), out.extra_columns.clear(), out.rows.clear(), out.nic_legend.clear();
    col_index.clear(), seen.clear();
    mode = Mode::kMatrix;
    size_t k = 0;
    while (k < tok.size() && is_device_token(tok[k])) out.columns.push_back(tok[k++]);
    std::string rest;
    for (; k < tok.size(); ++k) rest += (rest.empty() ? "" : " ") + tok[k];
    // The affinity columns in the order printed.
    std::vector<std::pair<size_t, std::string>> found;
    for (const char* name : {"CPU Affinity", "NUMA Affinity", "GPU NUMA ID"})
      if (auto p = rest.find(name); p != std::string::npos) found.emplace_back(p, name);
    std::sort(found.begin(), found.end());
    for (auto& [p, name] : found) out.extra_columns.push_back(name);
    for (size_t c = 0; c < out.columns.size(); ++c) col_index[out.columns[c]] = c;
    return true;
  }

  void read_row(const std::vector<std::string>& tok, size_t lineno) {
    if (!col_index.count(tok[0])) {
      if (is_device_token(tok[0]) && tok.size() > 1 && is_nvsmi_relation(tok[1]))
        out.gaps.push_back(make_error(ErrorCode::kParse, "row " + tok[0] + " is not one of the header's columns; skipped",
                                      at(source, lineno)));
      return;
    }
    if (!seen.insert(tok[0]).second) {
      out.gaps.push_back(make_error(ErrorCode::kParse, "second row for " + tok[0] + "; the first one is kept", at(source, lineno)));
      return;
    }
    NvsmiTopoRow row;
    row.name = tok[0];
    row.line = lineno;
    size_t k = 1;
    while (row.cells.size() < out.columns.size() && k < tok.size() && is_nvsmi_relation(tok[k])) row.cells.push_back(tok[k++]);
    if (row.cells.size() < out.columns.size())
      out.gaps.push_back(make_error(ErrorCode::kParse,
                                    "row " + row.name + " has " + std::to_string(row.cells.size()) + " of " +
                                        std::to_string(out.columns.size()) +
                                        " relation cells (truncated line?); the others stay unknown",
                                    at(source, lineno)));
    for (size_t e = 0; e < out.extra_columns.size() && k < tok.size(); ++e, ++k) {
      const auto& name = out.extra_columns[e];
      (name == "CPU Affinity" ? row.cpu_affinity : name == "NUMA Affinity" ? row.numa_affinity : row.gpu_numa_id) = tok[k];
    }
    out.rows.push_back(std::move(row));
  }

  void read_line(std::string_view line, size_t lineno) {
    auto tok = split_ws(line);
    if (tok.empty() || read_header(tok) || out.columns.empty()) return;  // text before the header
    if (tok[0] == "Legend:") {
      mode = Mode::kLegend;
      return;
    }
    if (tok.size() >= 2 && tok[0] == "NIC" && tok[1] == "Legend:") {
      mode = Mode::kNicLegend;
      return;
    }
    if (mode == Mode::kNicLegend) {
      if (tok.size() >= 2 && ends_with(tok[0], ":")) out.nic_legend.emplace_back(tok[0].substr(0, tok[0].size() - 1), tok[1]);
      return;
    }
    if (mode == Mode::kMatrix) read_row(tok, lineno);
  }

  // The last matrix read: its missing rows and legend.
  void finish() {
    std::string missing;
    for (const auto& c : out.columns)
      if (!seen.count(c)) missing += (missing.empty() ? "" : ", ") + c;
    if (!missing.empty())
      out.gaps.push_back(make_error(ErrorCode::kNotFound,
                                    "no row for " + missing +
                                        " (the output is cut off or those rows were not printed); their relations stay "
                                        "unknown and are not derived from the other rows",
                                    source));
    // NIC<n> columns need the legend for their names (older drivers print the names directly).
    bool numbered_nic = false;
    for (const auto& c : out.columns) numbered_nic |= starts_with(c, "NIC");
    if (numbered_nic && out.nic_legend.empty())
      out.gaps.push_back(make_error(ErrorCode::kNotFound,
                                    "no NIC legend (NIC0: mlx5_0 ...): the RDMA device names of the NIC columns are unknown",
                                    source));
  }
};

}  // namespace

Result<NvsmiTopo> parse_nvsmi_topo(LineSource& lines, const std::string& source) {
  TopoParser p{source, {}, {}, {}};
  while (auto line = lines.next()) p.read_line(*line, lines.line_no());
  if (lines.error()) return *lines.error();
  if (p.out.columns.empty())
    return make_error(ErrorCode::kParse,
                      "no `nvidia-smi topo -m` matrix header found (a line of device columns starting with GPU0)",
                      source);
  p.finish();
  return std::move(p.out);
}

Result<NvsmiTopo> parse_nvsmi_topo(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return parse_nvsmi_topo(*lines, source);
}

TopologyReport nvsmi_topo_to_report(const NvsmiTopo& topo, const std::string& source) {
  TopologyReport r;
  std::map<std::string, std::string> legend(topo.nic_legend.begin(), topo.nic_legend.end());
  std::map<std::string, const NvsmiTopoRow*> rows;
  for (const auto& row : topo.rows) rows[row.name] = &row;
  const size_t n = topo.columns.size();
  for (const auto& name : topo.columns) {
    TopoDevice d;
    d.name = name;
    d.kind = is_gpu_name(name) ? TopoKind::kGpu : TopoKind::kNic;
    if (d.kind == TopoKind::kNic) {
      d.rdma = true;  // nvidia-smi lists only RDMA-capable NICs
      if (auto it = legend.find(name); it != legend.end()) d.ibdev = it->second;
      else if (!starts_with(name, "NIC")) d.ibdev = name;
    }
    if (auto it = rows.find(name); it != rows.end()) {
      const auto& row = *it->second;
      if (auto numa = parse_i64(row.numa_affinity); numa && *numa >= 0) d.pci.numa_node = static_cast<int>(*numa);
      if (parse_cpulist(row.cpu_affinity)) d.pci.local_cpulist = row.cpu_affinity;
      if (auto id = parse_i64(row.gpu_numa_id); id && *id >= 0 && d.kind == TopoKind::kGpu)
        d.gpu_numa_id = static_cast<int>(*id);
    }
    r.devices.push_back(std::move(d));
  }
  r.matrix.assign(n, std::vector<Relation>(n));
  for (size_t a = 0; a < n; ++a) {
    auto it = rows.find(topo.columns[a]);
    for (size_t b = 0; b < n; ++b) {
      if (it == rows.end() || b >= it->second->cells.size()) r.matrix[a][b].missing = true;
      else r.matrix[a][b] = parse_cell(it->second->cells[b]);
    }
  }
  r.nvlink.known = true;
  r.nvlink.reason.clear();
  r.nvlink.source = "nvidia-smi topo -m (" + source + ")";
  r.gaps = topo.gaps;
  return r;
}

Result<NvsmiTopoImport> import_nvsmi_topo(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_nvsmi_topo(*lines, source);
}

Result<NvsmiTopoImport> import_nvsmi_topo(LineSource& lines, const std::string& source) {
  auto parsed = parse_nvsmi_topo(lines, source);
  if (!parsed) return parsed.error();
  NvsmiTopoImport imp;
  imp.matrices_replaced = parsed->matrices_replaced;
  imp.report = nvsmi_topo_to_report(*parsed, source);
  imp.rails = compute_rails(imp.report);
  imp.findings = judge_rails(imp.rails, imp.report, "nvidia-smi topo -m (" + source + ")");
  return imp;
}

}  // namespace fabdiag
