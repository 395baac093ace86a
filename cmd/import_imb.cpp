// `fabdiag import imb FILE`: Intel MPI Benchmarks output -> one fabdiag.imb/1 envelope (per
// benchmark and process count its times and bandwidth per size; import/imb.h, docs/fabric.md#imb).
#include "cmd/bench_not_listed.h"
#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "cmd/table_number.h"
#include "import/imb.h"

namespace fabdiag::cmd {

namespace {

Section block_section(const ImbBenchmark& b) {
  Section s;
  s.title = "IMB " + (b.name.empty() ? std::string("(no \"# Benchmarking\" title)") : b.name);
  if (b.processes) s.fields.emplace_back("processes", std::to_string(*b.processes));
  if (!b.waiting.empty()) s.fields.emplace_back("note", b.waiting);
  for (const auto& c : b.columns)
    if (c == "Mbytes/sec")
      s.fields.emplace_back("Mbyte", table_number(b.mbyte_bytes) + " bytes" +
                                         (b.mbyte_inferred ? " (from the rows' bytes and times)" : " (from the release)"));
  Table t;
  t.columns = b.columns;
  t.align.assign(t.columns.size(), Align::kRight);
  for (const auto& r : b.rows) {
    std::vector<std::string> row;
    for (const auto& kv : r.values) row.push_back(table_number(kv.second));
    t.rows.push_back(std::move(row));
  }
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_imb(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kImb);
  if (!lines) return lines.error();
  auto imp = import_imb(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();
  ImportOutput out = reader_output(o, "imb", "fabdiag.imb/1", imb_data(*imp), imb_findings(*imp, o.line_rate_gbit_per_s),
                                   imp->gaps);
  if (o.line_rate_gbit_per_s) out.env.params["line_rate_gbit_per_s"] = *o.line_rate_gbit_per_s;
  if (!imp->release.empty())
    out.doc.sections.push_back(Section{"Intel MPI Benchmarks", {{"release", imp->release}, {"part", imp->part}}, {}, {}});
  for (const auto& b : imp->benchmarks) out.doc.sections.push_back(block_section(b));
  if (imp->not_listed.tests > 0) out.doc.sections.push_back(bench_not_listed_section(imp->not_listed, o.max_findings));
  return out;
}

}  // namespace fabdiag::cmd
