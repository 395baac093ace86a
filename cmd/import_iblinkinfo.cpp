// `fabdiag import iblinkinfo FILE`: saved `iblinkinfo` output -> one fabdiag.iblinks/1 envelope
// (per switch its active links and down ports, each link's width, lane speed and far end;
// import/iblinkinfo.h, docs/fabric.md#iblinkinfo).
#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "core/repeats.h"
#include "import/iblinkinfo.h"

namespace fabdiag::cmd {

namespace {

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

std::string lane_text(const IbLinkPort& p) {
  if (!p.lane_gbps) return "-";
  std::string gen = ib_speed_generation(*p.lane_gbps, p.speed_text);
  return p.speed_text + (gen.empty() ? "" : " " + gen);
}

Section node_section(const IbLinkInfoImport& imp, const IbLinkNode& n) {
  Section s;
  s.title = n.type + " " + or_dash(n.description) + (n.guid.empty() ? "" : " (" + n.guid + ")");
  if (!n.section_title.empty()) s.fields.emplace_back("section", n.section_title);
  Table t;
  t.columns = {"port", "width", "lane speed", "state", "far end", "far port"};
  t.align = {Align::kRight, Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight};
  size_t down = 0;
  for (size_t i : n.ports) {
    const auto& p = imp.ports[i];
    if (!p.up()) {
      ++down;
      continue;
    }
    t.rows.push_back({std::to_string(p.port), or_dash(p.width), lane_text(p), p.state + "/" + p.phys_state,
                      or_dash(p.peer), p.peer_port ? std::to_string(*p.peer_port) : "-"});
  }
  s.fields.emplace_back("ports up", std::to_string(n.ports.size() - down));
  s.fields.emplace_back("ports down", std::to_string(down) + " (unused: a down port's width and speed are not a link rate)");
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_iblinkinfo(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kIblinkinfo);
  if (!lines) return lines.error();
  auto imp = import_iblinkinfo(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();

  ImportOutput out;
  out.env = make_envelope("fabdiag.iblinks/1");
  out.env.hosts.clear();  // the fabric's nodes, not this host
  out.env.params = {{"importer", "iblinkinfo"}, {"file", o.file}};
  out.env.data = iblinkinfo_data(*imp);
  out.env.findings = iblinkinfo_findings(*imp);
  out.env.errors = imp->gaps;
  cap_findings(out.env.findings, o.max_findings);
  cap_errors(out.env.errors, o.max_findings);
  out.doc.title = "fabdiag import iblinkinfo " + o.file;
  for (const auto& n : imp->nodes) out.doc.sections.push_back(node_section(*imp, n));
  return out;
}

}  // namespace fabdiag::cmd
