// `fabdiag baseline save|diff|show|fleet`: the flags (CLI11) -> baseline/ library -> envelope +
// document (cmd/baseline_view.h renders).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "baseline/diff.h"
#include "baseline/fleet.h"
#include "baseline/store.h"
#include "cmd/baseline_view.h"
#include "cmd/cli_validators.h"
#include "cmd/commands.h"
#include "cmd/input.h"
#include "core/environment.h"
#include "core/exit_codes.h"
#include "core/text.h"
#include "metrics/baseline_metrics.h"
#include "report/prometheus.h"
#include "report/humanize.h"

namespace fabdiag::cmd {

namespace {

using baseline::BaselineInfo;
using baseline::BaselineStore;
using baseline::percent_text;

void add_store_flag(CLI::App* sub, BaselineOptions& o) {
  sub->add_option("--store", o.store_dir,
                  "Baseline directory (default: $FABDIAG_BASELINE_DIR or ~/.local/share/fabdiag/baselines)")
      ->type_name("DIR");
}

void add_save_command(CLI::App* baseline, BaselineOptions& o) {
  auto* save = baseline->add_subcommand("save", "Save a result file (fabdiag --format json output) as baseline NAME");
  save->add_option("NAME", o.name, "Baseline name: letters, digits, '.', '_', '-' (e.g. nightly)")->required();
  save->add_option("FILE", o.file, "Result JSON of bench, pairwise, triage or import ('-' = stdin)")->required();
  auto* append = save->add_flag("--append", o.append,
                                "Add this run to NAME's history (created if new): diff then judges against the "
                                "last runs");
  auto* force = save->add_flag("--force", o.force,
                               "Replace baseline NAME if it exists (its history restarts with this run)");
  append->excludes(force);
  save->add_option("--keep", o.keep, "Runs kept per key in the history; older ones are pruned (default 30)")
      ->check(number_in(1, 100000));
  add_store_flag(save, o);
  save->callback([&o] { o.action = "save"; });
}

void add_diff_command(CLI::App* baseline, BaselineOptions& o) {
  auto* diff = baseline->add_subcommand(
      "diff", "Compare a result file with baseline NAME: busbw per collective and size, bandwidth per host pair");
  diff->add_option("NAME", o.name, "Baseline to compare against")->required();
  diff->add_option("FILE", o.file, "Result JSON to compare ('-' = stdin)")->required();
  diff->add_option("--tolerance", o.tolerance,
                   "Allowed drop as a fraction of the reference: 0.10 flags below 90% as warn, below 80% as "
                   "error (error needs >= 3 runs of history)")
      ->check(number_in(0.0, 1.0))
      ->capture_default_str();
  diff->add_option("--last", o.last_runs, "K: the reference is the median of the last K saved runs (default 7)")
      ->check(number_in(1, 100000));
  diff->add_option("--spread-k", o.spread_k,
                   "k: a drop must also exceed k x the runs' spread (1.4826 x MAD) to count (default 3.5)")
      ->check(number_in(0.0, 1000.0));
  add_store_flag(diff, o);
  diff->callback([&o] { o.action = "diff"; });
}

}  // namespace

CLI::App* add_baseline_command(CLI::App& app, BaselineOptions& o, bool with_flags) {
  auto* baseline = app.add_subcommand(
      "baseline", "Keep baselines of bench/pairwise/triage results with their history and diff new results against them");
  if (!with_flags) return baseline;
  baseline->require_subcommand(0, 1);  // none: run_baseline() names the four; an unknown word: CLI11 names it
  baseline->footer(
      "Store: --store DIR, else $FABDIAG_BASELINE_DIR, else $XDG_DATA_HOME/fabdiag/baselines, else\n"
      "~/.local/share/fabdiag/baselines. Nightly: fabdiag baseline diff nightly run.json && fabdiag\n"
      "baseline save --append nightly run.json. Exit codes: 0 ok, 1 regression (or drift at warn) found,\n"
      "2 bad name or input file (missing, not JSON, not a bench/pairwise/triage result), unknown\n"
      "baseline, existing name without --append or --force, a store path that cannot be created or\n"
      "written (no permission, read-only, a file in the way); 4 diff compared only part (sizes, pairs\n"
      "or hosts on one side only), or an I/O error (disk full, EIO) reading or writing the store.\n"
      "diff --format prometheus -o DIR/fabdiag-baseline.prom: the node_exporter textfile (docs/nightly.md).");
  add_save_command(baseline, o);
  add_diff_command(baseline, o);
  auto* show = baseline->add_subcommand("show", "List the stored baselines, or show baseline NAME");
  show->add_option("NAME", o.name, "Baseline to show (default: list all)");
  add_store_flag(show, o);
  show->callback([&o] { o.action = "show"; });
  auto* fleet = baseline->add_subcommand(
      "fleet", "Build baseline NAME from many nodes' bench results: per collective and size the fleet median, "
               "outlier nodes (modified z beyond 3.5) left out");
  fleet->add_option("NAME", o.name, "Baseline name")->required();
  fleet->add_option("FILE", o.files, "Bench result JSON of each node (fabdiag bench / import nccl-tests)")
      ->required();
  fleet->add_flag("--force", o.force, "Replace baseline NAME if it exists");
  add_store_flag(fleet, o);
  fleet->callback([&o] { o.action = "fleet"; });
  return baseline;
}

namespace {

int run_save(const GlobalOptions& g, const BaselineOptions& o, const std::string& dir) {
  auto content = read_input(o.file);
  if (!content) return fail_input(content.error());
  BaselineStore store(dir);
  auto mode = o.append ? baseline::SaveMode::kAppend : o.force ? baseline::SaveMode::kReplace : baseline::SaveMode::kNew;
  auto out = store.save_run(o.name, *content, o.file, mode, o.keep);
  if (!out) return fail_input(out.error());
  Envelope env = make_envelope("fabdiag.baseline_save/1");
  env.params = {{"store", dir}, {"name", o.name},     {"file", o.file},
                {"force", o.force}, {"append", o.append}, {"keep", o.keep}};
  env.data = baseline_info_json(out->info, static_cast<long>(out->history_runs));
  env.data["replaced"] = out->replaced;
  env.data["pruned_points"] = out->pruned_points;
  Document doc;
  doc.title = "fabdiag baseline save";
  Section s;
  s.title = o.append && out->replaced ? "appended run" : out->replaced ? "replaced baseline" : "saved baseline";
  s.fields = baseline_info_fields(out->info);
  s.fields.emplace_back("history", std::to_string(out->history_runs) + " run(s) kept (--keep " +
                                       std::to_string(o.keep) + "), " + std::to_string(out->pruned_points) +
                                       " old value(s) pruned");
  doc.sections.push_back(std::move(s));
  return emit(g, env, doc);
}

// --format prometheus: the node_exporter textfile of the diff (metrics/baseline_metrics.h), to
// --output (atomically) or stdout; the exit code is the diff's own.
int write_diff_metrics(const GlobalOptions& g, const baseline::BaselineDiff& d, const Envelope& env) {
  auto text = render_prometheus(baseline_diff_metric_families(d, env.hosts.size() == 1 ? env.hosts[0] : std::string()));
  if (!text) {
    print_error(text.error().to_string());
    return kExitInternal;
  }
  if (int rc = write_result_text(g, *text); rc != kExitOk) return rc;
  return exit_code_for(env);
}

int run_diff(const GlobalOptions& g, const BaselineOptions& o, const std::string& dir) {
  baseline::DiffOptions opts;
  opts.tolerance = o.tolerance;
  opts.last_runs = o.last_runs;
  opts.spread_k = o.spread_k;
  opts.baseline_label = o.name;
  opts.current_label = o.file;
  if (auto st = baseline::validate_diff_options(opts); !st) return fail_input(st.error());
  BaselineStore store(dir);
  auto base = store.load(o.name);
  if (!base) return fail_input(base.error());
  auto history = store.load_history(o.name);
  if (!history) return fail_input(history.error());
  auto content = read_input(o.file);
  if (!content) return fail_input(content.error());
  auto current = baseline::parse_result_document(*content, o.file);
  if (!current) return fail_input(current.error());
  auto measured = baseline::extract_measurements(*current, o.file);
  if (!measured) return fail_input(measured.error());
  auto d = baseline::diff_history(*history, *measured, opts);
  if (!d) return fail_input(d.error());

  Envelope env = make_envelope("fabdiag.baseline_diff/1");
  env.hosts = current->hosts;
  env.params = {{"store", dir},           {"name", o.name},          {"file", o.file},
                {"tolerance", o.tolerance}, {"last", o.last_runs}, {"spread_k", o.spread_k}};
  env.data = *d;
  env.findings = d->findings;
  for (const auto& e : base->measurements.gaps) env.errors.push_back(e);
  for (const auto& e : measured->gaps) env.errors.push_back(e);
  for (const auto& e : d->gaps) env.errors.push_back(e);
  if (g.format == "prometheus") return write_diff_metrics(g, *d, env);

  Document doc;
  doc.title = "fabdiag baseline diff";
  doc.sections.push_back(diff_comparison_section(*d, base->info, o.file, current->schema, current->started_at));
  for (auto& s : diff_table_sections(*d)) doc.sections.push_back(std::move(s));
  return emit(g, env, doc);
}

// `baseline show NAME`: the baseline, its history and its collectives.
int run_show_one(const GlobalOptions& g, const BaselineOptions& o, const std::string& dir, Envelope& env) {
  BaselineStore store(dir);
  auto b = store.load(o.name);
  if (!b) return fail_input(b.error());
  auto h = store.load_history(o.name);
  if (!h) return fail_input(h.error());
  env.data = {{"store", dir},
              {"baselines", nlohmann::json::array({baseline_info_json(b->info, static_cast<long>(h->runs.size()))})},
              {"document", b->envelope},
              {"history", baseline::history_to_json(*h)}};
  env.errors = b->measurements.gaps;
  Document doc;
  doc.title = "fabdiag baseline show";
  Section s;
  s.title = "baseline";
  s.fields = baseline_info_fields(b->info);
  std::string runs = std::to_string(h->runs.size()) + (h->fleet ? " node result(s), a fleet baseline" : " run(s)");
  if (!h->runs.empty() && !h->fleet) runs += ", " + h->runs.front().at + " .. " + h->runs.back().at;
  s.fields.emplace_back("history", runs);
  doc.sections.push_back(std::move(s));
  if (!b->measurements.collectives.empty()) {
    Table t;
    t.columns = {"collective", "size", "busbw", "backend", "ranks"};
    t.align = {Align::kLeft, Align::kRight, Align::kRight, Align::kLeft, Align::kRight};
    for (const auto& p : b->measurements.collectives)
      t.rows.push_back({p.collective, format_bytes_iec(static_cast<double>(p.size_bytes)),
                        format_gbytes_per_s(p.busbw_bytes_per_s), p.backend.empty() ? "-" : p.backend,
                        p.ranks ? std::to_string(*p.ranks) : "-"});
    Section ts;
    ts.title = "collectives: busbw per message size";
    ts.tables.push_back(std::move(t));
    doc.sections.push_back(std::move(ts));
  }
  return emit(g, env, doc);
}

int run_show(const GlobalOptions& g, const BaselineOptions& o, const std::string& dir) {
  BaselineStore store(dir);
  Envelope env = make_envelope("fabdiag.baseline_show/1");
  env.params = {{"store", dir}, {"name", o.name}};
  if (!o.name.empty()) return run_show_one(g, o, dir, env);
  Document doc;
  doc.title = "fabdiag baseline show";
  auto listing = store.list();
  if (!listing) return fail_input(listing.error());
  env.data = {{"store", dir}, {"store_exists", listing->store_exists}, {"baselines", nlohmann::json::array()}};
  for (const auto& i : listing->baselines) env.data["baselines"].push_back(baseline_info_json(i));
  env.errors = listing->errors;
  Section s;
  s.title = "baselines";
  s.fields.emplace_back("store", dir);
  if (listing->baselines.empty()) {
    s.lines.push_back(std::string("none") + (listing->store_exists ? "" : " (the directory does not exist yet)") +
                      "; save one with: fabdiag baseline save NAME FILE");
  } else {
    s.tables.push_back(baseline_listing_table(listing->baselines));
  }
  doc.sections.push_back(std::move(s));
  return emit(g, env, doc);
}

int run_fleet(const GlobalOptions& g, const BaselineOptions& o, const std::string& dir) {
  std::vector<baseline::FleetInput> inputs;
  std::vector<Error> gaps;
  for (const auto& file : o.files) {
    auto content = read_input(file);
    if (!content) return fail_input(content.error());
    auto env = baseline::parse_result_document(*content, file);
    if (!env) return fail_input(env.error());
    auto m = baseline::extract_measurements(*env, file);
    if (!m) return fail_input(m.error());
    for (const auto& e : m->gaps) gaps.push_back(e);
    inputs.push_back({file, env->started_at, std::move(*m)});
  }
  auto fb = baseline::build_fleet(inputs);
  if (!fb) return fail_input(fb.error());
  BaselineStore store(dir);
  auto info = store.save_fleet(o.name, fb->history, fb->document, o.force);
  if (!info) return fail_input(info.error());
  Envelope env = make_envelope("fabdiag.baseline_fleet/1");
  env.params = {{"store", dir}, {"name", o.name}, {"files", o.files}, {"force", o.force}};
  env.data = baseline_info_json(*info, static_cast<long>(fb->history.runs.size()));
  env.data["outliers"] = nlohmann::json::array();
  for (const auto& x : fb->outliers)
    env.data["outliers"].push_back({{"host", x.host}, {"collective", x.collective}, {"size_bytes", x.size_bytes},
                                    {"bytes_per_s", x.bytes_per_s}, {"median_bytes_per_s", x.median_bytes_per_s},
                                    {"modified_z", x.modified_z}});
  env.errors = gaps;
  for (const auto& e : fb->gaps) env.errors.push_back(e);
  Document doc;
  doc.title = "fabdiag baseline fleet";
  Section s;
  s.title = "fleet baseline";
  s.fields = baseline_info_fields(*info);
  s.fields.emplace_back("nodes", std::to_string(fb->history.runs.size()) + " result(s), " +
                                     std::to_string(fb->outliers.size()) + " outlier value(s) left out");
  doc.sections.push_back(std::move(s));
  doc.sections.push_back(fleet_outlier_section(*fb));
  return emit(g, env, doc);
}

}  // namespace

int run_baseline(const GlobalOptions& g, const BaselineOptions& o) {
  auto dir = baseline::resolve_store_dir(o.store_dir, process_environment());
  if (!dir) return fail_input(dir.error());
  if (o.action == "save") return run_save(g, o, *dir);
  if (o.action == "diff") return run_diff(g, o, *dir);
  if (o.action == "show") return run_show(g, o, *dir);
  if (o.action == "fleet") return run_fleet(g, o, *dir);
  print_error("baseline: give one of save, diff, show, fleet");
  return kExitUsage;
}

}  // namespace fabdiag::cmd
