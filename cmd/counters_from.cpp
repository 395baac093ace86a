// `fabdiag counters --from FILE...` and `fabdiag import ethtool-s|ethtool-m|perfquery|
// ibqueryerrors|rdma-statistic|syslog FILE`: saved tool outputs into the counter model.
#include "cmd/counters_input.h"
#include "cmd/input.h"
#include "core/exit_codes.h"
#include "import/counter_formats.h"

namespace fabdiag::cmd {
namespace {

bool wanted(const std::vector<std::string>& devices, const std::string& d, const PortInfo* p) {
  if (devices.empty()) return true;
  for (const auto& w : devices)
    if (w == d || (p && ((!p->ibdev.empty() && w == p->ibdev) || (!p->netdev.empty() && w == p->netdev))))
      return true;
  return false;
}

}  // namespace

std::optional<int> read_counters_from_files(const CountersOptions& o, CountersInput& in) {
  std::optional<CounterImportFormat> forced;
  if (!o.from_format.empty() && o.from_format != "auto") {
    forced = parse_counter_import_format(o.from_format);
    if (!forced) {
      print_error("--from-format: unknown format \"" + o.from_format + "\"");
      return kExitUsage;
    }
  }
  std::vector<CounterImport> imports;
  for (const auto& file : o.from) {
    auto text = read_input(file);
    if (!text) return fail_input(text.error());
    auto format = forced ? forced : detect_counter_import_format(*text);
    if (!format) {
      print_error(file + ": cannot tell which tool wrote this (give --from-format: ethtool-s, "
                  "ethtool-m, perfquery, ibqueryerrors, rdma-statistic or syslog)");
      return kExitUsage;
    }
    auto imp = import_counters(*format, *text, file, o.netdev);
    if (!imp) return fail_input(imp.error().with_context("importing " + std::string(to_string(*format))));
    size_t snaps = 0;
    for (const auto& s : imp->series) snaps += s.size();
    in.imports.push_back({{"file", file},
                          {"format", to_string(*format)},
                          {"snapshots", snaps},
                          {"facts", imp->facts}});
    imports.push_back(std::move(*imp));
  }
  std::optional<double> window;
  if (o.interval_s > 0) window = o.interval_s;
  CombinedImport c = combine_imports(imports, window);
  in.imported = true;
  in.window_s = c.input.window_s;
  in.gaps = c.gaps;
  in.notes = c.notes;
  if (o.interval_s > 0 && !c.has_deltas)
    in.notes.push_back("--interval is ignored: no input holds two snapshots of the same counters");
  for (const auto& p : c.input.ports)
    if (wanted(o.devices, p.device, &p)) in.ports.push_back(p);
  for (auto& ch : c.input.changes) {
    const PortInfo* p = nullptr;
    for (const auto& q : c.input.ports)
      if (q.device == ch.counter.device) p = &q;
    if (wanted(o.devices, ch.counter.device, p)) in.changes.push_back(std::move(ch));
  }
  for (const auto& m : c.input.optics)
    if (wanted(o.devices, m.netdev, nullptr)) in.optics.push_back(m);
  for (const auto& d : o.devices) {
    bool found = false;
    for (const auto& p : c.input.ports) found = found || wanted({d}, p.device, &p);
    if (!found) {
      print_error("no device named \"" + d + "\" in the imported files");
      return kExitUsage;
    }
  }
  return std::nullopt;
}

int run_import_counters(const GlobalOptions& g, const ImportCountersOptions& o) {
  CountersOptions c;
  c.from = {o.file};
  c.from_format = o.format;
  c.netdev = o.netdev;
  c.interval_s = o.interval_s;
  c.all = o.all;
  return run_counters(g, c);
}

}  // namespace fabdiag::cmd
