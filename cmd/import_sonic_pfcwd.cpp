// `fabdiag import sonic-pfcwd-stats FILE`: SONiC `show pfcwd stats` -> one fabdiag.pfcwd/1
// envelope (per watched queue the watchdog's status, storms and drops; import/sonic_pfcwd.h,
// docs/fabric.md#sonic-pfcwd-stats).
#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "core/repeats.h"
#include "import/sonic_pfcwd.h"

namespace fabdiag::cmd {

namespace {

std::string pair_text(const PfcwdPair& p) {
  auto t = [](const std::optional<uint64_t>& v) { return v ? std::to_string(*v) : std::string("N/A"); };
  return t(p.first) + "/" + t(p.second);
}

Section queues_section(const SonicPfcwdImport& imp) {
  Section s;
  s.title = "PFC watchdog per queue";
  s.fields.emplace_back("samples", std::to_string(imp.tables));
  Table t;
  t.columns = {"queue", "status", "storms det/rest", "tx ok/drop", "rx ok/drop", "last tx ok/drop", "last rx ok/drop"};
  t.align.assign(t.columns.size(), Align::kRight);
  t.align[0] = t.align[1] = Align::kLeft;
  for (const auto& q : imp.queues)
    t.rows.push_back({q.port + ":" + std::to_string(q.queue), q.status.empty() ? "-" : q.status,
                      pair_text(q.storms), pair_text(q.tx), pair_text(q.rx), pair_text(q.tx_last),
                      pair_text(q.rx_last)});
  t.notes.push_back("the last sample of each queue; counts since the watchdog started; status N/A: not watched");
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_sonic_pfcwd(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kSonicPfcwd);
  if (!lines) return lines.error();
  auto imp = import_sonic_pfcwd(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();

  ImportOutput out;
  out.env = make_envelope("fabdiag.pfcwd/1");
  out.env.hosts.clear();  // a switch's watchdog, not this host's
  out.env.params = {{"importer", "sonic-pfcwd-stats"}, {"file", o.file}};
  out.env.data = sonic_pfcwd_data(*imp);
  out.env.findings = sonic_pfcwd_findings(*imp);
  out.env.errors = imp->gaps;
  cap_findings(out.env.findings, o.max_findings);
  cap_errors(out.env.errors, o.max_findings);
  out.doc.title = "fabdiag import sonic-pfcwd-stats " + o.file;
  out.doc.sections.push_back(queues_section(*imp));
  return out;
}

}  // namespace fabdiag::cmd
