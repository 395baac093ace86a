// `fabdiag import nvidia-smi-nvlink FILE`: `nvidia-smi nvlink -s` / `-e` text -> one
// fabdiag.gpulinks/1 envelope (per GPU: links up, speed, error counters; import/nvsmi_nvlink.h).
#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "core/repeats.h"
#include "core/text.h"
#include "import/nvsmi_nvlink.h"
#include "report/humanize.h"

namespace fabdiag::cmd {

namespace {

Section gpus_section(const NvsmiNvlinkImport& imp) {
  Section s;
  s.title = "NVLink per GPU";
  Table t;
  t.columns = {"GPU", "model", "links", "active", "link speed", "total", "errors"};
  t.align = {Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight};
  for (const auto& g : imp.gpus) {
    double fastest = 0;
    uint64_t errors = 0;
    bool counters = false;
    for (const auto& l : g.links) {
      fastest = std::max(fastest, l.speed_bytes_per_s.value_or(0));
      for (const auto& [k, v] : l.errors) errors += v, counters = true;
    }
    std::string links = g.all_inactive && g.links.empty() ? "all inactive" : std::to_string(g.links.size());
    t.rows.push_back({"GPU " + std::to_string(g.index), g.name.empty() ? "-" : g.name, links,
                      g.status_known() ? std::to_string(g.active_links()) : "-",
                      fastest > 0 ? format_gbytes_per_s(fastest) : "-",
                      fastest > 0 ? format_gbytes_per_s(g.total_bytes_per_s()) : "-",
                      counters ? std::to_string(errors) : "-"});
  }
  t.notes.push_back("speeds per direction as nvidia-smi prints them (1 GB/s = 1e9 bytes/s); errors: replay + recovery + "
                    "CRC counters of `nvidia-smi nvlink -e`");
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_nvsmi_nvlink(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kNvsmiNvlink);
  if (!lines) return lines.error();
  auto imp = import_nvsmi_nvlink(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();
  ImportOutput out;
  out.env = make_envelope("fabdiag.gpulinks/1");
  out.env.hosts.clear();  // a saved output, not this machine's
  out.env.params = {{"importer", "nvidia-smi-nvlink"}, {"file", o.file}};
  out.env.data = nvsmi_nvlink_data(*imp);
  out.env.findings = nvsmi_nvlink_findings(*imp);
  out.env.errors = imp->gaps;
  cap_findings(out.env.findings, o.max_findings);
  cap_errors(out.env.errors, o.max_findings);
  out.doc.title = "fabdiag import nvidia-smi-nvlink " + o.file;
  out.doc.sections.push_back(gpus_section(*imp));
  return out;
}

}  // namespace fabdiag::cmd
