// `fabdiag counters --from FILE...` and `fabdiag import ethtool-s|ethtool-m|ethtool-fec|perfquery|
// ibqueryerrors|rdma-statistic|syslog FILE`: the flags of saved tool outputs, read by
// import/counter_files.h into the counter model.
#include "cmd/counters_input.h"
#include "cmd/input.h"
#include "core/exit_codes.h"
#include "import/counter_files.h"

namespace fabdiag::cmd {

std::optional<int> read_counters_from_files(const CountersOptions& o, CountersInput& in) {
  CounterFilesSpec spec;
  if (!o.from_format.empty() && o.from_format != "auto") {
    spec.format = parse_counter_import_format(o.from_format);
    if (!spec.format) {
      print_error("--from-format: unknown format \"" + o.from_format + "\"");
      return kExitUsage;
    }
  }
  spec.files = o.from;
  spec.netdev = o.netdev;
  spec.interval_s = o.interval_s;
  spec.devices = o.devices;
  spec.limits.max_listed = o.max_findings;
  auto imported = import_counter_files(spec, open_input_lines);
  if (!imported) return fail_input(imported.error());
  in.imported = true;
  in.ports = std::move(imported->input.ports);
  in.changes = std::move(imported->input.changes);
  in.window_s = imported->input.window_s;
  in.optics = std::move(imported->input.optics);
  in.gaps = std::move(imported->gaps);
  in.notes = std::move(imported->notes);
  in.imports = std::move(imported->files);
  return std::nullopt;
}

int run_import_counters(const GlobalOptions& g, const ImportCountersOptions& o) {
  CountersOptions c;
  c.from = {o.file};
  c.from_format = o.format;
  c.netdev = o.netdev;
  c.interval_s = o.interval_s;
  c.all = o.all;
  c.max_findings = o.max_findings;
  return run_counters(g, c);
}

}  // namespace fabdiag::cmd
