// `fabdiag import ibnodes FILE`: infiniband-diags `ibhosts` / `ibswitches` / `ibnodes` -> one
// fabdiag.ibnodes/1 envelope (the nodes the subnet manager sees; import/ibnodes.h,
// docs/fabric.md#ibhosts-ibswitches-ibnodes).
#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "import/ibnodes.h"

namespace fabdiag::cmd {

namespace {

Section nodes_section(const IbNodesImport& imp) {
  Section s;
  s.title = "InfiniBand nodes (ibhosts / ibswitches / ibnodes)";
  Table t;
  t.columns = {"type", "GUID", "ports", "description", "host", "lid"};
  t.align = {Align::kLeft, Align::kLeft, Align::kRight, Align::kLeft, Align::kLeft, Align::kRight};
  for (const auto& n : imp.nodes)
    t.rows.push_back({n.type, n.guid, std::to_string(n.ports), n.description, n.host.empty() ? "-" : n.host,
                      n.lid ? std::to_string(*n.lid) : "-"});
  t.notes.push_back("node lists hold no links: the leaf of each host comes from ibnetdiscover or iblinkinfo");
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_ibnodes(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kIbnodes);
  if (!lines) return lines.error();
  auto imp = import_ibnodes(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();
  ImportOutput out =
      reader_output(o, "ibnodes", "fabdiag.ibnodes/1", ibnodes_data(*imp), ibnodes_findings(*imp), imp->gaps);
  out.env.hosts.clear();  // the fabric's nodes, not this host's
  out.doc.sections.push_back(nodes_section(*imp));
  return out;
}

}  // namespace fabdiag::cmd
