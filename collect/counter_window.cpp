#include "collect/counter_window.h"

#include <optional>
#include <utility>

#include "probes/counters/device_filter.h"

namespace fabdiag {

Result<Snapshot> read_selected_snapshot(const FsRoot& fs, const CounterReadOptions& options) {
  Snapshot first = read_counter_snapshot(fs, options);
  if (auto missing = unmatched_selection(options.devices, first.ports))
    return make_error(ErrorCode::kNotFound,
                      "no RDMA port or netdev named \"" + *missing + "\" under " + fs.sys_path("class") +
                          " (give an ibdev such as mlx5_0, a port such as mlx5_0/1, or a netdev)");
  return first;
}

Result<CounterReading> read_counter_window(const CounterPipeline& pipeline, const FsRoot& fs,
                                           const CounterWindowSpec& spec) {
  CounterPipeline::Bound bound = pipeline.bind(fs);
  auto first = read_selected_snapshot(fs, bound.options);
  if (!first) return first.error();
  CounterReading reading;
  reading.stats_source = pipeline.describe_stats(fs);
  reading.link_source = pipeline.describe_link(fs);
  std::optional<Snapshot> second;
  std::optional<double> window_s;
  if (spec.interval_s > 0 && spec.after) {
    second = pipeline.snapshot(*spec.after);
    window_s = spec.interval_s;
  } else if (spec.interval_s > 0) {
    if (spec.wait) spec.wait(spec.interval_s, *first);
    second = read_counter_snapshot(fs, bound.options);
    window_s = second->monotonic_s - first->monotonic_s;
  }
  reading.observation = observe_counters(std::move(*first), second ? &*second : nullptr, window_s);
  return reading;
}

}  // namespace fabdiag
