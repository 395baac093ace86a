// `fabdiag counters --from FILE...` and `fabdiag import ethtool-s|ethtool-m|perfquery|
// ibqueryerrors|rdma-statistic|syslog FILE`: saved tool outputs into the counter model.
#include <cmath>
#include <cstdio>

#include "cmd/counters_input.h"
#include "cmd/input.h"
#include "core/exit_codes.h"
#include "probes/import_counters.h"

namespace fabdiag::cmd {
namespace {

std::string db(const std::optional<double>& v) {
  if (!v) return "-";
  if (std::isinf(*v)) return *v < 0 ? "-inf" : "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f", *v);
  return buf;
}

std::string dbm(const std::optional<double>& v) {
  if (!v) return "-";
  if (std::isinf(*v)) return "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", *v);
  return buf;
}

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
  for (const auto& m : c.input.modules)
    if (wanted(o.devices, m.device, nullptr)) in.modules.push_back(m);
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

Section optics_section(const std::vector<ModuleDiagnostics>& modules) {
  Section s;
  s.title = "optics";
  Table t;
  t.columns = {"MODULE", "LANE", "SIDE", "dBm", "mW", "LOW WARN", "HIGH WARN", "ABOVE LOW", "BELOW HIGH"};
  t.align = {Align::kLeft, Align::kRight, Align::kLeft, Align::kRight, Align::kRight,
             Align::kRight, Align::kRight, Align::kRight, Align::kRight};
  for (const auto& m : modules) {
    auto margins = power_margins(m);
    for (const auto& pm : margins) {
      const auto& lanes = pm.direction == "tx" ? m.tx_power : m.rx_power;
      const auto& lim = pm.direction == "tx" ? m.tx_power_limits : m.rx_power_limits;
      std::string mw = "-";
      for (const auto& lp : lanes)
        if (lp.lane == pm.lane && lp.power.mw) {
          char buf[32];
          std::snprintf(buf, sizeof buf, "%.4f", *lp.power.mw);
          mw = buf;
        }
      t.rows.push_back({m.device, pm.lane ? std::to_string(pm.lane) : "-",
                        pm.direction == "tx" ? "TX" : "RX", dbm(pm.value_dbm), mw,
                        dbm(lim.low_warning.as_dbm()), dbm(lim.high_warning.as_dbm()),
                        db(pm.above_low_warning_db), db(pm.below_high_warning_db)});
    }
    if (m.temperature_c) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%s: module temperature %.2f C", m.device.c_str(), *m.temperature_c);
      s.lines.push_back(std::string("  ") + buf);
    }
  }
  t.notes.push_back("Margins in dB to the module's own warning thresholds (positive = inside); "
                    "both sides in dBm, never dBm against mW.");
  s.tables.push_back(t);
  return s;
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
