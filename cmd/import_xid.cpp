// `fabdiag import xid FILE`: a kernel log -> one fabdiag.xid/1 envelope (NVRM Xid reports per
// GPU with the catalog's meaning and action; import/xid_log.h).
#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "core/repeats.h"
#include "core/text.h"
#include "import/xid_catalog.h"
#include "import/xid_log.h"

namespace fabdiag::cmd {

namespace {

Section xid_section(const XidLogImport& imp) {
  Section s;
  s.title = "Xid per GPU";
  s.fields = {{"lines read", std::to_string(imp.lines)}, {"Xid lines", std::to_string(imp.xid_lines)}};
  Table t;
  t.columns = {"GPU", "index", "Xid", "mnemonic", "count", "first", "last", "catalog action"};
  t.align = {Align::kLeft, Align::kRight, Align::kRight, Align::kLeft, Align::kRight};
  for (const auto& g : imp.gpus)
    for (const auto& [code, tally] : g.xids) {
      XidInfo info = xid_info(code);
      t.rows.push_back({g.pci_bdf, g.gpu_index ? std::to_string(*g.gpu_index) : "-", std::to_string(code),
                        info.mnemonic.empty() ? "(not in the catalog)" : info.mnemonic, std::to_string(tally.count),
                        tally.first_time.empty() ? "-" : tally.first_time,
                        tally.last_time.empty() ? "-" : tally.last_time,
                        info.immediate.empty() ? "-" : info.immediate});
    }
  if (imp.xid_lines + imp.gpu_lost_lines == 0) s.lines.push_back("No NVRM Xid line in the log.");
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_xid_log(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kNvrmXid);
  if (!lines) return lines.error();
  auto imp = import_xid_log(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();
  ImportOutput out;
  out.env = make_envelope("fabdiag.xid/1");
  out.env.hosts.clear();  // a saved output, not this machine's
  out.env.params = {{"importer", "xid"}, {"file", o.file}};
  out.env.data = xid_log_data(*imp);
  out.env.findings = xid_findings(*imp);
  out.env.errors = imp->gaps;
  cap_findings(out.env.findings, o.max_findings);
  cap_errors(out.env.errors, o.max_findings);
  out.doc.title = "fabdiag import xid " + o.file;
  out.doc.sections.push_back(xid_section(*imp));
  return out;
}

}  // namespace fabdiag::cmd
