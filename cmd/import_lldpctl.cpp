// `fabdiag import lldpctl FILE`: lldpd's `lldpctl` (text or -f json) -> one fabdiag.lldp/1
// envelope (per local port the neighbour; import/lldpctl.h, docs/fabric.md#lldpctl).
#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "core/repeats.h"
#include "import/lldpctl.h"

namespace fabdiag::cmd {

namespace {

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

template <typename T>
std::string opt(const std::optional<T>& v) {
  if (!v) return "-";
  std::string s = std::to_string(*v);
  if (s.find('.') != std::string::npos) s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

Section neighbors_section(const LldpImport& imp) {
  Section s;
  s.title = "LLDP neighbours (" + imp.format + ")";
  Table t;
  t.columns = {"local port", "switch", "chassis id", "switch port", "port descr", "speed Gb/s", "MFS", "PVID", "TTL s"};
  t.align = {Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight, Align::kRight,
             Align::kRight, Align::kRight};
  for (const auto& n : imp.neighbors)
    t.rows.push_back({n.local_port, or_dash(n.sysname), or_dash(n.chassis_id), or_dash(n.port_id), or_dash(n.port_descr),
                      opt(n.speed_gbps), opt(n.mfs), opt(n.pvid), opt(n.ttl_s)});
  t.notes.push_back("speed: from the autonegotiated MAU type, else from the switch port's name; port descr is "
                    "operator text, not evidence");
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_lldpctl(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kLldpctl);
  if (!lines) return lines.error();
  auto imp = import_lldpctl(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();

  ImportOutput out;
  out.env = make_envelope("fabdiag.lldp/1");
  out.env.hosts.clear();  // a saved output, not this machine's
  out.env.params = {{"importer", "lldpctl"}, {"file", o.file}};
  out.env.data = lldpctl_data(*imp);
  out.env.findings = lldpctl_findings(*imp);
  out.env.errors = imp->gaps;
  cap_findings(out.env.findings, o.max_findings);
  cap_errors(out.env.errors, o.max_findings);
  out.doc.title = "fabdiag import lldpctl " + o.file;
  out.doc.sections.push_back(neighbors_section(*imp));
  return out;
}

}  // namespace fabdiag::cmd
