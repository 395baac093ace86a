// `fabdiag import sonic-pfc-counters FILE`: SONiC `show pfc counters` -> one fabdiag.pfc/1
// envelope (per switch port the PFC pause frames per priority; import/sonic_pfc.h,
// docs/fabric.md#sonic-show-pfc-counters).
#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "core/repeats.h"
#include "import/sonic_pfc.h"

namespace fabdiag::cmd {

namespace {

std::vector<std::string> row(const std::string& port, const char* dir, const PfcCounts& c) {
  std::vector<std::string> r = {port, dir};
  for (const auto& v : c.last) r.push_back(v ? std::to_string(*v) : "N/A");
  return r;
}

Section ports_section(const SonicPfcImport& imp) {
  Section s;
  s.title = "PFC pause frames per port and priority";
  if (!imp.cached_time.empty()) s.fields.emplace_back("since", imp.cached_time);
  s.fields.emplace_back("samples", "Rx " + std::to_string(imp.rx_tables) + ", Tx " + std::to_string(imp.tx_tables));
  Table t;
  t.columns = {"port", "dir", "PFC0", "PFC1", "PFC2", "PFC3", "PFC4", "PFC5", "PFC6", "PFC7"};
  t.align.assign(t.columns.size(), Align::kRight);
  t.align[0] = t.align[1] = Align::kLeft;
  for (const auto& p : imp.ports) {
    if (p.rx.samples) t.rows.push_back(row(p.port, "rx", p.rx));
    if (p.tx.samples) t.rows.push_back(row(p.port, "tx", p.tx));
  }
  t.notes.push_back("rx: pause frames the port received (its link partner paused the switch); tx: sent; "
                    "a port not listed in a direction is unknown there, not zero; the last sample's counts");
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_sonic_pfc(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kSonicPfc);
  if (!lines) return lines.error();
  auto imp = import_sonic_pfc(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();

  ImportOutput out;
  out.env = make_envelope("fabdiag.pfc/1");
  out.env.hosts.clear();  // a switch's counters, not this host's
  out.env.params = {{"importer", "sonic-pfc-counters"}, {"file", o.file}};
  out.env.data = sonic_pfc_data(*imp);
  out.env.findings = sonic_pfc_findings(*imp);
  out.env.errors = imp->gaps;
  cap_findings(out.env.findings, o.max_findings);
  cap_errors(out.env.errors, o.max_findings);
  out.doc.title = "fabdiag import sonic-pfc-counters " + o.file;
  out.doc.sections.push_back(ports_section(*imp));
  return out;
}

}  // namespace fabdiag::cmd
