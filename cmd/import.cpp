// `fabdiag import nccl-tests FILE`: nccl-tests output -> one fabdiag.bench/1 envelope.
#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "import/nccl_tests.h"
#include "cmd/commands.h"
#include "cmd/input.h"
#include "core/repeats.h"
#include "report/humanize.h"

namespace fabdiag::cmd {

namespace {

std::string opt_bw(const std::optional<double>& v) { return v ? format_gbytes_per_s(*v) : "-"; }
std::string opt_time(const std::optional<double>& v) { return v ? format_seconds(*v) : "-"; }

// The "#wrong" count or the older "error" value of one half, as nccl-tests printed it.
std::string check_text(const baseline::NcclTestsHalf& h) {
  if (h.wrong_elements) return std::to_string(*h.wrong_elements);
  if (h.max_error) return format_sig(*h.max_error, 3);
  return "-";
}

// The "#  Rank ..." lines: where each rank ran.
Table ranks_table(const std::vector<baseline::NcclTestsRank>& ranks) {
  Table tab;
  tab.columns = {"rank", "host", "device", "bus id", "GPU"};
  tab.align = {Align::kRight, Align::kLeft, Align::kRight, Align::kLeft, Align::kLeft};
  for (const auto& r : ranks)
    tab.rows.push_back({std::to_string(r.rank), r.host.empty() ? "-" : r.host, std::to_string(r.device),
                        r.bus_id.empty() ? "-" : r.bus_id, r.gpu.empty() ? "-" : r.gpu});
  return tab;
}

// Per-iteration statistics (-I columns or JSON *_per_iter), out-of-place half; nullopt without.
std::optional<Table> per_iteration_table(const baseline::NcclTestsTable& t) {
  Table tab;
  tab.columns = {"size", "iter min", "iter max", "iter p99", "cv", "slowest process (its worst iteration)"};
  tab.align = {Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kLeft};
  for (const auto& r : t.rows) {
    const auto& h = r.out_of_place;
    if (!h.iter_min_s && !h.iter_max_s && h.per_process_max_s.empty()) continue;
    std::string slowest = "-";
    if (!h.per_process_max_s.empty()) {
      auto it = std::max_element(h.per_process_max_s.begin(), h.per_process_max_s.end());
      slowest = "process " + std::to_string(it - h.per_process_max_s.begin()) + " (" + format_seconds(*it) + ")";
    }
    tab.rows.push_back({format_bytes_iec(static_cast<double>(r.size_bytes)), opt_time(h.iter_min_s),
                        opt_time(h.iter_max_s), opt_time(h.iter_p99_s),
                        h.iter_cv_pct ? format_sig(*h.iter_cv_pct, 3) + "%" : "-", slowest});
  }
  if (tab.rows.empty()) return std::nullopt;
  tab.notes.push_back("per iteration, out-of-place; JSON: a process's worst iteration is the max over the ranks it drives");
  return tab;
}

Section table_section(const baseline::NcclTestsTable& t) {
  Section s;
  s.title = (t.program.empty() ? t.collective : t.program) + " (line " + std::to_string(t.header_line) + ")";
  s.fields.emplace_back("collective", t.collective);
  s.fields.emplace_back("dtype", t.rows.empty() ? "-" : t.rows.front().dtype);
  std::set<std::string> hosts(t.rank_hosts.begin(), t.rank_hosts.end());
  s.fields.emplace_back("ranks", t.rank_hosts.empty() ? "not listed in the output"
                                                      : std::to_string(t.rank_hosts.size()) + " on " +
                                                            std::to_string(hosts.size()) + " hosts");
  if (!t.nccl_version.empty()) s.fields.emplace_back("NCCL", t.nccl_version);
  if (!t.tests_version.empty()) s.fields.emplace_back("nccl-tests", t.tests_version);
  if (t.source_format != "text") s.fields.emplace_back("read from", t.source_format == "json" ? "JSON (-J)" : "JSON (PR #318 form)");
  for (const auto& [k, v] : t.command_env) s.fields.emplace_back(k, v + " (command line)");
  if (t.command_gpus) s.fields.emplace_back("GPUs (command line)", std::to_string(*t.command_gpus));
  if (t.header_inferred) s.fields.emplace_back("columns", "no header line: taken from the rows' shape");
  if (t.summary_cut) s.fields.emplace_back("avg busbw", "NOT READ (the line is cut)");
  if (t.avg_busbw_bytes_per_s) s.fields.emplace_back("avg busbw", format_gbytes_per_s(*t.avg_busbw_bytes_per_s));
  if (t.out_of_bounds_values)
    s.fields.emplace_back("out of bounds", std::to_string(*t.out_of_bounds_values) + (t.out_of_bounds_ok ? " OK" : " FAILED"));
  bool wrong_column = t.layout == baseline::NcclTestsLayout::kWrongColumn;
  Table tab;
  tab.columns = {"size", "time", "algbw", "busbw", wrong_column ? "#wrong" : "error",
                 "in-place time", "algbw", "busbw", wrong_column ? "#wrong" : "error"};
  tab.align.assign(tab.columns.size(), Align::kRight);
  for (const auto& r : t.rows) {
    std::vector<std::string> row = {format_bytes_iec(static_cast<double>(r.size_bytes)), opt_time(r.out_of_place.time_s),
                                    opt_bw(r.out_of_place.algbw_bytes_per_s), opt_bw(r.out_of_place.busbw_bytes_per_s),
                                    check_text(r.out_of_place)};
    if (r.in_place) {
      row.insert(row.end(), {opt_time(r.in_place->time_s), opt_bw(r.in_place->algbw_bytes_per_s),
                             opt_bw(r.in_place->busbw_bytes_per_s), check_text(*r.in_place)});
    }
    tab.rows.push_back(std::move(row));
  }
  if (!wrong_column)
    tab.notes.push_back("error = largest relative error (older nccl-tests); the verdict is the out-of-bounds count");
  s.tables.push_back(std::move(tab));
  if (auto it = per_iteration_table(t)) s.tables.push_back(std::move(*it));
  if (!t.ranks.empty()) s.tables.push_back(ranks_table(t.ranks));
  return s;
}

// The tables past --max-findings: each collective and size, with its busbw over the runs.
Section not_listed_section(const baseline::NcclTestsNotListed& n, size_t max) {
  Section s;
  s.title = "... and " + std::to_string(n.tables) + " more tables like these (not listed past --max-findings " +
            std::to_string(max) + "; lines " + std::to_string(n.first_header_line) + ".." +
            std::to_string(n.last_header_line) + ")";
  if (n.wrong_tables) s.fields.emplace_back("with wrong results", std::to_string(n.wrong_tables));
  Table tab;
  tab.columns = {"collective", "dtype", "size", "runs", "busbw min", "busbw mean", "busbw max"};
  tab.align = {Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight};
  for (const auto& r : n.sizes) {
    bool bw = r.runs_with_busbw > 0;
    double mean = bw ? r.busbw_sum_bytes_per_s / static_cast<double>(r.runs_with_busbw) : 0;
    tab.rows.push_back({r.collective, r.dtype, format_bytes_iec(static_cast<double>(r.size_bytes)), std::to_string(r.runs),
                        bw ? format_gbytes_per_s(r.busbw_min_bytes_per_s) : "-", bw ? format_gbytes_per_s(mean) : "-",
                        bw ? format_gbytes_per_s(r.busbw_max_bytes_per_s) : "-"});
  }
  s.tables.push_back(std::move(tab));
  return s;
}

}  // namespace

Result<ImportOutput> nccl_tests_output(const ImportNcclTestsOptions& o) {
  auto lines = open_input_lines(o.file);
  if (!lines) return lines.error();
  auto imp = baseline::parse_nccl_tests(**lines, o.file, o.collective, ReadLimits{o.max_findings});
  if (!imp) return imp.error();

  ImportOutput out;
  Envelope& env = out.env;
  env = make_envelope("fabdiag.bench/1");
  env.hosts = baseline::nccl_tests_hosts(*imp);  // the nodes of the nccl-tests run, not this one
  env.params = {{"importer", "nccl-tests"}, {"file", o.file}, {"collective", o.collective}};
  if (o.line_rate_gbit_per_s) env.params["line_rate_gbit_per_s"] = *o.line_rate_gbit_per_s;
  env.data = baseline::to_bench_envelope_data(*imp);
  env.findings = baseline::nccl_tests_findings(*imp, o.file);
  for (auto& f : baseline::nccl_tests_link_findings(*imp, o.file, o.line_rate_gbit_per_s)) env.findings.push_back(std::move(f));
  for (auto& f : baseline::nccl_tests_setting_findings(*imp, o.file)) env.findings.push_back(std::move(f));
  env.errors = imp->gaps;
  cap_findings(env.findings, o.max_findings);

  Document& doc = out.doc;
  doc.title = "fabdiag import nccl-tests " + o.file;
  for (const auto& t : imp->tables) doc.sections.push_back(table_section(t));
  if (imp->not_listed.tables > 0) doc.sections.push_back(not_listed_section(imp->not_listed, o.max_findings));
  return out;
}

int run_import_nccl_tests(const GlobalOptions& g, const ImportNcclTestsOptions& o) {
  auto out = nccl_tests_output(o);
  if (!out) return fail_input(out.error());
  return emit(g, out->env, out->doc);
}

}  // namespace fabdiag::cmd
