// `fabdiag import dcgmi FILE`: `dcgmi nvlink --link-status` and `dcgmi diag` text -> one
// fabdiag.dcgmi/1 envelope (link states per GPU and NvSwitch, diag results; import/dcgmi.h).
#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "core/repeats.h"
#include "core/text.h"
#include "import/dcgmi.h"

namespace fabdiag::cmd {

namespace {

void add_entities(Table& t, const std::vector<DcgmLinkEntity>& list, const char* kind) {
  for (const auto& e : list)
    t.rows.push_back({std::string(kind) + " " + std::to_string(e.id), std::to_string(e.states.size()),
                      std::to_string(e.count('U')), std::to_string(e.count('D')), std::to_string(e.count('X')),
                      e.states});
}

Section links_section(const DcgmiImport& imp) {
  Section s;
  s.title = "dcgmi nvlink --link-status";
  Table t;
  t.columns = {"entity", "links", "up", "down", "disabled", "states"};
  t.align = {Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kLeft};
  add_entities(t, imp.gpus, "GPU");
  add_entities(t, imp.nvswitches, "NvSwitch");
  if (imp.no_nvswitches) t.notes.push_back("No NvSwitches found (normal for NVLink-bridged or PCIe GPUs)");
  t.notes.push_back("states: U up, D down, X disabled, _ not supported, in link order");
  s.tables.push_back(std::move(t));
  return s;
}

Section diag_section(const DcgmiImport& imp) {
  Section s;
  s.title = "dcgmi diag";
  for (const auto& [k, v] : imp.metadata) s.fields.emplace_back(k, v);
  Table t;
  t.columns = {"category", "test", "result", "details"};
  for (const auto& test : imp.tests) {
    std::vector<std::string> per;
    for (const auto& r : test.results)
      if (r.all || !r.gpus.empty()) {
        std::vector<std::string> ids;
        for (int g : r.gpus) ids.push_back(std::to_string(g));
        per.push_back(r.status + (r.all ? " all" : " GPU " + join(ids)));
      }
    std::string details = join(per, "; ");
    if (!test.warnings.empty()) details += (details.empty() ? "" : "; ") + test.warnings.front();
    t.rows.push_back({test.category.empty() ? "-" : test.category, test.name,
                      test.cut ? "unknown (cut)" : test.status().empty() ? "-" : test.status(),
                      details.empty() ? "-" : details});
  }
  if (!imp.diag_complete) t.notes.push_back("the table is cut: the tests after its last row are unknown, not passed");
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_dcgmi(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kDcgmi);
  if (!lines) return lines.error();
  auto imp = import_dcgmi(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();
  ImportOutput out;
  out.env = make_envelope("fabdiag.dcgmi/1");
  out.env.hosts.clear();  // a saved output, not this machine's
  out.env.params = {{"importer", "dcgmi"}, {"file", o.file}};
  out.env.data = dcgmi_data(*imp);
  out.env.findings = dcgmi_findings(*imp);
  out.env.errors = imp->gaps;
  cap_findings(out.env.findings, o.max_findings);
  cap_errors(out.env.errors, o.max_findings);
  out.doc.title = "fabdiag import dcgmi " + o.file;
  if (imp->link_status_read) out.doc.sections.push_back(links_section(*imp));
  if (imp->diag_read) out.doc.sections.push_back(diag_section(*imp));
  return out;
}

}  // namespace fabdiag::cmd
