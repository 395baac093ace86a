// `fabdiag import osu FILE`: OSU micro-benchmarks output -> one fabdiag.osu/1 envelope (per test
// its bandwidth or latency per message size; import/osu.h, docs/fabric.md#osu).
#include "cmd/bench_not_listed.h"
#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "cmd/table_number.h"
#include "import/osu.h"

namespace fabdiag::cmd {

namespace {

Section test_section(const OsuTest& t) {
  Section s;
  s.title = t.title.empty() ? "OSU test (no title)" : t.title;
  if (!t.buffers.empty()) s.fields.emplace_back("buffers", t.buffers);
  if (!t.datatype.empty()) s.fields.emplace_back("datatype", t.datatype);
  if (t.header_inferred) s.fields.emplace_back("columns", "inferred from the title (no \"# Size\" header)");
  Table tab;
  tab.columns = {"Size"};
  for (const auto& c : t.columns) tab.columns.push_back(c);
  tab.align.assign(tab.columns.size(), Align::kRight);
  for (const auto& r : t.rows) {
    std::vector<std::string> row = {std::to_string(r.size_bytes)};
    for (const auto& c : t.columns)
      row.push_back(c == "Validation" ? (r.validation_passed ? (*r.validation_passed ? "Pass" : "Fail") : "-")
                                      : (r.get(c) ? table_number(*r.get(c)) : "-"));
    tab.rows.push_back(std::move(row));
  }
  s.tables.push_back(std::move(tab));
  return s;
}

}  // namespace

Section bench_not_listed_section(const BenchNotListed& n, size_t max) {
  Section s;
  s.title = "Tests not listed";
  s.fields.emplace_back("tests", std::to_string(n.tests) + " (title lines " + std::to_string(n.first_line) + " to " +
                                     std::to_string(n.last_line) + ")");
  Table tab;
  tab.columns = {"test", "Size", "column", "runs", "min", "mean", "max"};
  tab.align = {Align::kLeft, Align::kRight, Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight};
  for (const auto& r : n.sizes) {
    if (max && tab.rows.size() == max) break;
    tab.rows.push_back({r.title, std::to_string(r.size_bytes), r.column, std::to_string(r.runs), table_number(r.min),
                        table_number(r.sum / static_cast<double>(r.runs)), table_number(r.max)});
  }
  s.tables.push_back(std::move(tab));
  return s;
}

Result<ImportOutput> read_osu(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kOsu);
  if (!lines) return lines.error();
  auto imp = import_osu(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();
  ImportOutput out = reader_output(o, "osu", "fabdiag.osu/1", osu_data(*imp), osu_findings(*imp, o.line_rate_gbit_per_s),
                                   imp->gaps);
  if (o.line_rate_gbit_per_s) out.env.params["line_rate_gbit_per_s"] = *o.line_rate_gbit_per_s;
  for (const auto& t : imp->tests) out.doc.sections.push_back(test_section(t));
  if (imp->not_listed.tests > 0) out.doc.sections.push_back(bench_not_listed_section(imp->not_listed, o.max_findings));
  return out;
}

}  // namespace fabdiag::cmd
