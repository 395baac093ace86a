// `fabdiag import show-gids FILE`: Mellanox's show_gids -> one fabdiag.gids/1 envelope (per RDMA
// port its GIDs and the index for NCCL_IB_GID_INDEX; import/show_gids.h, docs/fabric.md#show_gids).
#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "core/repeats.h"
#include "import/show_gids.h"

namespace fabdiag::cmd {

namespace {

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

Section gids_section(const ShowGidsImport& imp) {
  Section s;
  s.title = "GIDs per RDMA port (show_gids)";
  if (imp.n_gids_found) s.fields.emplace_back("n_gids_found", std::to_string(*imp.n_gids_found));
  Table t;
  t.columns = {"host", "ibdev", "port", "index", "GID", "IPv4", "RoCE", "netdev"};
  t.align = {Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft};
  for (const auto& e : imp.entries)
    t.rows.push_back({or_dash(e.host), e.ibdev, std::to_string(e.port), std::to_string(e.index), e.gid, or_dash(e.ipv4),
                      e.version, or_dash(e.netdev)});
  s.tables.push_back(std::move(t));

  Table ports;
  ports.columns = {"host", "ibdev", "port", "netdev", "NCCL_IB_GID_INDEX"};
  ports.align = {Align::kLeft, Align::kLeft, Align::kRight, Align::kLeft, Align::kLeft};
  for (const auto& p : show_gids_ports(imp)) {
    std::string idx = p.infiniband ? "(InfiniBand: not RoCE)"
                      : p.v2_ipv4_index ? std::to_string(*p.v2_ipv4_index)
                                        : "none (no v2 GID with IPv4)";
    ports.rows.push_back({or_dash(p.host), p.ibdev, std::to_string(p.port), or_dash(p.netdev), idx});
  }
  ports.notes.push_back("NCCL_IB_GID_INDEX: the first RoCE v2 GID with an IPv4 address of the port");
  s.tables.push_back(std::move(ports));
  return s;
}

}  // namespace

Result<ImportOutput> read_show_gids(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kShowGids);
  if (!lines) return lines.error();
  auto imp = import_show_gids(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();

  ImportOutput out;
  out.env = make_envelope("fabdiag.gids/1");
  out.env.hosts.clear();  // a saved output, not this machine's
  out.env.params = {{"importer", "show-gids"}, {"file", o.file}};
  out.env.data = show_gids_data(*imp);
  out.env.findings = show_gids_findings(*imp);
  out.env.errors = imp->gaps;
  cap_findings(out.env.findings, o.max_findings);
  cap_errors(out.env.errors, o.max_findings);
  out.doc.title = "fabdiag import show-gids " + o.file;
  out.doc.sections.push_back(gids_section(*imp));
  return out;
}

}  // namespace fabdiag::cmd
