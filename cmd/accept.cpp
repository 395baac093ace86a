// `fabdiag accept --spec SPEC.yaml [--from FILE|DIR...]`: its options, the run (spec, inputs,
// verdict) and the table people read. The verdict itself is accept/evaluate.h's.
#include "cmd/accept.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>

#include "cmd/cli_validators.h"
#include "cmd/input.h"
#include "core/exit_codes.h"

namespace fabdiag::cmd {

CLI::App* add_accept_command(CLI::App& app, AcceptOptions& o) {
  auto* sub = app.add_subcommand(
      "accept", "Sign off nodes and links against a SKU spec (YAML): what each node must have and what the "
                "cluster must deliver; pass/fail per node, link and check with measured vs expected");
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
  sub->footer(
      "Checks each spec item per node (gpu_count, nic_count, nvlinks_per_gpu, port_rate, port_width,\n"
      "link_layer, active_mtu, netdev_mtu, pcie_gen:KIND, pcie_width:KIND, rails, gdr), per link\n"
      "(pair_bandwidth) and per run (busbw:COLL:SIZE, counter_growth:NAME). A floor the spec leaves\n"
      "out is derived from the topology: efficiency x rail port rate x rails (docs/accept.md).\n"
      "A check without its input is not_checked, with the reason, never pass.\n"
      "Examples: fabdiag accept --spec docs/specs/hgx-h100-8gpu.yaml --from results/\n"
      "          fabdiag accept --spec docs/specs/emucluster.yaml --from node01/ node02/ pairwise.json\n"
      "Exit: 0 every check passed, 1 a check failed, 4 nothing failed but something was not\n"
      "checked, 2 usage (a spec error names FILE:LINE:COLUMN and the key), 3 built without yaml-cpp.");
  return sub;
}

namespace {

std::string cell(const std::optional<double>& v, const std::string& unit) {
  if (!v) return "-";
  char buf[64];
  if (unit == "bytes/s") std::snprintf(buf, sizeof buf, "%.4g GB/s", *v / 1e9);
  else std::snprintf(buf, sizeof buf, "%.6g%s%s", *v, unit.empty() ? "" : " ", unit.c_str());
  return buf;
}

std::string margin(const std::optional<double>& pct) {
  if (!pct) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", *pct);
  return buf;
}

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
  doc.sections.push_back(std::move(head));
  Section checks;
  checks.title = "checks";
  Table t;
  t.columns = {"scope", "subject", "check", "status", "measured", "expected", "margin", "reason"};
  t.align = {Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kRight};
  for (const auto& c : v.checks)
    t.rows.push_back({c.scope, c.subject, c.check, accept::to_string(c.status), cell(c.measured, c.unit),
                      cell(c.expected, c.unit), margin(c.margin_pct), c.reason});
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

int run_accept(const GlobalOptions& g, const AcceptOptions& o) {
  const auto started = std::chrono::steady_clock::now();
  auto spec = accept::load_spec(o.spec);
  if (!spec) {
    if (spec.error().code == ErrorCode::kUnsupported) {
      print_error(spec.error().message);
      return kExitMissingCapability;
    }
    if (spec.error().code == ErrorCode::kParse) {
      print_error("--spec: " + spec.error().message);
      return kExitUsage;
    }
    return fail_input(spec.error());
  }
  accept::Inputs in;
  std::vector<AcceptInputFile> files;
  auto rc = o.from.empty() ? collect_live_inputs(g, o, *spec, in, files) : read_accept_inputs(g, o.from, in, files);
  if (rc) return *rc;
  accept::Verdict v = accept::evaluate(*spec, in);

  Envelope env = make_envelope("fabdiag.accept/1");
  env.hosts.clear();
  for (const auto& n : v.nodes) env.hosts.push_back(n.host);
  env.params = {{"spec", o.spec}, {"from", o.from}};
  if (o.from.empty()) env.params["duration_s"] = o.duration_s;
  env.params["inputs"] = nlohmann::json::array();
  for (const auto& f : files) env.params["inputs"].push_back({{"input", f.path}, {"used_as", f.used_as}});
  env.data = accept::verdict_json(v, *spec);
  env.findings = accept::verdict_findings(v);
  finish_envelope(env, started);
  if (int wrc = write_rendered(g, env, accept_document(v, *spec, files))) return wrc;
  return accept::verdict_exit_code(v);
}

}  // namespace fabdiag::cmd
