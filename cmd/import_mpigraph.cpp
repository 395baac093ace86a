// `fabdiag import mpigraph FILE`: mpiGraph's text output -> one fabdiag.pairwise/1 envelope
// judged like `fabdiag pairwise` (fabric thresholds), with mpiGraph's own figures under
// data.mpigraph (import/mpigraph.h, docs/fabric.md#mpigraph).
#include <cmath>
#include <cstdio>

#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "import/mpigraph.h"
#include "perf/pairwise_analysis.h"

namespace fabdiag::cmd {

namespace {

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

nlohmann::json mpigraph_json(const MpiGraphImport& imp) {
  auto table = [](const MpiGraphTable& t) {
    return nlohmann::json{{"max_mb_per_s", optional_json(t.max_mb_per_s)},
                          {"avg_mb_per_s", optional_json(t.avg_mb_per_s)},
                          {"rows_read", t.rows_read},
                          {"ranks", t.rows.size()},
                          {"header_line", t.header_line}};
  };
  return {{"version", imp.version},
          {"msg_size_bytes", imp.msg_size_bytes ? nlohmann::json(*imp.msg_size_bytes) : nlohmann::json(nullptr)},
          {"times", imp.times ? nlohmann::json(*imp.times) : nlohmann::json(nullptr)},
          {"window", imp.window ? nlohmann::json(*imp.window) : nlohmann::json(nullptr)},
          {"procs", imp.procs ? nlohmann::json(*imp.procs) : nlohmann::json(nullptr)},
          {"mbyte_bytes", 1048576},
          {"matrix_from", imp.matrix_from},
          {"ended", imp.ended},
          {"send", table(imp.send)},
          {"recv", table(imp.recv)}};
}

std::string gbs(double bytes_per_s) {
  if (!std::isfinite(bytes_per_s)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", bytes_per_s / 1e9);
  return buf;
}

// The matrix as mpiGraph's Send table, in GB/s (10^9 bytes/s), and each node's verdict.
Section matrix_section(const MpiGraphImport& imp, const perf::PairwiseAnalysis& a) {
  Section s;
  s.title = "mpiGraph " + imp.matrix_from + " bandwidth, GB/s (row: sender, column: receiver)";
  s.fields.emplace_back("reference", a.reference_source + " " + gbs(a.reference_bytes_per_s) + " GB/s");
  const auto& m = imp.matrix;
  Table t;
  t.columns = {"from \\ to"};
  for (const auto& h : m.hosts) t.columns.push_back(h);
  t.columns.push_back("status");
  t.align.assign(t.columns.size(), Align::kRight);
  t.align[0] = Align::kLeft;
  for (size_t j = 0; j < m.hosts.size(); ++j) {
    std::vector<std::string> row = {m.hosts[j]};
    for (size_t k = 0; k < m.hosts.size(); ++k) row.push_back(gbs(m.matrix_bytes_per_s[j][k]));
    row.push_back(perf::to_string(a.status[j]));
    t.rows.push_back(std::move(row));
  }
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_mpigraph(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kMpiGraph);
  if (!lines) return lines.error();
  auto imp = import_mpigraph(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();
  auto t = perf::fabric_thresholds();
  auto a = perf::analyze_pairwise(imp->matrix, t);
  nlohmann::json data = nlohmann::json::object();
  perf::pairwise_to_json(data, imp->matrix, a);
  data["mpigraph"] = mpigraph_json(*imp);
  ImportOutput out = reader_output(o, "mpigraph", "fabdiag.pairwise/1", std::move(data),
                                   perf::pairwise_findings(imp->matrix, a, t), imp->gaps);
  out.env.hosts = imp->matrix.hosts;
  out.env.params["thresholds"] = "fabric";
  out.doc.sections.push_back(matrix_section(*imp, a));
  return out;
}

}  // namespace fabdiag::cmd
