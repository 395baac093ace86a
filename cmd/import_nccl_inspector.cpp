// `fabdiag import nccl-inspector FILE`: NCCL Inspector output (JSON records, Prometheus lines)
// -> one fabdiag.ncclinspector/1 envelope (per rank and collective: busbw, execution time;
// dump markers with dropped records; import/nccl_inspector.h).
#include "cmd/import_readers.h"
#include "cmd/input.h"
#include "core/repeats.h"
#include "import/nccl_inspector.h"
#include "report/humanize.h"

namespace fabdiag::cmd {

namespace {

std::string i_cell(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "-"; }

Section colls_section(const InspectorImport& imp) {
  Section s;
  s.title = "collective records (" + std::to_string(imp.colls_total) + ")";
  Table t;
  t.columns = {"rank", "of", "coll", "algo/proto", "sn", "size", "exec time", "algbw", "busbw", "line"};
  t.align = {Align::kRight, Align::kRight, Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kRight,
             Align::kRight, Align::kRight, Align::kRight};
  for (const auto& c : imp.colls)
    t.rows.push_back({i_cell(c.rank), i_cell(c.n_ranks), c.coll, c.algo + "/" + c.proto, i_cell(c.sn),
                      c.msg_size_bytes ? format_bytes_iec(static_cast<double>(*c.msg_size_bytes)) : "-",
                      c.exec_time_s ? format_seconds(*c.exec_time_s) : "-",
                      c.algbw_bytes_per_s ? format_gbytes_per_s(*c.algbw_bytes_per_s) : "-",
                      c.busbw_bytes_per_s ? format_gbytes_per_s(*c.busbw_bytes_per_s) : "-", std::to_string(c.line)});
  s.tables.push_back(std::move(t));
  return s;
}

Section dumps_section(const InspectorImport& imp) {
  Section s;
  s.title = "dump markers";
  Table t;
  t.columns = {"rank", "of", "nodes", "host", "format", "coll records", "dropped since last", "dropped total", "line"};
  t.align = {Align::kRight, Align::kRight, Align::kRight, Align::kLeft, Align::kLeft, Align::kRight, Align::kRight,
             Align::kRight, Align::kRight};
  auto st = [](const InspectorDump& d, const char* k) {
    auto it = d.stats.find(k);
    return it == d.stats.end() ? std::string("-") : std::to_string(it->second);
  };
  for (const auto& d : imp.dumps)
    t.rows.push_back({i_cell(d.rank), i_cell(d.n_ranks), i_cell(d.nnodes), d.hostname.empty() ? "-" : d.hostname,
                      d.format_version, st(d, "coll_records"), st(d, "coll_dropped_since_last_dump"),
                      st(d, "coll_dropped_total"), std::to_string(d.line)});
  s.tables.push_back(std::move(t));
  return s;
}

Section metrics_section(const InspectorImport& imp) {
  Section s;
  s.title = "Prometheus lines";
  Table t;
  t.columns = {"metric", "collective / op", "nranks", "size", "value", "line"};
  t.align = {Align::kLeft, Align::kLeft, Align::kRight, Align::kLeft, Align::kRight, Align::kRight};
  auto label = [](const InspectorMetric& m, const char* k) {
    auto it = m.labels.find(k);
    return it == m.labels.end() ? std::string() : it->second;
  };
  for (const auto& m : imp.metrics) {
    std::string op = label(m, "collective");
    if (op.empty()) op = label(m, "p2p_operation");
    t.rows.push_back({m.name, op.empty() ? "-" : op, label(m, "nranks"), label(m, "message_size"),
                      format_sig(m.value, 6), std::to_string(m.line)});
  }
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_nccl_inspector(const ImportFileOptions& o) {
  auto lines = open_input_lines(o.file);
  if (!lines) return lines.error();
  auto imp = import_nccl_inspector(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();
  ImportOutput out;
  out.env = make_envelope("fabdiag.ncclinspector/1");
  out.env.hosts.clear();
  for (const auto& d : imp->dumps)
    if (!d.hostname.empty() && std::find(out.env.hosts.begin(), out.env.hosts.end(), d.hostname) == out.env.hosts.end())
      out.env.hosts.push_back(d.hostname);
  out.env.params = {{"importer", "nccl-inspector"}, {"file", o.file}};
  out.env.data = nccl_inspector_data(*imp);
  out.env.findings = nccl_inspector_findings(*imp, o.file);
  out.env.errors = imp->gaps;
  cap_findings(out.env.findings, o.max_findings);
  out.doc.title = "fabdiag import nccl-inspector " + o.file;
  if (!imp->colls.empty()) out.doc.sections.push_back(colls_section(*imp));
  if (!imp->dumps.empty()) out.doc.sections.push_back(dumps_section(*imp));
  if (!imp->metrics.empty()) out.doc.sections.push_back(metrics_section(*imp));
  return out;
}

}  // namespace fabdiag::cmd
