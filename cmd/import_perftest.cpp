// `fabdiag import perftest FILE`: perftest output -> one fabdiag.perftest/1 envelope (the test's
// settings and its result rows per run, the runs past --max-findings summarised per test and size;
// import/perftest.h, docs/fabric.md#perftest).
#include "cmd/bench_not_listed.h"
#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "cmd/table_number.h"
#include "core/repeats.h"
#include "import/perftest.h"

namespace fabdiag::cmd {

namespace {

Section result_section(const PerftestRun& run) {
  Section s;
  s.title = run.test.empty() ? "perftest" : run.test;
  for (const auto& [k, v] : run.settings) s.fields.emplace_back(k, v);
  Table t;
  for (size_t i = 0; i < run.columns.size(); ++i)
    t.columns.push_back(run.units[i].empty() ? run.columns[i] : run.columns[i] + " [" + run.units[i] + "]");
  t.align.assign(t.columns.size(), Align::kRight);
  for (const auto& r : run.rows) {
    std::vector<std::string> row = {std::to_string(r.bytes), std::to_string(r.iterations)};
    for (const auto& kv : r.values) row.push_back(table_number(kv.second));
    t.rows.push_back(std::move(row));
  }
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_perftest(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kPerftest);
  if (!lines) return lines.error();
  auto imp = import_perftest(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();

  ImportOutput out;
  out.env = make_envelope("fabdiag.perftest/1");
  out.env.hosts.clear();  // a saved output, not this machine's
  out.env.params = {{"importer", "perftest"}, {"file", o.file}};
  out.env.data = perftest_data(*imp);
  out.env.findings = perftest_findings(*imp);
  out.env.errors = imp->gaps;
  cap_findings(out.env.findings, o.max_findings);
  cap_errors(out.env.errors, o.max_findings);
  out.doc.title = "fabdiag import perftest " + o.file;
  for (const auto& run : imp->runs) out.doc.sections.push_back(result_section(run));
  if (imp->not_listed.tests > 0) {
    out.doc.sections.push_back(bench_not_listed_section(imp->not_listed, o.max_findings));
    out.doc.sections.back().title = "Runs not listed";
    out.doc.sections.back().fields.front().first = "runs";  // first lines: the runs' titles
  }
  return out;
}

}  // namespace fabdiag::cmd
