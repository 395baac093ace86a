// libFuzzer target: the counter reader over a sysfs tree, as `fabdiag counters --sysfs-root
// DIR [--after-sysfs-root DIR2 --interval 10]` reads it: the input is "path:value" lines
// (ScratchTree, tests/fuzz/fuzz_support.h) made into a tree, read by the counter pipeline
// (RDMA and netdev counters, port attributes, the ethtool/<netdev> statistics and
// ethtool-module/<netdev> pages of a fixture); a line "### after" starts a second tree read as
// the later snapshot of a 10 s window. Then the interpretation, the Prometheus families, and
// the snapshot JSON a triage rank sends (read back as the launcher does).
#include <nlohmann/json.hpp>

#include "collect/counter_pipeline.h"
#include "core/envelope.h"
#include "metrics/counter_metrics.h"
#include "probes/counters/counter_snapshot_json.h"
#include "report/prometheus.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace fabdiag;

const std::string_view kAfter = "\n### after\n";

Snapshot read_tree(fuzz::ScratchTree& tree, std::string_view lines) {
  static const CounterPipeline pipeline{CounterSources{}};
  tree.build(lines);
  Snapshot snap = pipeline.snapshot(tree.fs());
  auto back = snapshot_from_json(nlohmann::json::parse(
      snapshot_to_json(snap).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
  if (!back) __builtin_trap();  // a rank's snapshot must read back
  return snap;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::ScratchTree tree;
  std::string_view text = fuzz::as_text(data, size);
  size_t split = text.find(kAfter);
  Snapshot first = read_tree(tree, text.substr(0, split));
  std::optional<Snapshot> second;
  if (split != std::string_view::npos) second = read_tree(tree, text.substr(split + kAfter.size()));

  CounterObservation obs = observe_counters(first, second ? &*second : nullptr,
                                            second ? std::optional<double>(10.0) : std::nullopt);
  CounterInterpretation interp = interpret_observation(obs);
  CountersMetricsInput metrics{obs.ports, obs.changes, obs.links, obs.optics, interp.findings,
                               obs.gaps.size(), std::nullopt, true};
  (void)render_prometheus(counters_metric_families(metrics));
  nlohmann::json j = {{"ports", obs.ports}, {"counters", obs.changes}, {"links", obs.links},
                      {"optics", obs.optics}, {"findings", interp.findings}, {"errors", obs.gaps}};
  fuzz::render(j);
  return 0;
}
