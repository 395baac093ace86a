#include "tests/fuzz/fuzz_support.h"

#include <nlohmann/json.hpp>

#include "collect/counter_pipeline.h"
#include "core/envelope.h"
#include "core/line_source.h"
#include "import/counter_files.h"
#include "metrics/counter_metrics.h"
#include "report/prometheus.h"
#include "report/render.h"
#include "rules/check_run.h"

namespace fabdiag::fuzz {

void render(const nlohmann::json& doc) {
  std::string out = doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  if (out.empty()) __builtin_trap();  // never: a dump has at least "null"
}

namespace {

void render_envelope(const Envelope& env) {
  std::string out = render_json(env);
  if (out.empty()) __builtin_trap();
}

// The reader's refusal, as the CLI prints it on stderr.
void render_error(const Error& e) {
  std::string line = e.to_string();
  if (line.empty()) __builtin_trap();
}

}  // namespace

void fuzz_counter_import(std::optional<CounterImportFormat> format, std::string_view text) {
  CounterFilesSpec spec;
  spec.files = {"fuzz-input"};
  spec.format = format;
  // An odd-sized input is read as "###" sections 10 s apart (--interval 10), an even one
  // without a window: both the rate and the no-rate paths of the interpretation run.
  spec.interval_s = text.size() % 2 ? 10.0 : 0.0;
  const std::string content(text);
  auto read = [&content](const std::string&) -> Result<std::unique_ptr<LineSource>> {
    return text_line_source(content);
  };
  auto imported = import_counter_files(spec, read);
  if (!imported) return render_error(imported.error());

  CounterObservation obs;
  obs.ports = imported->input.ports;
  obs.changes = imported->input.changes;
  obs.window_s = imported->input.window_s;
  obs.optics = imported->input.optics;
  obs.gaps = imported->gaps;
  CounterInterpretation interp = interpret_observation(obs);

  CountersMetricsInput metrics{obs.ports, obs.changes, obs.links, obs.optics, interp.findings,
                               obs.gaps.size(), std::nullopt, true};
  auto prom = render_prometheus(counters_metric_families(metrics));
  if (!prom) render_error(prom.error());

  Envelope env;
  env.schema = "fabdiag.counters/1";
  env.data = {{"files", imported->files},
              {"ports", obs.ports},
              {"counters", obs.changes},
              {"optics", obs.optics},
              {"notes", imported->notes},
              {"unknown_counters", interp.unknown_names}};
  for (const auto& s : interp.summaries) env.data["summaries"].push_back(s.line);
  env.findings = interp.findings;
  env.errors = obs.gaps;
  render_envelope(env);
}

void fuzz_host_import(InputFormat format, std::string_view text) {
  auto facts = import_host_facts(text, "fuzz-input", format);
  if (!facts) return render_error(facts.error());
  Envelope env;
  env.schema = "fabdiag.hostfacts/1";
  env.data = host_facts_data(*facts, text, "fuzz-input", format);
  env.errors = facts->gaps;
  render_envelope(env);

  // `fabdiag check --from FILE`: the same facts judged.
  CheckReport report = run_checks(*facts, CheckRunOptions{});
  Envelope check;
  check.schema = "fabdiag.check/1";
  check.data = {{"checks", report.checks}, {"facts", *facts}};
  check.findings = report.findings;
  render_envelope(check);
}

}  // namespace fabdiag::fuzz
