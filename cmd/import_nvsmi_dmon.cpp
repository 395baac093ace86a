// `fabdiag import nvidia-smi-dmon FILE`: `nvidia-smi dmon` output -> one fabdiag.gpudmon/1
// envelope (per GPU each column's min/max/mean; import/nvsmi_dmon.h, docs/gpu_readers.md#nvidia-smi-dmon).
#include <cstdio>

#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "import/nvsmi_dmon.h"

namespace fabdiag::cmd {

namespace {

std::string cell(const DmonGpu& g, const std::string& col) {
  auto it = g.series.find(col);
  if (it == g.series.end() || it->second.samples == 0) return "-";
  char b[64];
  std::snprintf(b, sizeof b, "%.0f/%.0f/%.1f", it->second.min, it->second.max, it->second.mean());
  return b;
}

Section dmon_section(const DmonImport& imp) {
  Section s;
  s.title = "nvidia-smi dmon: min/max/mean per GPU";
  s.fields.emplace_back("headers", std::to_string(imp.headers));
  Table t;
  t.columns = {"gpu", "samples"};
  std::vector<std::string> cols;
  for (const auto& c : imp.columns)
    if (c != "gpu" && c != "Date" && c != "Time") cols.push_back(c);
  for (const auto& c : cols) {
    auto u = imp.units.find(c);
    t.columns.push_back(u == imp.units.end() ? c : c + " [" + u->second + "]");
  }
  t.align.assign(t.columns.size(), Align::kRight);
  for (const auto& g : imp.gpus) {
    std::vector<std::string> row = {std::to_string(g.index), std::to_string(g.rows)};
    for (const auto& c : cols) row.push_back(cell(g, c));
    t.rows.push_back(std::move(row));
  }
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_nvsmi_dmon(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kNvsmiDmon);
  if (!lines) return lines.error();
  auto imp = import_nvsmi_dmon(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();
  ImportOutput out = reader_output(o, "nvidia-smi-dmon", "fabdiag.gpudmon/1", nvsmi_dmon_data(*imp),
                                   nvsmi_dmon_findings(*imp), imp->gaps);
  out.doc.sections.push_back(dmon_section(*imp));
  return out;
}

}  // namespace fabdiag::cmd
