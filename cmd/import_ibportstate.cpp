// `fabdiag import ibportstate FILE`: infiniband-diags `ibportstate` (or `smpquery portinfo`)
// -> one fabdiag.ibportstate/1 envelope (per queried port: state, width and lane speed
// supported / enabled / active; import/ibportstate.h, docs/fabric.md#ibportstate).
#include <cstdio>

#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "import/ibportstate.h"

namespace fabdiag::cmd {

namespace {

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

std::string widths(const std::vector<int>& w) {
  std::string out;
  for (int x : w) out += (out.empty() ? "" : ",") + std::to_string(x) + "X";
  return or_dash(out);
}

std::string speeds(const std::vector<double>& v) {
  std::string out;
  char buf[32];
  for (double x : v) {
    std::snprintf(buf, sizeof buf, "%.7g", x);
    out += (out.empty() ? "" : ",") + std::string(buf);
  }
  return or_dash(out);
}

Section ports_section(const IbportstateImport& imp) {
  Section s;
  s.title = "Queried ports (ibportstate)";
  Table t;
  t.columns = {"host", "block", "node", "port", "state", "phys", "width enabled", "active", "Gb/s/lane enabled", "active"};
  t.align.assign(t.columns.size(), Align::kLeft);
  for (const auto& p : imp.ports) {
    std::vector<double> active;
    if (p.speed_active_gbps) active.push_back(*p.speed_active_gbps);
    t.rows.push_back({or_dash(p.host), p.role, or_dash(p.node_kind), p.portid + " port " + std::to_string(p.port),
                      or_dash(p.link_state), or_dash(p.phys_state), widths(p.width_enabled),
                      p.width_active ? std::to_string(*p.width_active) + "X" : "-", speeds(p.speed_enabled_gbps),
                      speeds(active)});
  }
  t.notes.push_back("block: port (the queried port), peer (its far end, switch ports), after_set (after a change)");
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_ibportstate(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kIbportstate);
  if (!lines) return lines.error();
  auto imp = import_ibportstate(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();
  ImportOutput out = reader_output(o, "ibportstate", "fabdiag.ibportstate/1", ibportstate_data(*imp),
                                   ibportstate_findings(*imp), imp->gaps);
  out.env.hosts.clear();  // a port anywhere in the fabric, not this host's
  out.doc.sections.push_back(ports_section(*imp));
  return out;
}

}  // namespace fabdiag::cmd
