// `fabdiag import pairs FILE`: a hand-made list of 2-node results ("hostA,hostB  GB/s  # note")
// -> one fabdiag.pairwise/1 envelope judged like `fabdiag pairwise` (fabric thresholds: p90
// reference, 0.75 ratios; import/pairs_list.h, docs/fabric.md#pairs).
#include <cmath>

#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "cmd/table_number.h"
#include "core/repeats.h"
#include "import/pairs_list.h"
#include "perf/pairwise_analysis.h"

namespace fabdiag::cmd {

namespace {

// The pairs table lists at most `max_listed` pairs (0 = all); a last row counts the rest (the
// matrix in `data` holds every one).
Section pairs_section(const PairsListImport& imp, const perf::PairwiseAnalysis& a, size_t max_listed) {
  Section s;
  s.title = "Pairs";
  s.fields.emplace_back("reference", a.reference_source + " " + table_gbs(a.reference_bytes_per_s) + " GB/s");
  Table t;
  t.columns = {"pair", "GB/s", "of reference", "note"};
  t.align = {Align::kLeft, Align::kRight, Align::kRight, Align::kLeft};
  for (const auto& p : imp.pairs) {
    if (max_listed && t.rows.size() == max_listed) {
      t.rows.push_back({"... and " + std::to_string(imp.pairs.size() - max_listed) + " more pairs", "-", "-", "-"});
      break;
    }
    t.rows.push_back({p.a + "," + p.b, table_gbs(p.bytes_per_s),
                      std::to_string(static_cast<int>(std::lround(100 * p.bytes_per_s / a.reference_bytes_per_s))) + " %",
                      p.note.empty() ? "-" : p.note});
  }
  s.tables.push_back(std::move(t));
  Table n;
  n.title = "Nodes";
  n.columns = {"node", "status", "partners", "median GB/s"};
  n.align = {Align::kLeft, Align::kLeft, Align::kRight, Align::kRight};
  for (size_t i = 0; i < imp.matrix.hosts.size(); ++i)
    n.rows.push_back({imp.matrix.hosts[i], perf::to_string(a.status[i]), std::to_string(a.partners[i]),
                      table_gbs(a.node_median_bytes_per_s[i])});
  s.tables.push_back(std::move(n));
  return s;
}

}  // namespace

Result<ImportOutput> read_pairs(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kPairsList);
  if (!lines) return lines.error();
  auto imp = import_pairs_list(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();

  auto t = perf::fabric_thresholds();
  auto a = perf::analyze_pairwise(imp->matrix, t);
  ImportOutput out;
  out.env = make_envelope("fabdiag.pairwise/1");
  out.env.hosts = imp->matrix.hosts;
  out.env.params = {{"importer", "pairs"}, {"file", o.file}, {"thresholds", "fabric"}};
  perf::pairwise_to_json(out.env.data, imp->matrix, a);
  nlohmann::json notes = nlohmann::json::array();
  for (const auto& p : imp->pairs)
    if (!p.note.empty()) notes.push_back({{"hosts", {p.a, p.b}}, {"note", p.note}, {"line", p.line}});
  out.env.data["pair_notes"] = notes;
  out.env.findings = perf::pairwise_findings(imp->matrix, a, t);
  out.env.errors = imp->gaps;
  cap_findings(out.env.findings, o.max_findings);
  cap_errors(out.env.errors, o.max_findings);
  out.doc.title = "fabdiag import pairs " + o.file;
  out.doc.sections.push_back(pairs_section(*imp, a, o.max_findings));
  return out;
}

}  // namespace fabdiag::cmd
