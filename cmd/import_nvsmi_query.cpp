// `fabdiag import nvidia-smi-q FILE`: `nvidia-smi -q` text -> one fabdiag.gpuquery/1 envelope
// (per GPU: PCIe link, ECC, retired pages / remapped rows, clock event reasons, fabric;
// import/nvsmi_query.h).
#include <algorithm>

#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "core/text.h"
#include "import/nvsmi_query.h"

namespace fabdiag::cmd {

namespace {

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

std::string cur_of_max(const NvsmiField& cur, const NvsmiField& max, const char* prefix) {
  if (cur.text.empty() && max.text.empty()) return "-";
  auto c = cur.number(), m = max.number();
  return prefix + (c ? std::to_string(*c) : or_dash(cur.text)) + "/" + prefix + (m ? std::to_string(*m) : or_dash(max.text));
}

std::string count_or_dash(std::optional<uint64_t> n) { return n ? std::to_string(*n) : "-"; }

std::string memory_repair(const NvsmiQueryGpu& g) {
  std::vector<std::string> parts;
  if (g.remap_failure.yes()) parts.push_back("remap FAILED");
  if (g.remap_pending.yes()) parts.push_back("remap pending");
  if (g.retired_pending.yes()) parts.push_back("retirement pending");
  if (parts.empty() && (!g.remap_pending.text.empty() || !g.retired_pending.text.empty())) parts.push_back("none pending");
  return parts.empty() ? "-" : join(parts);
}

std::string slowdowns(const NvsmiQueryGpu& g) {
  std::vector<std::string> active;
  for (const auto& [k, v] : g.clock_reasons)
    if (v.text == "Active" && k != "Idle") active.push_back(k);
  if (active.empty()) return g.clock_reasons.empty() ? "-" : "none";
  return join(active);
}

Section gpus_section(const NvsmiQueryImport& imp) {
  Section s;
  s.title = "nvidia-smi -q per GPU";
  if (!imp.driver_version.empty()) s.fields.emplace_back("driver", imp.driver_version);
  if (!imp.cuda_version.empty()) s.fields.emplace_back("CUDA", imp.cuda_version);
  Table t;
  t.columns = {"GPU", "pci_bdf", "model", "pstate", "PCIe gen", "width", "ECC uncorr vol/agg", "memory repair",
               "clock reasons", "fabric"};
  for (const auto& g : imp.gpus) {
    std::string gpu = g.index ? "GPU " + std::to_string(*g.index) : "GPU ?";
    if (!g.host.empty()) gpu = g.host + " " + gpu;
    std::string fabric = g.fabric_state.text.empty() ? "-" : g.fabric_state.text;
    if (!g.fabric_status.text.empty() && g.fabric_status.text != "N/A") fabric += " / " + g.fabric_status.text;
    t.rows.push_back({gpu, g.pci_bdf.empty() ? "(no header)" : g.pci_bdf, or_dash(g.product_name.text),
                      or_dash(g.performance_state.text), cur_of_max(g.gen_current, g.gen_max, "Gen"),
                      cur_of_max(g.width_current, g.width_max, "x"),
                      count_or_dash(g.uncorrectable("volatile")) + "/" + count_or_dash(g.uncorrectable("aggregate")),
                      memory_repair(g), slowdowns(g), fabric});
  }
  t.notes.push_back("PCIe: current/max as nvidia-smi prints them (idle GPUs lower the generation, not the width); "
                    "clock reasons: the active Clocks Event (Throttle) Reasons other than Idle");
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_nvsmi_query(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kNvsmiQuery);
  if (!lines) return lines.error();
  auto imp = import_nvsmi_query(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();
  ImportOutput out = reader_output(o, "nvidia-smi-q", "fabdiag.gpuquery/1", nvsmi_query_data(*imp),
                                   nvsmi_query_findings(*imp), imp->gaps);
  for (const auto& gpu : imp->gpus)  // pdsh / clush "host: " prefixes name the hosts
    if (!gpu.host.empty() && std::find(out.env.hosts.begin(), out.env.hosts.end(), gpu.host) == out.env.hosts.end())
      out.env.hosts.push_back(gpu.host);
  out.doc.sections.push_back(gpus_section(*imp));
  return out;
}

}  // namespace fabdiag::cmd
