// `fabdiag import ibdev2netdev FILE`: Mellanox OFED's ibdev2netdev (plain or -v) -> one
// fabdiag.ibdev2netdev/1 envelope (RDMA port -> netdev and state; import/ibdev2netdev.h,
// docs/fabric.md#ibdev2netdev).
#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "core/repeats.h"
#include "import/ibdev2netdev.h"

namespace fabdiag::cmd {

namespace {

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

Section ports_section(const Ibdev2netdevImport& imp) {
  Section s;
  s.title = imp.verbose ? "RDMA ports and their netdevs (ibdev2netdev -v)" : "RDMA ports and their netdevs (ibdev2netdev)";
  Table t;
  bool hosts = false;
  for (const auto& p : imp.ports) hosts = hosts || !p.host.empty();
  if (hosts) t.columns.push_back("host");
  for (const char* c : {"ibdev", "port", "netdev", "netdev state"}) t.columns.push_back(c);
  if (imp.verbose)
    for (const char* c : {"port state", "pci_bdf", "part", "fw", "adapter Gb/s"}) t.columns.push_back(c);
  t.align.assign(t.columns.size(), Align::kLeft);
  for (const auto& p : imp.ports) {
    std::vector<std::string> row;
    if (hosts) row.push_back(or_dash(p.host));
    row.insert(row.end(), {p.ibdev, std::to_string(p.port), p.netdev, p.link});
    if (imp.verbose) {
      std::string rate = p.max_rate_gbps ? std::to_string(static_cast<long long>(*p.max_rate_gbps)) : "-";
      row.insert(row.end(), {or_dash(p.port_state), or_dash(p.pci_bdf), or_dash(p.part), or_dash(p.fw), rate});
    }
    t.rows.push_back(std::move(row));
  }
  if (imp.verbose) t.notes.push_back("adapter Gb/s: the card's rate from its description, not the link's current rate");
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_ibdev2netdev(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kIbdev2netdev);
  if (!lines) return lines.error();
  auto imp = import_ibdev2netdev(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();

  ImportOutput out;
  out.env = make_envelope("fabdiag.ibdev2netdev/1");
  out.env.params = {{"importer", "ibdev2netdev"}, {"file", o.file}};
  out.env.data = ibdev2netdev_data(*imp);
  out.env.findings = ibdev2netdev_findings(*imp);
  out.env.errors = imp->gaps;
  cap_findings(out.env.findings, o.max_findings);
  cap_errors(out.env.errors, o.max_findings);
  out.doc.title = "fabdiag import ibdev2netdev " + o.file;
  out.doc.sections.push_back(ports_section(*imp));
  return out;
}

}  // namespace fabdiag::cmd
