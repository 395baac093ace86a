// `fabdiag baseline save|diff|show`: flags -> baseline/ library -> envelope + document.
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "baseline/diff.h"
#include "baseline/store.h"
#include "cmd/commands.h"
#include "cmd/input.h"
#include "core/environment.h"
#include "core/exit_codes.h"
#include "core/text.h"
#include "report/humanize.h"

namespace fabdiag::cmd {

namespace {

using baseline::BaselineInfo;
using baseline::BaselineStore;
using baseline::DiffRow;
using baseline::DiffStatus;

// Pair rows beyond this many are shown in the table only when not ok (JSON keeps them all).
constexpr size_t kMaxPairRowsShown = 50;

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100.0);
  return buf;
}

std::string sizes_text(const std::vector<uint64_t>& sizes) {
  if (sizes.empty()) return "-";
  if (sizes.size() == 1) return format_bytes_iec(static_cast<double>(sizes.front()));
  return format_bytes_iec(static_cast<double>(sizes.front())) + ".." +
         format_bytes_iec(static_cast<double>(sizes.back())) + " (" + std::to_string(sizes.size()) + ")";
}

std::string hosts_text(const std::vector<std::string>& hosts) {
  if (hosts.empty()) return "-";
  if (hosts.size() <= 8) return std::to_string(hosts.size()) + " (" + join(hosts) + ")";
  return std::to_string(hosts.size()) + " (" + hosts.front() + " .. " + hosts.back() + ")";
}

nlohmann::json info_json(const BaselineInfo& i) {
  return {{"name", i.name},
          {"path", i.path},
          {"schema", i.schema},
          {"hosts", i.hosts},
          {"started_at", i.started_at},
          {"saved_at", i.saved_at},
          {"source", i.source},
          {"collectives", i.collectives},
          {"sizes_bytes", i.sizes_bytes},
          {"pair_hosts", i.pair_hosts},
          {"pairs_measured", i.pairs_measured}};
}

std::vector<std::pair<std::string, std::string>> info_fields(const BaselineInfo& i) {
  std::vector<std::pair<std::string, std::string>> f = {
      {"name", i.name},
      {"file", i.path},
      {"schema", i.schema},
      {"hosts", hosts_text(i.hosts)},
      {"run started", i.started_at.empty() ? "-" : i.started_at},
      {"saved", i.saved_at.empty() ? "-" : i.saved_at},
      {"saved from", i.source.empty() ? "-" : i.source == "-" ? "standard input" : i.source},
  };
  if (!i.collectives.empty()) {
    f.emplace_back("collectives", join(i.collectives));
    f.emplace_back("sizes", sizes_text(i.sizes_bytes));
  }
  if (i.pair_hosts > 0)
    f.emplace_back("pairwise", std::to_string(i.pair_hosts) + " hosts, " + std::to_string(i.pairs_measured) +
                                   " matrix cells measured");
  return f;
}

std::string status_text(const DiffRow& r) {
  switch (r.status) {
    case DiffStatus::kOk: return "ok";
    case DiffStatus::kImprovement: return "improvement";
    case DiffStatus::kRegression: return std::string("REGRESSION (") + to_string(*r.severity) + ")";
    case DiffStatus::kMissing: return "missing in " + r.missing_in;
  }
  return "?";
}

std::string bw_text(const std::optional<double>& v) { return v ? format_gbytes_per_s(*v) : "-"; }

int run_save(const GlobalOptions& g, const BaselineOptions& o, const std::string& dir) {
  auto content = read_input(o.file);
  if (!content) return fail_input(content.error());
  BaselineStore store(dir);
  std::error_code ec;
  bool existed = baseline::validate_baseline_name(o.name).ok() && std::filesystem::exists(store.path_of(o.name), ec);
  auto info = store.save(o.name, *content, o.file, o.force);
  if (!info) return fail_input(info.error());
  Envelope env = make_envelope("fabdiag.baseline_save/1");
  env.params = {{"store", dir}, {"name", o.name}, {"file", o.file}, {"force", o.force}};
  env.data = info_json(*info);
  env.data["replaced"] = existed;
  Document doc;
  doc.title = "fabdiag baseline save";
  Section s;
  s.title = existed ? "replaced baseline" : "saved baseline";
  s.fields = info_fields(*info);
  doc.sections.push_back(std::move(s));
  return emit(g, env, doc);
}

Table collective_table(const baseline::BaselineDiff& d) {
  Table t;
  t.title = "collectives: busbw per message size";
  t.columns = {"collective", "size", "baseline", "current", "ratio", "status"};
  t.align = {Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kLeft};
  for (const auto& r : d.rows) {
    if (r.kind != DiffRow::Kind::kCollective) continue;
    t.rows.push_back({r.collective, format_bytes_iec(static_cast<double>(r.size_bytes)), bw_text(r.baseline_bytes_per_s),
                      bw_text(r.current_bytes_per_s), r.ratio ? percent(*r.ratio) : "-", status_text(r)});
  }
  return t;
}

Table pair_table(const baseline::BaselineDiff& d) {
  Table t;
  t.title = "pairs: bandwidth per host pair";
  t.columns = {"pair", "baseline", "current", "ratio", "status"};
  t.align = {Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kLeft};
  size_t pairs = 0;
  for (const auto& r : d.rows) pairs += r.kind == DiffRow::Kind::kPair;
  size_t hidden = 0;
  for (const auto& r : d.rows) {
    if (r.kind != DiffRow::Kind::kPair) continue;
    if (pairs > kMaxPairRowsShown && r.status == DiffStatus::kOk) {
      ++hidden;
      continue;
    }
    t.rows.push_back({r.subject(), bw_text(r.baseline_bytes_per_s), bw_text(r.current_bytes_per_s),
                      r.ratio ? percent(*r.ratio) : "-", status_text(r)});
  }
  if (hidden > 0)
    t.notes.push_back(std::to_string(hidden) + " pairs within tolerance not shown (--format json lists all)");
  return t;
}

int run_diff(const GlobalOptions& g, const BaselineOptions& o, const std::string& dir) {
  if (auto st = baseline::validate_tolerance(o.tolerance); !st) return fail_input(st.error());
  BaselineStore store(dir);
  auto base = store.load(o.name);
  if (!base) return fail_input(base.error());
  auto content = read_input(o.file);
  if (!content) return fail_input(content.error());
  auto current = baseline::parse_result_document(*content, o.file);
  if (!current) return fail_input(current.error());
  auto measured = baseline::extract_measurements(*current, o.file);
  if (!measured) return fail_input(measured.error());
  baseline::DiffOptions opts;
  opts.tolerance = o.tolerance;
  opts.baseline_label = o.name;
  opts.current_label = o.file;
  auto d = baseline::diff_measurements(base->measurements, *measured, opts);
  if (!d) return fail_input(d.error());

  Envelope env = make_envelope("fabdiag.baseline_diff/1");
  env.hosts = current->hosts;
  env.params = {{"store", dir}, {"name", o.name}, {"file", o.file}, {"tolerance", o.tolerance}};
  env.data = *d;
  env.findings = d->findings;
  for (const auto& e : base->measurements.gaps) env.errors.push_back(e);
  for (const auto& e : measured->gaps) env.errors.push_back(e);
  for (const auto& e : d->gaps) env.errors.push_back(e);

  Document doc;
  doc.title = "fabdiag baseline diff";
  Section s;
  s.title = "comparison";
  const BaselineInfo& bi = base->info;
  s.fields = {
      {"baseline", bi.path + " (" + bi.schema + ", run " + (bi.started_at.empty() ? "?" : bi.started_at) + ")"},
      {"current", o.file + " (" + current->schema + ", run " + (current->started_at.empty() ? "?" : current->started_at) +
                      ")"},
      {"tolerance", percent(o.tolerance) + ": warn below " + percent(1 - o.tolerance) + " of the baseline, error below " +
                        percent(1 - 2 * o.tolerance)},
      {"compared", std::to_string(d->rows.size() - d->count(DiffStatus::kMissing)) + " values: " +
                       std::to_string(d->count(DiffStatus::kOk)) + " ok, " +
                       std::to_string(d->count(DiffStatus::kRegression)) + " regression, " +
                       std::to_string(d->count(DiffStatus::kImprovement)) + " improvement; " +
                       std::to_string(d->count(DiffStatus::kMissing)) + " on one side only"},
  };
  if (!d->hosts_only_in_baseline.empty()) s.fields.emplace_back("hosts gone", join(d->hosts_only_in_baseline));
  if (!d->hosts_only_in_current.empty()) s.fields.emplace_back("hosts new", join(d->hosts_only_in_current));
  doc.sections.push_back(std::move(s));
  // One section per table, so each gets its own heading and spacing.
  for (Table t : {collective_table(*d), pair_table(*d)}) {
    if (t.rows.empty() && t.notes.empty()) continue;
    Section ts;
    ts.title = t.title;
    t.title.clear();
    ts.tables.push_back(std::move(t));
    doc.sections.push_back(std::move(ts));
  }
  return emit(g, env, doc);
}

int run_show(const GlobalOptions& g, const BaselineOptions& o, const std::string& dir) {
  BaselineStore store(dir);
  Envelope env = make_envelope("fabdiag.baseline_show/1");
  env.params = {{"store", dir}, {"name", o.name}};
  Document doc;
  doc.title = "fabdiag baseline show";
  if (!o.name.empty()) {
    auto b = store.load(o.name);
    if (!b) return fail_input(b.error());
    env.data = {{"store", dir}, {"baselines", nlohmann::json::array({info_json(b->info)})}, {"document", b->envelope}};
    env.errors = b->measurements.gaps;
    Section s;
    s.title = "baseline";
    s.fields = info_fields(b->info);
    if (!b->measurements.collectives.empty()) {
      Table t;
      t.columns = {"collective", "size", "busbw", "backend", "ranks"};
      t.align = {Align::kLeft, Align::kRight, Align::kRight, Align::kLeft, Align::kRight};
      for (const auto& p : b->measurements.collectives)
        t.rows.push_back({p.collective, format_bytes_iec(static_cast<double>(p.size_bytes)),
                          format_gbytes_per_s(p.busbw_bytes_per_s), p.backend.empty() ? "-" : p.backend,
                          p.ranks ? std::to_string(*p.ranks) : "-"});
      doc.sections.push_back(std::move(s));
      s = Section{};
      s.title = "collectives: busbw per message size";
      s.tables.push_back(std::move(t));
    }
    doc.sections.push_back(std::move(s));
    return emit(g, env, doc);
  }
  auto listing = store.list();
  if (!listing) return fail_input(listing.error());
  env.data = {{"store", dir}, {"store_exists", listing->store_exists}, {"baselines", nlohmann::json::array()}};
  for (const auto& i : listing->baselines) env.data["baselines"].push_back(info_json(i));
  env.errors = listing->errors;
  Section s;
  s.title = "baselines";
  s.fields.emplace_back("store", dir);
  if (listing->baselines.empty()) {
    s.lines.push_back(std::string("none") + (listing->store_exists ? "" : " (the directory does not exist yet)") +
                      "; save one with: fabdiag baseline save NAME FILE");
  } else {
    Table t;
    t.columns = {"name", "schema", "hosts", "run started", "saved", "measures"};
    for (const auto& i : listing->baselines) {
      std::string measures;
      if (!i.collectives.empty()) measures = join(i.collectives) + " " + sizes_text(i.sizes_bytes);
      if (i.pair_hosts > 0)
        measures += (measures.empty() ? "" : "; ") + std::string("pairs of ") + std::to_string(i.pair_hosts) + " hosts";
      t.rows.push_back({i.name, i.schema, std::to_string(i.hosts.size()), i.started_at.empty() ? "-" : i.started_at,
                        i.saved_at.empty() ? "-" : i.saved_at, measures});
    }
    s.tables.push_back(std::move(t));
  }
  doc.sections.push_back(std::move(s));
  return emit(g, env, doc);
}

}  // namespace

int run_baseline(const GlobalOptions& g, const BaselineOptions& o) {
  auto dir = baseline::resolve_store_dir(o.store_dir, process_environment());
  if (!dir) return fail_input(dir.error());
  if (o.action == "save") return run_save(g, o, *dir);
  if (o.action == "diff") return run_diff(g, o, *dir);
  if (o.action == "show") return run_show(g, o, *dir);
  print_error("baseline: give one of save, diff, show");
  return kExitUsage;
}

}  // namespace fabdiag::cmd
