#include "import/counter_files.h"

#include "probes/counters/device_filter.h"

namespace fabdiag {
namespace {

constexpr size_t kDetectionLines = 256;  // lines looked at to tell the format

// The port of `device` among `ports` (the last one, as the importers may repeat a device).
const PortInfo* port_of(const std::vector<PortInfo>& ports, const std::string& device) {
  const PortInfo* p = nullptr;
  for (const auto& q : ports)
    if (q.device == device) p = &q;
  return p;
}

// What the selection keeps of the merged input; changes and ports are moved out of `all`.
InterpretInput select_devices(InterpretInput& all, const std::vector<std::string>& devices) {
  InterpretInput kept;
  kept.window_s = all.window_s;
  for (const auto& p : all.ports)
    if (port_selected(devices, p)) kept.ports.push_back(p);
  for (auto& ch : all.changes) {
    const PortInfo* p = port_of(all.ports, ch.counter.device);
    bool picked = p ? port_selected(devices, *p) : device_selected(devices, ch.counter.device);
    if (picked) kept.changes.push_back(std::move(ch));
  }
  for (const auto& m : all.optics)
    if (device_selected(devices, m.netdev)) kept.optics.push_back(m);
  return kept;
}

}  // namespace

Result<ImportedCounters> import_counter_files(const CounterFilesSpec& spec, const InputLineReader& read) {
  ImportedCounters out;
  std::vector<CounterImport> imports;
  for (const auto& file : spec.files) {
    auto opened = read(file);
    if (!opened) return opened.error();
    PeekedLineSource lines(std::move(*opened), kDetectionLines);
    auto format = counter_format_of(spec.format, lines.head(), file);
    if (!format) return format.error();
    auto imp = import_counters(*format, lines, file, spec.netdev, spec.limits);
    if (!imp) return imp.error().with_context("importing " + std::string(to_string(*format)));
    size_t snapshots = 0;
    for (const auto& s : imp->series) snapshots += s.read();
    out.files.push_back({{"file", file}, {"format", to_string(*format)}, {"snapshots", snapshots}, {"facts", imp->facts}});
    imports.push_back(std::move(*imp));
  }
  std::optional<double> window;
  if (spec.interval_s > 0) window = spec.interval_s;
  CombinedImport combined = combine_imports(imports, window);
  out.gaps = std::move(combined.gaps);
  out.notes = std::move(combined.notes);
  if (spec.interval_s > 0 && !combined.has_deltas)
    out.notes.push_back("--interval is ignored: no input holds two snapshots of the same counters");
  if (auto missing = unmatched_selection(spec.devices, combined.input.ports))
    return make_error(ErrorCode::kNotFound, "no device named \"" + *missing + "\" in the imported files");
  out.input = select_devices(combined.input, spec.devices);
  return out;
}

}  // namespace fabdiag
