// `fabdiag pairwise`: parse and check the flags before MPI starts, run the round-robin pair
// rounds on MPI_COMM_WORLD (host memory) or, with --backend nccl, on one GPU per rank through
// NCCL (cmd/nccl_job.h), analyse the matrix, and let rank 0 print the matrix, the per-node
// medians and the verdict (or the fabdiag.pairwise/1 document).
#include <chrono>
#include <cmath>
#include <cstdio>

#include "cmd/commands.h"
#include "cmd/mpi_job.h"
#include "cmd/nccl_info_capture.h"
#include "cmd/nccl_job.h"
#include "cmd/pairwise_rail.h"
#include "core/exit_codes.h"
#include "perf/pairwise.h"
#include "perf/pairwise_analysis.h"
#include "perf/sweep.h"

namespace fabdiag::cmd {

namespace {

std::string gb(double bytes_per_s) {
  if (!std::isfinite(bytes_per_s)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", bytes_per_s / 1e9);
  return buf;
}

std::string ratio(double r) {
  if (!std::isfinite(r)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", r);
  return buf;
}

Document pairwise_document(const perf::PairwiseMatrix& m, const perf::PairwiseAnalysis& a) {
  Document doc;
  doc.title = "fabdiag pairwise";
  Section s;
  s.title = "Pair bandwidth, " + std::to_string(m.hosts.size()) + " nodes, " +
            perf::format_size_bytes(m.size_bytes) + " x " + std::to_string(m.iters) +
            " bidirectional exchanges per pair, " + std::to_string(m.rounds.size()) + " rounds";
  Table t;
  t.title = "GB/s per direction (row = sender, column = receiver)";
  t.columns.push_back("src \\ dst");
  t.align.push_back(Align::kLeft);
  for (const auto& h : m.hosts) {
    t.columns.push_back(h);
    t.align.push_back(Align::kRight);
  }
  for (size_t i = 0; i < m.hosts.size(); ++i) {
    std::vector<std::string> row{m.hosts[i]};
    for (size_t j = 0; j < m.hosts.size(); ++j)
      row.push_back(i == j ? "-" : gb(m.matrix_bytes_per_s[i][j]));
    t.rows.push_back(std::move(row));
  }
  s.tables.push_back(std::move(t));

  Table nodes;
  nodes.title = "Per node (median over its partners)";
  nodes.columns = {"host", "median (GB/s)", "ratio", "partners", "verdict"};
  nodes.align = {Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kLeft};
  const double ref = a.reference_bytes_per_s;
  for (size_t i = 0; i < m.hosts.size(); ++i) {
    double med = a.node_median_bytes_per_s[i];
    nodes.rows.push_back({m.hosts[i], gb(med),
                          std::isfinite(ref) && ref > 0 ? ratio(med / ref) : "n/a",
                          std::to_string(a.partners[i]), perf::to_string(a.status[i])});
  }
  if (a.reference_source.empty())
    nodes.notes.push_back("no reference: too few pairs to judge (see the findings)");
  else if (a.reference_source == "fleet median")
    nodes.notes.push_back("ratio = node median / fleet median (" + gb(ref) + " GB/s)");
  else
    nodes.notes.push_back("ratio = node median / " + a.reference_source + " (" + gb(ref) +
                          " GB/s); fleet median " + gb(a.fleet_median_bytes_per_s) + " GB/s");
  s.tables.push_back(std::move(nodes));

  std::string verdict;
  for (const auto& o : a.outlier_nodes) verdict += (verdict.empty() ? "" : ", ") + o.host + " slow";
  for (const auto& l : a.outlier_links)
    verdict += (verdict.empty() ? "" : ", ") + ("link " + l.host_a + "<->" + l.host_b + " slow");
  if (verdict.empty())
    verdict = a.inconclusive.empty() ? "no slow node or link" : "no slow node or link named yet";
  s.fields.push_back({"verdict", verdict});
  if (!a.inconclusive.empty())
    s.fields.push_back({"inconclusive", std::to_string(a.inconclusive.size()) +
                                            " item(s), listed under the findings"});
  doc.sections.push_back(std::move(s));
  return doc;
}

// The rounds so far as a run state: the measured cells, the analysis of what is there, the
// round now running and the rest.
RunState pairwise_state(const Envelope& base, const perf::PairwiseMatrix& m, size_t done,
                        const perf::PairwiseThresholds& thresholds) {
  RunState st;
  st.env = base;
  perf::PairwiseAnalysis a = perf::analyze_pairwise(m, thresholds);
  perf::pairwise_to_json(st.env.data, m, a);
  st.env.findings = perf::pairwise_findings(m, a, thresholds);
  st.doc = pairwise_document(m, a);
  const size_t total = m.rounds.size();
  if (done < total) st.during = "pair round " + std::to_string(done + 1) + " of " + std::to_string(total);
  if (done + 2 == total) st.not_run = "pair round " + std::to_string(total);
  if (done + 2 < total) st.not_run = "pair rounds " + std::to_string(done + 2) + ".." + std::to_string(total);
  return st;
}

// Rank 0's result: the analysis, NCCL's transport per host and the rail ends when measured,
// written as the finished run (and its checkpoint) and emitted.
int report_pairwise(const GlobalOptions& g, int rail_index, Envelope& env, const perf::PairwiseMatrix& matrix,
                    const perf::PairwiseThresholds& thresholds, const nlohmann::json& nccl_transport,
                    const nlohmann::json& rail, std::chrono::steady_clock::time_point started, PartialRun& run) {
  perf::PairwiseAnalysis analysis = perf::analyze_pairwise(matrix, thresholds);
  perf::pairwise_to_json(env.data, matrix, analysis);
  if (!nccl_transport.is_null()) env.data["nccl_transport"] = nccl_transport;
  if (!rail.is_null()) env.data["rail"] = rail;
  env.findings = perf::pairwise_findings(matrix, analysis, thresholds);
  finish_envelope(env, started);
  run.finish(env);
  Document doc = pairwise_document(matrix, analysis);
  if (!rail.is_null())
    for (const auto& e : rail["ends"])
      doc.sections.front().fields.push_back({"rail " + std::to_string(rail_index) + " of " + e.value("host", "?"), rail_end_text(e)});
  return emit(g, env, doc);
}

}  // namespace

int run_pairwise(const GlobalOptions& g, const PairwiseOptions& o) {
  const auto started = std::chrono::steady_clock::now();
  Envelope env = make_envelope("fabdiag.pairwise/1");
  auto size = perf::parse_size_bytes(o.size);
  if (!size) return usage_error_once("--size: " + size.error().message);
  perf::PairwiseOptions po;
  po.size_bytes = *size;
  po.iters = o.iters;
  po.warmup_iters = o.warmup_iters;
  po.split_pairs = o.pair_comm == "split";
  if (auto st = perf::validate_pairwise_options(po); !st) {
    return usage_error_once(st.error().message);
  }
  if (auto rc = refuse_unavailable_backend(o.backend)) return *rc;
  if (o.rail >= 0 && o.backend != "nccl") return usage_error_once("--rail picks a GPU and its NIC: it needs --backend nccl");
  if (auto rc = refuse_unwritable_outputs(g, o.run.checkpoint)) return *rc;
  perf::PairwiseThresholds thresholds;
  thresholds.node_ratio = o.node_ratio;
  thresholds.pair_ratio = o.pair_ratio;

  env.params = {{"size_bytes", *size},          {"iters", o.iters},
                {"warmup", o.warmup_iters},     {"backend", o.backend}, {"pair_comm", o.pair_comm},
                {"node_ratio", o.node_ratio},   {"pair_ratio", o.pair_ratio},
                {"min_partners", thresholds.min_partners}, {"timeout_s", o.run.timeout_s}};
  if (o.rail >= 0) env.params["rail"] = o.rail;
  // Rank 0 reports, so rank 0 delivers a cut run. It watches from before MPI starts (MPI_Init
  // can take seconds): a Ctrl-C then still prints the run's document, with no pair finished.
  std::optional<PartialRun> run;
  const auto start_watching = [&] {
    run.emplace(g, PartialRunOptions{o.run.checkpoint, o.run.timeout_s, false});
    run->publish(startup_state(env, "fabdiag pairwise", "every pair round"));
  };
  if (launcher_rank().value_or(0) == 0) start_watching();
  auto session = open_mpi_or_report();
  if (!session) return kExitMissingCapability;
  // --backend nccl: the pair exchanges are ncclSend/ncclRecv between the GPUs of the paired
  // ranks (one rank per node, each on its local rank's GPU), timed by CUDA events.
  std::unique_ptr<perf::NcclWorld> nccl;
  std::optional<NcclInfoCapture> capture;  // before NCCL's first call: NCCL reads NCCL_DEBUG_FILE once
  if (o.backend == "nccl") {
    capture.emplace();
    nccl = open_nccl_world_or_report(*session, o.rail);
    if (!nccl) return kExitMissingCapability;
    add_nccl_world_params(env.params, *nccl);
  }
  // --rail: this rank's GPU and rail NIC, read before the rounds.
  const nlohmann::json rail_end = nccl && o.rail >= 0 ? local_rail_end(g, nccl->comm(), o.rail) : nlohmann::json();
  perf::Comm& comm = nccl ? nccl->comm() : session->world();
  if (comm.rank() != 0) run.reset();  // a launcher that numbers ranks unlike MPI
  if (comm.rank() == 0 && !run) start_watching();
  if (comm.size() < 2) {
    if (comm.rank() == 0)
      print_error("pairwise needs at least 2 ranks, one per node: run it under mpirun -np N");
    return kExitUsage;
  }
  env.hosts = distinct_hosts(comm.hosts());
  perf::PairwiseStepSink on_step;
  if (run) {
    on_step = [&](const perf::PairwiseMatrix& so_far, size_t done) {
      run->publish(pairwise_state(env, so_far, done, thresholds));
    };
  }
  auto matrix = perf::run_pairwise(comm, po, rank0_progress(g, comm), on_step);
  if (!matrix) return fail_mpi_run(*session, matrix.error(), run ? &*run : nullptr);
  auto nccl_transport = collect_nccl_transport(session->world(), capture);
  if (!nccl_transport) return fail_mpi_run(*session, nccl_transport.error(), run ? &*run : nullptr);
  auto rail = gather_rail(session->world(), rail_end, o.rail);
  if (!rail) return fail_mpi_run(*session, rail.error(), run ? &*run : nullptr);
  if (comm.rank() != 0) return kExitOk;  // only rank 0 reports

  return report_pairwise(g, o.rail, env, *matrix, thresholds, *nccl_transport, *rail, started, *run);
}

}  // namespace fabdiag::cmd
