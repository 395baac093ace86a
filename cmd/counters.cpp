// `fabdiag counters`: snapshot, or deltas and rates over --interval, of RDMA port counters,
// hw_counters, netdev and ethtool statistics; read by collect/ (or import/ with --from),
// interpreted by rules/, rendered here.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <thread>
#include <utility>

#include "cmd/commands.h"
#include "cmd/counters_input.h"
#include "cmd/counters_views.h"
#include "cmd/result_pieces.h"
#include "collect/counter_pipeline.h"
#include "collect/counter_window.h"
#include "metrics/counter_metrics.h"
#include "core/allocator.h"
#include "core/atomic_file.h"
#include "core/clock.h"
#include "core/exit_codes.h"
#include "core/repeats.h"
#include "probes/counters/counter_delta.h"
#include "rules/counter_interpret.h"
#include "rules/counter_rules.h"
#include "probes/counters/sysfs_counters.h"
#include "report/humanize.h"
#include "report/prometheus.h"
#include "report/render.h"

namespace fabdiag::cmd {
namespace {

CounterSources counter_sources(const CountersOptions& o) {
  CounterSources sources;
  sources.ethtool = !o.no_ethtool;
  sources.module_eeprom = !o.watch;  // module I2C reads are slow; optics do not move per second
  sources.devices = o.devices;
  return sources;
}

// --watch: the first snapshot, checked against --device, then the refreshing view.
int watch_counters(const GlobalOptions& g, const CountersOptions& o, const FsRoot& fs,
                   const CounterPipeline& pipeline, std::optional<CounterCategory> only) {
  CounterPipeline::Bound bound = pipeline.bind(fs);
  auto first = read_selected_snapshot(fs, bound.options);
  if (!first) {
    print_error(first.error().to_string());
    return kExitUsage;
  }
  return run_counters_watch(g, o, fs, bound.options, only, std::move(*first));
}

// The live host or fixture tree (and --after-sysfs-root) into `in`; the exit code when it
// cannot be read or when --watch ran instead.
std::optional<int> read_sysfs_input(const GlobalOptions& g, const CountersOptions& o,
                                    std::optional<CounterCategory> only, CountersInput& in) {
  auto fs = make_fs_root(g);
  if (!fs) {
    print_error(fs.error().to_string() + " (check --sysfs-root / --procfs-root)");
    return kExitUsage;
  }
  std::optional<FsRoot> after;
  if (!o.after_sysfs_root.empty()) {
    after.emplace(o.after_sysfs_root, g.procfs_root);
    if (auto st = after->validate(); !st) {
      print_error(st.error().to_string() + " (--after-sysfs-root)");
      return kExitUsage;
    }
  }
  CounterPipeline pipeline(counter_sources(o));
  if (o.watch) return watch_counters(g, o, *fs, pipeline, only);

  CounterWindowSpec spec;
  spec.interval_s = o.interval_s;
  spec.after = after ? &*after : nullptr;
  spec.wait = [progress = stderr_progress(g), &pipeline, &o](double interval_s, const Snapshot& first) {
    if (o.during_window) o.during_window();
    progress("first snapshot: " + std::to_string(first.samples.size()) + " counters on " +
             std::to_string(first.ports.size()) + " devices; waiting " + format_sig(interval_s, 4) +
             " s for the second");
    wait_with_heartbeat(pipeline.clock(), interval_s,
                        [&](double left_s) { progress(format_sig(left_s, 3) + " s left"); });
  };
  auto reading = read_counter_window(pipeline, *fs, spec);
  if (!reading) {
    print_error(reading.error().to_string());
    return kExitUsage;
  }
  static_cast<CounterObservation&>(in) = std::move(reading->observation);
  in.ethtool_desc = std::move(reading->stats_source);
  in.link_desc = std::move(reading->link_source);
  return std::nullopt;
}

// --interval, --after-sysfs-root, --from, --only, --prometheus-all: the exit code when they do
// not go together; `only` gets the parsed category.
std::optional<int> check_window_flags(const GlobalOptions& g, const CountersOptions& o,
                                      std::optional<CounterCategory>& only) {
  if (o.interval_s < 0 || (!o.after_sysfs_root.empty() && o.interval_s <= 0)) {
    print_error("--after-sysfs-root needs --interval SECONDS (> 0) as the window between the trees");
    return kExitUsage;
  }
  if (!o.from.empty() && !o.after_sysfs_root.empty()) {
    print_error("--from reads saved tool outputs; it cannot be combined with --after-sysfs-root");
    return kExitUsage;
  }
  if (!o.only.empty()) {
    only = parse_counter_category(o.only);
    if (!only) {
      print_error("--only: unknown category \"" + o.only + "\"");
      return kExitUsage;
    }
  }
  if (o.prometheus_all && g.format != "prometheus") {
    print_error("--prometheus-all only applies to --format prometheus");
    return kExitUsage;
  }
  return std::nullopt;
}

// --watch with flags it cannot take: the exit code.
std::optional<int> check_watch_flags(const GlobalOptions& g, const CountersOptions& o) {
  if (!o.watch) return std::nullopt;
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
  return std::nullopt;
}

// The counters a run lists: the category filter, then moving / non-zero ones unless --all,
// grouped by device in first-seen order.
struct ShownCounters {
  std::map<std::string, std::vector<const CounterChange*>> by_device;
  std::vector<std::string> device_order;
  size_t shown = 0;
  size_t hidden = 0;
  std::vector<const CounterChange*> in_order;  ///< The shown counters in the input's order.
};

ShownCounters select_shown(const std::vector<CounterChange>& changes, std::optional<CounterCategory> only,
                           bool all) {
  ShownCounters s;
  s.in_order.reserve(changes.size());
  // A device's counters come one after another: its list is looked up once per run of them.
  std::vector<const CounterChange*>* list = nullptr;
  const std::string* list_device = nullptr;
  for (const auto& ch : changes) {
    if (only && ch.counter.category != *only) continue;
    if (!all && !is_interesting(ch)) {
      ++s.hidden;
      continue;
    }
    ++s.shown;
    s.in_order.push_back(&ch);
    if (!list || *list_device != ch.counter.device) {
      auto [it, added] = s.by_device.try_emplace(ch.counter.device);
      if (added) s.device_order.push_back(ch.counter.device);
      list = &it->second;
      list_device = &it->first;
    }
    list->push_back(&ch);
  }
  return s;
}

// Everything the envelope and the document of one run are made of.
struct CountersRun {
  const GlobalOptions& g;
  const CountersOptions& o;
  std::optional<CounterCategory> only;
  const CountersInput& in;
  CounterInterpretation interp;
  ShownCounters shown;
  bool deltas = false;  ///< Deltas (a window, or changes between snapshots), not one snapshot.
  nlohmann::json unavailable = nlohmann::json::array();  ///< Gaps that are not failures.
};

void add_counters_params(Envelope& env, const CountersRun& r) {
  const CountersOptions& o = r.o;
  if (r.in.imported) {
    env.hosts.clear();  // the data comes from the saved files, not from this host
    env.params["from"] = o.from;
    env.params["from_format"] = o.from_format.empty() ? "auto" : o.from_format;
    if (!o.netdev.empty()) env.params["netdev"] = o.netdev;
  } else {
    env.params["sysfs_root"] = r.g.sysfs_root;
    if (!o.after_sysfs_root.empty()) env.params["after_sysfs_root"] = o.after_sysfs_root;
  }
  env.params["interval_s"] = o.interval_s > 0 ? nlohmann::json(o.interval_s) : nlohmann::json(nullptr);
  env.params["only"] = o.only;
  env.params["all"] = o.all;
  env.params["devices"] = o.devices;
  if (!r.in.imported) {
    env.params["ethtool_source"] = r.in.ethtool_desc;
    env.params["link_source"] = r.in.link_desc;
  }
}

// The envelope of a run. `with_data`: the JSON document's params and data (the counter list is
// most of a run's work: table, Markdown and Prometheus output never read it, so they skip it).
// `counters_tree` false: data without the counter list, which --format json streams instead
// (counters_array(): its tree would cost more than the rest of the run).
Envelope counters_envelope(const CountersRun& r, bool with_data, bool counters_tree = true) {
  const CountersInput& in = r.in;
  Envelope env = make_envelope("fabdiag.counters/1");
  env.findings = r.interp.findings;
  for (const auto& e : in.gaps)
    if (is_failure(e)) env.errors.push_back(e);
  if (in.imported) {  // a saved output may be huge: repeats summarised (core/repeats.h)
    cap_findings(env.findings, r.o.max_findings);
    cap_errors(env.errors, r.o.max_findings);
  }
  if (!with_data) return env;
  add_counters_params(env, r);
  if (counters_tree) {
    nlohmann::json shown = nlohmann::json::array();
    for (const CounterChange* ch : r.shown.in_order) shown.push_back(*ch);
    env.data["counters"] = std::move(shown);
  }
  env.data["window_s"] = in.window_s ? nlohmann::json(*in.window_s) : nlohmann::json(nullptr);
  env.data["ports"] = in.ports;
  env.data["hidden_counters"] = r.shown.hidden;
  env.data["unknown_counters"] = {{"count", r.interp.unknown_counters}, {"names", r.interp.unknown_names}};
  env.data["links"] = in.links;
  env.data["optics"] = in.optics;
  env.data["unavailable"] = r.unavailable;
  nlohmann::json summaries = nlohmann::json::array();
  for (const auto& ps : r.interp.summaries)
    summaries.push_back({{"subject", ps.subject},
                         {"worst", to_string(ps.worst)},
                         {"healthy", ps.healthy},
                         {"line", ps.line}});
  env.data["summaries"] = summaries;
  if (in.imported) {
    env.data["imports"] = in.imports;
    env.data["notes"] = in.notes;
  }
  return env;
}

// data.counters of the JSON document: the shown counters, written one by one (about 450 bytes
// each, pretty-printed).
StreamedArray counters_array(const CountersRun& r) {
  return {"counters", [&r](JsonWriter& w, const std::function<void()>& written) {
            for (const CounterChange* ch : r.shown.in_order) {
              write_json(w, *ch);
              written();
            }
          }};
}

// --format prometheus: the node_exporter textfile, to --output (atomically) or stdout.
int write_counter_metrics(const CountersRun& r, const Envelope& env) {
  CountersMetricsInput metrics{r.in.ports, r.in.changes, r.in.links, r.in.optics, env.findings,
                               env.errors.size(), r.only, r.o.prometheus_all};
  auto text = render_prometheus(counters_metric_families(metrics));
  if (!text) {
    print_error(text.error().to_string());
    return kExitInternal;
  }
  // -o: atomic, regular files only (2 for a bad path, 4 for an I/O error); stdout: every write checked.
  if (int rc = write_result_text(r.g, *text); rc != kExitOk) return rc;
  return exit_code_for(env);
}

std::string document_title(const CountersRun& r) {
  std::string what = r.in.imported ? "fabdiag counters (imported)" : "fabdiag counters";
  if (r.in.window_s) return what + ": deltas over " + format_sig(*r.in.window_s, 4) + " s";
  if (r.deltas) return what + ": deltas between the snapshots (time between them unknown: no rates)";
  return what + ": one snapshot (cumulative since the last reset; no rates)";
}

Section summary_section(const CountersRun& r) {
  const CountersOptions& o = r.o;
  Section summary;
  summary.title = "summary";
  summary.fields.emplace_back("read", std::to_string(r.in.changes.size()) + " counters on " +
                                          std::to_string(r.in.ports.size()) + " devices");
  summary.fields.emplace_back(
      "shown", std::to_string(r.shown.shown) + (o.all ? "" : ", " + std::to_string(r.shown.hidden) +
                                                                 (r.deltas ? " unmoved" : " zero") +
                                                                 " hidden (--all shows them)"));
  if (r.only) summary.fields.emplace_back("category", o.only);
  if (r.interp.unknown_counters > 0)
    summary.fields.emplace_back("unknown", std::to_string(r.interp.unknown_counters) +
                                               " counters not in the knowledge base (category "
                                               "\"unknown\": listed, never judged)");
  if (r.in.imported) {
    for (const auto& f : o.from) summary.fields.emplace_back("from", f);
  } else {
    summary.fields.emplace_back("ethtool", r.in.ethtool_desc);
    summary.fields.emplace_back("links", r.in.link_desc);
  }
  if (r.deltas)
    summary.lines.push_back("DELTA: \">=\" saturated counter (at least), \"(wrap)\" 32-bit wrap, "
                            "\"new\"/\"gone\" counter appeared/vanished, \"reset\" went down, "
                            "\"unknown\" missing from a cut capture.");
  for (const auto& n : r.in.notes) summary.lines.push_back("note: " + n);
  return summary;
}

// What is happening, one line per port (and per optical module).
std::optional<Section> status_section(const CounterInterpretation& interp) {
  if (interp.summaries.empty()) return std::nullopt;
  Section st;
  st.title = "status";
  for (const auto& ps : interp.summaries)
    st.lines.push_back(std::string("  ") + (ps.healthy ? "ok    " : "PROBLEM ") + ps.line);
  return st;
}

// RDMA ports: one line each, with what makes their counters meaningful.
std::optional<Section> rdma_ports_section(const std::vector<PortInfo>& ports) {
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
  if (pt.rows.empty()) return std::nullopt;
  Section port_section;
  port_section.title = "rdma ports";
  port_section.tables.push_back(pt);
  return port_section;
}

// The title of a device's counter table: the RDMA port's netdev, or a netdev's attributes.
std::string device_table_title(const std::string& device, const PortInfo* p) {
  std::string title = device;
  if (p && p->is_rdma && !p->netdev.empty()) title += " (netdev " + p->netdev + ")";
  if (p && !p->is_rdma) {
    std::string attrs = p->state;
    if (!p->link_layer.empty()) attrs += ", " + p->link_layer;
    if (!p->rate.empty()) attrs += ", " + p->rate;
    if (!p->driver.empty()) attrs += ", " + p->driver;
    if (!attrs.empty()) title += " (" + attrs + ")";
  }
  return title;
}

// One device's shown counters: values, or deltas and rates when any of them moved between
// snapshots. In the terminal table the rows are indented under the device title.
Table device_table(const std::string& title, const std::vector<const CounterChange*>& changes,
                   const std::string& indent) {
  Table t;
  t.title = title;
  bool device_deltas = std::any_of(changes.begin(), changes.end(), [](const CounterChange* c) {
    return c->status != DeltaStatus::kSnapshot;
  });
  if (device_deltas) {
    t.columns = {indent + "COUNTER", "SRC", "CATEGORY", "DELTA", "RATE"};
    t.align = {Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight, Align::kRight};
  } else {
    t.columns = {indent + "COUNTER", "SRC", "CATEGORY", "VALUE"};
    t.align = {Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight};
  }
  t.rows.reserve(changes.size());
  for (const CounterChange* ch : changes) {
    std::vector<std::string> row;  // built in place: an initializer list would copy each cell again
    row.reserve(device_deltas ? 5 : 4);
    row.emplace_back(indent).append(ch->counter.name);
    row.emplace_back(counter_short_group(ch->counter.group));
    row.emplace_back(to_string(ch->counter.category));
    if (device_deltas) {
      row.push_back(ch->status == DeltaStatus::kSnapshot ? fmt_counter_value(*ch) + " (total)"
                                                         : fmt_counter_delta(*ch));
      row.push_back(fmt_counter_rate(*ch));
    } else {
      row.push_back(fmt_counter_value(*ch));
    }
    t.rows.push_back(std::move(row));
  }
  if (!indent.empty()) t.notes.push_back("");  // blank line between device tables
  return t;
}

// Counters, one table per device (ports first, then device-level hw_counters and netdevs).
Section counters_section(const CountersRun& r, const std::string& indent) {
  Section cs;
  cs.title = "counters";
  std::vector<std::string> quiet;
  std::set<std::string> done;
  auto add_device = [&](const std::string& device, const PortInfo* p) {
    done.insert(device);
    auto it = r.shown.by_device.find(device);
    if (it == r.shown.by_device.end()) {
      if (p && p->is_rdma) quiet.push_back(device);
      return;
    }
    cs.tables.push_back(device_table(device_table_title(device, p), it->second, indent));
  };
  for (const auto& p : r.in.ports) add_device(p.device, &p);
  for (const auto& d : r.shown.device_order)
    if (!done.count(d)) add_device(d, nullptr);
  if (!cs.tables.empty()) cs.tables.back().notes.clear();  // the section adds its own blank line
  if (!quiet.empty()) {
    std::string list;
    for (const auto& d : quiet) list += (list.empty() ? "" : ", ") + d;
    cs.lines.push_back((r.deltas ? "No counter moved on: " : "All counters zero on: ") + list);
  }
  if (cs.tables.empty() && cs.lines.empty())
    cs.lines.push_back(r.in.changes.empty() ? "No counters in the input."
                       : r.deltas           ? "No counter moved."
                                            : "All counters are zero.");
  return cs;
}

// Sources a driver does not support: counted, listed with -v.
std::optional<Section> unavailable_section(const CountersRun& r) {
  if (r.unavailable.empty()) return std::nullopt;
  Section s;
  s.title = "not available";
  s.lines.push_back("  " + std::to_string(r.unavailable.size()) +
                    " source(s) unsupported or absent on these devices (normal; not an error)" +
                    (r.g.verbose ? ":" : "; -v lists them"));
  if (r.g.verbose)
    for (const auto& e : r.in.gaps)
      if (!is_failure(e)) s.lines.push_back("  " + e.to_string());
  return s;
}

Document counters_document(const CountersRun& r) {
  const std::string indent = resolve_format(r.g) == Format::kTable ? "  " : "";
  Document doc;
  doc.title = document_title(r);
  doc.sections.push_back(summary_section(r));
  if (auto s = status_section(r.interp)) doc.sections.push_back(*s);
  if (auto s = rdma_ports_section(r.in.ports)) doc.sections.push_back(*s);
  if (auto s = links_section(r.in.links)) doc.sections.push_back(*s);
  if (auto s = optics_section(r.in.optics, indent)) doc.sections.push_back(*s);
  doc.sections.push_back(counters_section(r, indent));
  if (auto s = unavailable_section(r)) doc.sections.push_back(*s);
  return doc;
}

}  // namespace

namespace {

// Reads and interprets what `o` names; the exit code when it cannot (the error printed).
std::optional<int> read_and_interpret(const GlobalOptions& g, const CountersOptions& o,
                                      std::optional<CounterCategory>& only, CountersInput& in,
                                      std::optional<CountersRun>& run) {
  if (auto rc = check_window_flags(g, o, only)) return *rc;
  if (auto rc = check_watch_flags(g, o)) return *rc;
  auto stop = o.from.empty() ? read_sysfs_input(g, o, only, in) : read_counters_from_files(o, in);
  if (stop) return *stop;
  run.emplace(CountersRun{g, o, only, in, interpret_observation(in), select_shown(in.changes, only, o.all)});
  run->deltas = in.window_s.has_value() ||
                std::any_of(in.changes.begin(), in.changes.end(),
                            [](const CounterChange& c) { return c.status != DeltaStatus::kSnapshot; });
  for (const auto& e : in.gaps)
    if (!is_failure(e)) run->unavailable.push_back(e);
  return std::nullopt;
}

}  // namespace

int run_counters(const GlobalOptions& g, const CountersOptions& o) {
  auto started = std::chrono::steady_clock::now();
  keep_freed_memory_for_reuse();  // the snapshot's vectors regrow: reuse, not fresh pages
  std::optional<CounterCategory> only;
  CountersInput in;
  std::optional<CountersRun> run;
  if (auto rc = read_and_interpret(g, o, only, in, run)) return *rc;
  const bool json = g.format != "prometheus" && resolve_format(g) == Format::kJson;
  Envelope env = counters_envelope(*run, json, /*counters_tree=*/false);  // streamed below
  finish_envelope(env, started);
  if (g.format == "prometheus") return write_counter_metrics(*run, env);
  if (json) {  // in pieces: the 3 MB of an 8-NIC node's counters are never one string (page faults, copies)
    const auto arrays = std::vector<StreamedArray>{counters_array(*run)};
    int rc = write_result_pieces(g, [&](const TextDrain& drain) { render_json_to(env, arrays, drain); });
    if (rc != kExitOk) return rc;
    return exit_code_for(env);
  }
  return emit(g, env, counters_document(*run));
}

std::optional<int> counters_output(const GlobalOptions& g, const CountersOptions& o, ImportOutput& out) {
  auto started = std::chrono::steady_clock::now();
  std::optional<CounterCategory> only;
  CountersInput in;
  std::optional<CountersRun> run;
  if (auto rc = read_and_interpret(g, o, only, in, run)) return *rc;
  out.env = counters_envelope(*run, true);
  finish_envelope(out.env, started);
  out.doc = counters_document(*run);
  return std::nullopt;
}

}  // namespace fabdiag::cmd
