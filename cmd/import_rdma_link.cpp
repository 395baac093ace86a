// `fabdiag import rdma-link FILE`: iproute2's `rdma link show` (text or -j) -> one
// fabdiag.rdmalinks/1 envelope (state per RDMA port; import/rdma_link.h, docs/fabric.md#rdma-link-show).
#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "core/repeats.h"
#include "import/rdma_link.h"

namespace fabdiag::cmd {

namespace {

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

Section links_section(const RdmaLinkImport& imp) {
  Section s;
  s.title = "RDMA links (rdma link show, " + imp.format + ")";
  Table t;
  t.columns = {"host", "ibdev", "port", "state", "physical_state", "netdev", "lid"};
  t.align = {Align::kLeft, Align::kLeft, Align::kRight, Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight};
  for (const auto& l : imp.links)
    t.rows.push_back({or_dash(l.host), l.ibdev, std::to_string(l.port), or_dash(l.state), or_dash(l.physical_state),
                      or_dash(l.netdev), l.lid ? std::to_string(*l.lid) : "-"});
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_rdma_link(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kRdmaLink);
  if (!lines) return lines.error();
  auto imp = import_rdma_link(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();

  ImportOutput out;
  out.env = make_envelope("fabdiag.rdmalinks/1");
  out.env.hosts.clear();  // a saved output, not this machine's
  out.env.params = {{"importer", "rdma-link"}, {"file", o.file}};
  out.env.data = rdma_link_data(*imp);
  out.env.findings = rdma_link_findings(*imp);
  out.env.errors = imp->gaps;
  cap_findings(out.env.findings, o.max_findings);
  cap_errors(out.env.errors, o.max_findings);
  out.doc.title = "fabdiag import rdma-link " + o.file;
  out.doc.sections.push_back(links_section(*imp));
  return out;
}

}  // namespace fabdiag::cmd
