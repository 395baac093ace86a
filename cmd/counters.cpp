// `fabdiag counters`: snapshot, or deltas and rates over --interval, of RDMA port counters,
// hw_counters, netdev and ethtool statistics; classified and interpreted by probes/.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>

#include "cmd/commands.h"
#include "cmd/counters_input.h"
#include "cmd/counters_views.h"
#include "collect/counter_pipeline.h"
#include "metrics/counter_metrics.h"
#include "core/atomic_file.h"
#include "core/exit_codes.h"
#include "probes/counters/counter_delta.h"
#include "rules/counter_interpret.h"
#include "rules/counter_rules.h"
#include "probes/counters/sysfs_counters.h"
#include "report/humanize.h"
#include "report/prometheus.h"

namespace fabdiag::cmd {
namespace {

bool device_matches(const PortInfo& p, const std::string& d) {
  return d == p.device || (!p.ibdev.empty() && d == p.ibdev) || (!p.netdev.empty() && d == p.netdev);
}

std::optional<int> read_sysfs_input(const GlobalOptions& g, const CountersOptions& o,
                                    std::optional<CounterCategory> only, CountersInput& in) {
  auto fs = make_fs_root(g);
  if (!fs) {
    print_error(fs.error().to_string() + " (check --sysfs-root / --procfs-root)");
    return kExitUsage;
  }
  Progress progress = stderr_progress(g);
  CounterSources sources;
  sources.ethtool = !o.no_ethtool;
  sources.module_eeprom = !o.watch;  // module I2C reads are slow; optics do not move per second
  sources.devices = o.devices;
  CounterPipeline pipeline(sources);
  CounterPipeline::Bound bound = pipeline.bind(*fs);

  Snapshot first = read_counter_snapshot(*fs, bound.options);
  for (const auto& d : o.devices) {
    bool found = std::any_of(first.ports.begin(), first.ports.end(),
                             [&](const PortInfo& p) { return device_matches(p, d); });
    if (!found) {
      print_error("no RDMA port or netdev named \"" + d + "\" under " + fs->sys_path("class") +
                  " (give an ibdev such as mlx5_0, a port such as mlx5_0/1, or a netdev)");
      return kExitUsage;
    }
  }

  if (o.watch) return run_counters_watch(g, o, *fs, bound.options, only, std::move(first));

  std::optional<Snapshot> second;
  in.ethtool_desc = pipeline.describe_stats(*fs);
  in.link_desc = pipeline.describe_link(*fs);
  if (o.interval_s > 0) {
    if (!o.after_sysfs_root.empty()) {
      FsRoot fs2(o.after_sysfs_root, g.procfs_root);
      if (auto st = fs2.validate(); !st) {
        print_error(st.error().to_string() + " (--after-sysfs-root)");
        return kExitUsage;
      }
      second = pipeline.snapshot(fs2);
      in.window_s = o.interval_s;
    } else {
      progress("first snapshot: " + std::to_string(first.samples.size()) + " counters on " +
               std::to_string(first.ports.size()) + " devices; waiting " +
               format_sig(o.interval_s, 4) + " s for the second");
      wait_with_heartbeat(pipeline.clock(), o.interval_s,
                          [&](double left_s) { progress(format_sig(left_s, 3) + " s left"); });
      second = read_counter_snapshot(*fs, bound.options);
      in.window_s = second->monotonic_s - first.monotonic_s;
    }
  }
  static_cast<CounterObservation&>(in) = observe_counters(first, second ? &*second : nullptr, in.window_s);
  return std::nullopt;
}

}  // namespace

int run_counters(const GlobalOptions& g, const CountersOptions& o) {
  auto started = std::chrono::steady_clock::now();
  if (o.interval_s < 0 || (!o.after_sysfs_root.empty() && o.interval_s <= 0)) {
    print_error("--after-sysfs-root needs --interval SECONDS (> 0) as the window between the trees");
    return kExitUsage;
  }
  if (!o.from.empty() && !o.after_sysfs_root.empty()) {
    print_error("--from reads saved tool outputs; it cannot be combined with --after-sysfs-root");
    return kExitUsage;
  }
  std::optional<CounterCategory> only;
  if (!o.only.empty()) {
    only = parse_counter_category(o.only);
    if (!only) {
      print_error("--only: unknown category \"" + o.only + "\"");
      return kExitUsage;
    }
  }
  const bool prometheus = g.format == "prometheus";
  if (o.prometheus_all && !prometheus) {
    print_error("--prometheus-all only applies to --format prometheus");
    return kExitUsage;
  }
  if (o.watch) {
    if (!o.after_sysfs_root.empty() || !o.from.empty()) {
      print_error(std::string("--watch reads the counters again every interval; it cannot take ") +
                  (o.from.empty() ? "--after-sysfs-root" : "--from (saved outputs do not move)"));
      return kExitUsage;
    }
    if (!g.format.empty() && g.format != "table") {
      print_error("--watch draws a view for people; --format " + g.format +
                  " is not available with it (use --interval for one " + g.format + " result)");
      return kExitUsage;
    }
    if (!g.output.empty()) {
      print_error("--watch writes to the terminal; --output is not available with it");
      return kExitUsage;
    }
  }

  CountersInput in;
  auto stop = o.from.empty() ? read_sysfs_input(g, o, only, in) : read_counters_from_files(o, in);
  if (stop) return *stop;
  const std::vector<PortInfo>& ports = in.ports;
  const std::vector<CounterChange>& changes = in.changes;
  const std::optional<double>& window_s = in.window_s;
  const std::vector<Error>& gaps = in.gaps;
  const std::string& ethtool_desc = in.ethtool_desc;

  Envelope env = make_envelope("fabdiag.counters/1");
  if (in.imported) {
    env.hosts.clear();  // the data comes from the saved files, not from this host
    env.params["from"] = o.from;
    env.params["from_format"] = o.from_format.empty() ? "auto" : o.from_format;
    if (!o.netdev.empty()) env.params["netdev"] = o.netdev;
  } else {
    env.params["sysfs_root"] = g.sysfs_root;
    if (!o.after_sysfs_root.empty()) env.params["after_sysfs_root"] = o.after_sysfs_root;
  }
  env.params["interval_s"] = o.interval_s > 0 ? nlohmann::json(o.interval_s) : nlohmann::json(nullptr);
  env.params["only"] = o.only;
  env.params["all"] = o.all;
  env.params["devices"] = o.devices;
  if (!in.imported) {
    env.params["ethtool_source"] = ethtool_desc;
    env.params["link_source"] = in.link_desc;
  }
  CounterInterpretation interp = interpret_observation(in);
  env.findings = interp.findings;

  // Which counters are shown: category filter, then moving / non-zero unless --all.
  std::map<std::string, std::vector<const CounterChange*>> shown_by_device;
  std::vector<std::string> device_order;
  size_t hidden = 0, shown = 0;
  nlohmann::json counters_json = nlohmann::json::array();
  for (const auto& ch : changes) {
    if (only && ch.counter.category != *only) continue;
    if (!o.all && !is_interesting(ch)) {
      ++hidden;
      continue;
    }
    ++shown;
    counters_json.push_back(ch);
    if (!shown_by_device.count(ch.counter.device)) device_order.push_back(ch.counter.device);
    shown_by_device[ch.counter.device].push_back(&ch);
  }
  nlohmann::json unavailable = nlohmann::json::array();
  for (const auto& e : gaps) {
    if (is_failure(e)) env.errors.push_back(e);
    else unavailable.push_back(e);
  }
  bool deltas = window_s.has_value() ||
                std::any_of(changes.begin(), changes.end(),
                            [](const CounterChange& c) { return c.status != DeltaStatus::kSnapshot; });
  env.data["window_s"] = window_s ? nlohmann::json(*window_s) : nlohmann::json(nullptr);
  env.data["ports"] = ports;
  env.data["counters"] = counters_json;
  env.data["hidden_counters"] = hidden;
  env.data["unknown_counters"] = {{"count", interp.unknown_counters}, {"names", interp.unknown_names}};
  env.data["links"] = in.links;
  env.data["optics"] = in.optics;
  env.data["unavailable"] = unavailable;
  nlohmann::json summaries = nlohmann::json::array();
  for (const auto& ps : interp.summaries)
    summaries.push_back({{"subject", ps.subject},
                         {"worst", to_string(ps.worst)},
                         {"healthy", ps.healthy},
                         {"line", ps.line}});
  env.data["summaries"] = summaries;
  if (in.imported) {
    env.data["imports"] = in.imports;
    env.data["notes"] = in.notes;
  }

  if (prometheus) {
    finish_envelope(env, started);
    CountersMetricsInput metrics{ports, changes, in.links, in.optics, env.findings,
                                 env.errors.size(), only, o.prometheus_all};
    auto text = render_prometheus(counters_metric_families(metrics));
    if (!text) {
      print_error(text.error().to_string());
      return kExitInternal;
    }
    if (!g.output.empty()) {
      if (auto st = write_file_atomic(g.output, *text); !st) {
        print_error("cannot write the metrics: " + st.error().to_string());
        return kExitInternal;
      }
    } else {
      std::fwrite(text->data(), 1, text->size(), stdout);
      std::fflush(stdout);
    }
    return exit_code_for(env);
  }

  Document doc;
  std::string what = in.imported ? "fabdiag counters (imported)" : "fabdiag counters";
  doc.title = window_s ? what + ": deltas over " + format_sig(*window_s, 4) + " s"
              : deltas ? what + ": deltas between the snapshots (time between them unknown: no rates)"
                       : what + ": one snapshot (cumulative since the last reset; no rates)";
  Section summary;
  summary.title = "summary";
  summary.fields.emplace_back("read", std::to_string(changes.size()) + " counters on " +
                                          std::to_string(ports.size()) + " devices");
  summary.fields.emplace_back(
      "shown", std::to_string(shown) + (o.all ? "" : ", " + std::to_string(hidden) +
                                                         (deltas ? " unmoved" : " zero") +
                                                         " hidden (--all shows them)"));
  if (only) summary.fields.emplace_back("category", o.only);
  if (interp.unknown_counters > 0)
    summary.fields.emplace_back("unknown", std::to_string(interp.unknown_counters) +
                                               " counters not in the knowledge base (category "
                                               "\"unknown\": listed, never judged)");
  if (in.imported) {
    for (const auto& f : o.from) summary.fields.emplace_back("from", f);
  } else {
    summary.fields.emplace_back("ethtool", ethtool_desc);
    summary.fields.emplace_back("links", in.link_desc);
  }
  if (deltas)
    summary.lines.push_back("DELTA: \">=\" saturated counter (at least), \"(wrap)\" 32-bit wrap, "
                            "\"new\"/\"gone\" counter appeared/vanished, \"reset\" went down, "
                            "\"unknown\" missing from a cut capture.");
  for (const auto& n : in.notes) summary.lines.push_back("note: " + n);
  doc.sections.push_back(summary);

  // What is happening, one line per port (and per optical module).
  if (!interp.summaries.empty()) {
    Section st;
    st.title = "status";
    for (const auto& ps : interp.summaries)
      st.lines.push_back(std::string("  ") + (ps.healthy ? "ok    " : "PROBLEM ") + ps.line);
    doc.sections.push_back(st);
  }

  // RDMA ports: one line each, with what makes their counters meaningful.
  Section port_section;
  port_section.title = "rdma ports";
  Table pt;
  pt.columns = {"PORT", "NETDEV", "LINK", "STATE", "PHYS_STATE", "RATE"};
  bool nonstandard = false, not_up = false;
  for (const auto& p : ports) {
    if (!p.is_rdma) continue;
    auto st = parse_numbered_state(p.state);
    bool up = st && (st->number == 4 || st->number == 5) && !phys_state_is_down(p.phys_state);
    std::string ps = p.phys_state.empty() ? "?" : p.phys_state;
    if (!p.phys_state.empty() && !phys_state_is_ibta(p.phys_state)) {
      ps += " *";
      nonstandard = true;
    }
    std::string rate = p.rate.empty() ? "?" : p.rate;
    if (!up && !p.rate.empty()) {
      rate += " **";
      not_up = true;
    }
    pt.rows.push_back({p.device, p.netdev.empty() ? "-" : p.netdev,
                       p.link_layer.empty() ? "?" : p.link_layer, p.state.empty() ? "?" : p.state,
                       ps, rate});
  }
  if (nonstandard) pt.notes.push_back("*  not an IBTA phys_state value; ignored (no link judgement from it)");
  if (not_up) pt.notes.push_back("** the port has no link: the rate is not a link speed");
  if (!pt.rows.empty()) {
    port_section.tables.push_back(pt);
    doc.sections.push_back(port_section);
  }
  if (auto s = links_section(in.links)) doc.sections.push_back(*s);
  if (auto s = optics_section(in.optics, resolve_format(g) == Format::kTable ? "  " : ""))
    doc.sections.push_back(*s);

  // Counters, one table per device (ports first, then device-level hw_counters and netdevs).
  // In the terminal table the rows are indented under the device title.
  const std::string indent = resolve_format(g) == Format::kTable ? "  " : "";
  Section cs;
  cs.title = "counters";
  std::vector<std::string> quiet;
  std::set<std::string> done;
  auto add_device = [&](const std::string& device, const PortInfo* p) {
    done.insert(device);
    auto it = shown_by_device.find(device);
    if (it == shown_by_device.end()) {
      if (p && p->is_rdma) quiet.push_back(device);
      return;
    }
    Table t;
    t.title = device;
    if (p && p->is_rdma && !p->netdev.empty()) t.title += " (netdev " + p->netdev + ")";
    if (p && !p->is_rdma) {
      std::string attrs = p->state;
      if (!p->link_layer.empty()) attrs += ", " + p->link_layer;
      if (!p->rate.empty()) attrs += ", " + p->rate;
      if (!p->driver.empty()) attrs += ", " + p->driver;
      if (!attrs.empty()) t.title += " (" + attrs + ")";
    }
    bool device_deltas = std::any_of(it->second.begin(), it->second.end(), [](const CounterChange* c) {
      return c->status != DeltaStatus::kSnapshot;
    });
    if (device_deltas) {
      t.columns = {indent + "COUNTER", "SRC", "CATEGORY", "DELTA", "RATE"};
      t.align = {Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight, Align::kRight};
    } else {
      t.columns = {indent + "COUNTER", "SRC", "CATEGORY", "VALUE"};
      t.align = {Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight};
    }
    for (const CounterChange* ch : it->second) {
      std::vector<std::string> row = {indent + ch->counter.name, counter_short_group(ch->counter.group),
                                      to_string(ch->counter.category)};
      if (device_deltas) {
        row.push_back(ch->status == DeltaStatus::kSnapshot ? fmt_counter_value(*ch) + " (total)"
                                                           : fmt_counter_delta(*ch));
        row.push_back(fmt_counter_rate(*ch));
      } else {
        row.push_back(fmt_counter_value(*ch));
      }
      t.rows.push_back(row);
    }
    if (!indent.empty()) t.notes.push_back("");  // blank line between device tables
    cs.tables.push_back(t);
  };
  for (const auto& p : ports) add_device(p.device, &p);
  for (const auto& d : device_order)
    if (!done.count(d)) add_device(d, nullptr);
  if (!cs.tables.empty()) cs.tables.back().notes.clear();  // the section adds its own blank line
  if (!quiet.empty()) {
    std::string list;
    for (const auto& d : quiet) list += (list.empty() ? "" : ", ") + d;
    cs.lines.push_back((deltas ? "No counter moved on: " : "All counters zero on: ") + list);
  }
  if (cs.tables.empty() && cs.lines.empty())
    cs.lines.push_back(changes.empty() ? "No counters in the input."
                       : deltas        ? "No counter moved."
                                       : "All counters are zero.");
  doc.sections.push_back(cs);

  if (!unavailable.empty()) {
    Section s;
    s.title = "not available";
    s.lines.push_back("  " + std::to_string(unavailable.size()) +
                      " source(s) unsupported or absent on these devices (normal; not an error)" +
                      (g.verbose ? ":" : "; -v lists them"));
    if (g.verbose)
      for (const auto& e : gaps)
        if (!is_failure(e)) s.lines.push_back("  " + e.to_string());
    doc.sections.push_back(s);
  }
  finish_envelope(env, started);
  return emit(g, env, doc);
}

}  // namespace fabdiag::cmd
