// `fabdiag accept --spec SPEC.yaml [--from FILE|DIR...]`: its options, the run (spec, inputs,
// verdict) and the table people read. The verdict itself is accept/evaluate.h's.
#include "cmd/accept.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>

#include "cmd/cli_validators.h"
#include "cmd/input.h"
#include "cmd/mpi_job.h"
#include "core/run_cut.h"
#include "core/exit_codes.h"

namespace fabdiag::cmd {

CLI::App* add_accept_command(CLI::App& app, AcceptOptions& o, bool with_flags) {
  auto* sub = app.add_subcommand(
      "accept", "Sign off nodes and links against a SKU spec (YAML): what each node must have and what the "
                "cluster must deliver; pass/fail per node, link and check with measured vs expected");
  if (!with_flags) return sub;
  sub->add_option("--spec", o.spec, "The acceptance spec (docs/accept.md#the-spec)")->required()->type_name("SPEC.yaml");
  sub->add_option("--from", o.from,
                  "Judge saved results (fabdiag topo/check/counters/bench/pairwise JSON) and collected tool outputs "
                  "(as `fabdiag import` reads them; DIR/<host>/... names the host) instead of this host")
      ->type_name("FILE|DIR...");
  sub->add_option("--nvml-lib", o.nvml_lib, "Live mode: NVML library for NVLinks, as `topo --nvml-lib`")->type_name("PATH");
  sub->add_option("--duration", o.duration_s,
                  "Live mode: seconds of soak after the bench, inside the counter window (default 10)")
      ->check(number_in(0.001, 86400.0));
  sub->add_option("--gpus", o.gpus, "Live mode: local GPUs the NCCL bench drives (default: the GPUs topo found)")
      ->check(CLI::Range(0, 64));
  add_accept_cluster_options(sub, o);
  sub->footer(
      "What it answers: does every node and link deliver what the hardware promises? Each spec item\n"
      "becomes checks, each pass, fail or not_checked with measured, expected and margin (+ = room to\n"
      "spare, - = shortfall, in % of expected):\n"
      "  per node    gpu_count nic_count nvlinks_per_gpu port_rate port_width link_layer active_mtu\n"
      "              netdev_mtu pcie_gen:KIND pcie_width:KIND rails gdr pair_bandwidth_median\n"
      "  per link    pair_bandwidth (hostA<->hostB), counter_growth:NAME (host:mlx5_3/1, the soak)\n"
      "  per run     busbw:COLLECTIVE:SIZE (one row per bench that measured SIZE)\n"
      "A floor the spec leaves out is derived from the measured topology, never typed in:\n"
      "efficiency x rail port rate x rails (8x 400G at 0.8: 320 GB/s all_reduce busbw, 40 GB/s a pair;\n"
      "alltoall and single-node NVLink caveats in docs/accept.md#derived-expectations). A check\n"
      "whose input is missing is not_checked with the reason, never pass.\n"
      "\n"
      "Spec: YAML, version: 1 (docs/accept.md#the-spec; examples in docs/specs/). An unknown key, a\n"
      "value of the wrong type or bad YAML is exit 2 naming FILE:LINE:COLUMN and the key; a spec\n"
      "that is missing or not a file, exit 2 naming the file.\n"
      "\n"
      "Examples:\n"
      "  fabdiag accept --spec docs/specs/hgx-h100-8gpu.yaml --from results/\n"
      "      results/<host>/{topo,check,counters}.json per node (fabdiag topo|check|counters\n"
      "      --format json; counters with --interval N --all for the soak), plus all_reduce_perf\n"
      "      output and a pairwise result (fabdiag pairwise --format json; a hand-made pairs list\n"
      "      through fabdiag import pairs LIST --format json) anywhere under results/\n"
      "  fabdiag accept --spec docs/specs/hgx-h100-8gpu.yaml --hostfile hosts --duration 600\n"
      "      the cluster, live: one rank per host under mpirun (topo, check, counters bracketing\n"
      "      the benches, the pairwise matrix and the soak), judged as --from judges saved results\n"
      "  fabdiag accept --spec docs/specs/hgx-h100-8gpu.yaml --format json -o accept.json\n"
      "      this host, live: topo, check, and a counter window around a local NCCL bench\n"
      "\n"
      "Exit: 0 every check passed; 1 a check failed (the table and findings name the node or\n"
      "link, measured vs expected and the margin); 4 nothing failed but something was not checked;\n"
      "2 usage or a bad spec; 3 built without yaml-cpp.");
  return sub;
}

namespace {

Document accept_document(const accept::Verdict& v, const accept::Spec& spec, const std::vector<AcceptInputFile>& files) {
  Document doc;
  doc.title = "fabdiag accept: " + (spec.name.empty() ? spec.file : spec.name);
  Section head;
  head.title = "verdict";
  head.fields = {{"checks", std::to_string(v.pass) + " pass, " + std::to_string(v.fail) + " fail, " +
                                std::to_string(v.not_checked) + " not checked"}};
  Table nodes;
  nodes.columns = {"node", "status"};
  for (const auto& n : v.nodes) nodes.rows.push_back({n.host, accept::to_string(n.status)});
  head.tables.push_back(std::move(nodes));
  if (!v.links.empty()) {
    Table links;
    links.columns = {"link", "status"};
    for (const auto& l : v.links) links.rows.push_back({l.link, accept::to_string(l.status)});
    head.tables.push_back(std::move(links));
  }
  doc.sections.push_back(std::move(head));
  Section checks;
  checks.title = "checks";
  Table t;
  t.columns = {"scope", "subject", "check", "status", "measured", "expected", "margin", "reason"};
  t.align = {Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kRight};
  for (const auto& c : v.checks)
    t.rows.push_back({c.scope, c.subject, c.check, accept::to_string(c.status), accept::value_text(c.measured, c.unit),
                      accept::value_text(c.expected, c.unit), accept::margin_text(c), c.reason});
  checks.tables.push_back(std::move(t));
  doc.sections.push_back(std::move(checks));
  Section in;
  in.title = "inputs";
  Table ft;
  ft.columns = {"input", "used as"};
  for (const auto& f : files) ft.rows.push_back({f.path, f.used_as});
  in.tables.push_back(std::move(ft));
  doc.sections.push_back(std::move(in));
  return doc;
}

}  // namespace

int judge_and_write(const GlobalOptions& g, const AcceptOptions& o, const accept::Spec& spec, const accept::Inputs& in,
                    const std::vector<AcceptInputFile>& files, const AcceptRun& run,
                    std::chrono::steady_clock::time_point started) {
  accept::Verdict v = accept::evaluate(spec, in);
  Envelope env = make_envelope("fabdiag.accept/1");
  env.hosts.clear();
  for (const auto& n : v.nodes) env.hosts.push_back(n.host);
  env.params = {{"spec", o.spec}, {"from", o.from}};
  if (o.from.empty()) env.params["duration_s"] = o.duration_s;
  env.params.update(run.params);
  env.params["inputs"] = nlohmann::json::array();
  for (const auto& f : files) env.params["inputs"].push_back({{"input", f.path}, {"used_as", f.used_as}});
  env.data = accept::verdict_json(v, spec);
  env.findings = accept::verdict_findings(v);
  env.errors = run.errors;
  if (v.pass + v.fail + v.not_checked == 0)
    env.errors.push_back(make_error(ErrorCode::kInvalidArgument,
                                    "the spec asks for nothing fabdiag can check: no node, link or run was signed off",
                                    o.spec));
  if (run.cut) mark_cut(env, run.cut_code, *run.cut);
  finish_envelope(env, started);
  if (int wrc = write_rendered(g, env, accept_document(v, spec, files))) return wrc;
  const int rc = accept::verdict_exit_code(v);
  return run.cut && rc != kExitProblems ? run.cut_exit : rc;
}

int run_accept(const GlobalOptions& g, const AcceptOptions& o) {
  const auto started = std::chrono::steady_clock::now();
  auto spec = accept::load_spec(o.spec);
  if (!spec) {
    if (spec.error().code == ErrorCode::kUnsupported) {
      print_error(spec.error().message);
      return kExitMissingCapability;
    }
    // A spec error (missing, unreadable, not YAML, a wrong key or value) is the user's to fix: the
    // message names FILE:LINE:COLUMN, or FILE and why it could not be read.
    const std::string& m = spec.error().message;
    return usage_error_once("--spec: " + (m.rfind(o.spec, 0) == 0 ? m : o.spec + ": " + m));
  }
  if (o.worker) return run_accept_worker(g, o, *spec);
  if (!o.hostfile.empty()) return run_accept_cluster(g, o, *spec);
  accept::Inputs in;
  std::vector<AcceptInputFile> files;
  auto rc = o.from.empty() ? collect_live_inputs(g, o, *spec, in, files) : read_accept_inputs(g, o.from, in, files);
  if (rc) return *rc;
  return judge_and_write(g, o, *spec, in, files, AcceptRun{}, started);
}

}  // namespace fabdiag::cmd
