// `fabdiag import FILE|DIR...` without a format: each file's tool is detected from its first
// lines (import/format_detect.h) or forced with --as; the files are read by the command that
// judges their layer (counter outputs by `counters --from`, host facts by `check --from`,
// nccl-tests and the registry readers one by one) and the results joined into one verdict.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "cmd/commands.h"
#include "cmd/import_any.h"
#include "cmd/import_archive.h"
#include "cmd/import_inputs.h"
#include "cmd/input.h"
#include "core/exit_codes.h"
#include "core/interrupt.h"
#include "core/run_cut.h"
#include "core/repeats.h"
#include "core/line_source.h"
#include "core/text_encoding.h"
#include "triage/hostfile.h"

namespace fabdiag::cmd {

namespace {

namespace fs = std::filesystem;

// Which command reads a format.
enum class Route { kCounters, kCheck, kNcclTests, kReader };

struct FormatRoute {
  std::string name;  ///< The `fabdiag import` subcommand: "ethtool-s".
  ToolText tool;
  Route route;
  const ImportReader* reader = nullptr;  ///< For kReader.
};

const std::vector<FormatRoute>& format_routes() {
  static const std::vector<FormatRoute> routes = [] {
    std::vector<FormatRoute> r = {
        {"ethtool-s", ToolText::kEthtoolS, Route::kCounters},
        {"ethtool-m", ToolText::kEthtoolM, Route::kCounters},
        {"ethtool-fec", ToolText::kEthtoolFec, Route::kCounters},
        {"perfquery", ToolText::kPerfquery, Route::kCounters},
        {"ibqueryerrors", ToolText::kIbqueryerrors, Route::kCounters},
        {"rdma-statistic", ToolText::kRdmaStatistic, Route::kCounters},
        {"syslog", ToolText::kSyslog, Route::kCounters},
        {"lspci", ToolText::kLspci, Route::kCheck},
        {"ibstat", ToolText::kIbstat, Route::kCheck},
        {"ibstatus", ToolText::kIbstatus, Route::kCheck},
        {"ibv-devinfo", ToolText::kIbvDevinfo, Route::kCheck},
        {"nccl-tests", ToolText::kNcclTests, Route::kNcclTests},
    };
    for (const auto& reader : import_readers()) r.push_back({reader.name, reader.tool, Route::kReader, &reader});
    return r;
  }();
  return routes;
}

const FormatRoute* route_named(const std::string& name) {
  for (const auto& r : format_routes())
    if (r.name == name) return &r;
  return nullptr;
}

const FormatRoute* route_of(ToolText tool) {
  for (const auto& r : format_routes())
    if (r.tool == tool) return &r;
  return nullptr;
}

std::string format_names() {
  std::string out;
  for (const auto& r : format_routes()) out += (out.empty() ? "" : ", ") + r.name;
  return out;
}

// One input file and what it was taken for.
struct PlacedFile {
  std::string path;
  const FormatRoute* route = nullptr;  ///< nullptr: not placed (`why` says why).
  std::string how;                     ///< "--as", or the evidence: "line 3: \"CA 'mlx5_0'\"".
  std::string why;                     ///< Why it could not be placed or read.
  std::string host_hint;               ///< DIR/<host>/... names the host.
  /// More readers for the same file: the log lines another tool's output carries (NCCL lines in
  /// nccl-tests output, a PyTorch watchdog's lines after a RAS report, NCCL WARN lines in a
  /// training log). Each is read as its own part.
  std::vector<std::pair<const FormatRoute*, std::string>> also;
  bool optional = false;  ///< One of those: a refusal drops it (the lines were quotes), never an error.
};

// The readers of logs that tolerate other tools' lines around theirs: when a file's head holds
// their marker lines besides the detected tool's, they read the file too.
bool reads_log_lines(ToolText t) {
  return t == ToolText::kNcclLog || t == ToolText::kPytorchWatchdog || t == ToolText::kNvrmXid ||
         t == ToolText::kNcclTests;
}

// The other log readers whose marker lines `head` holds besides `primary`'s.
void add_log_readers(PlacedFile& p, ToolText primary, const std::vector<std::string>& head) {
  std::set<ToolText> seen = {primary};
  for (size_t i = 0; i < head.size(); ++i) {
    ToolText m = is_nvrm_xid_line(head[i]) || is_nvrm_gpu_lost_line(head[i]) ? ToolText::kNvrmXid : marker_of_line(head[i]);
    if (!reads_log_lines(m) || !seen.insert(m).second) continue;
    if (const FormatRoute* r = route_of(m))
      p.also.push_back({r, std::string(describe(m)) + " too: line " + std::to_string(i + 1) + ": " + quote_line(head[i])});
  }
}

PlacedFile place_file(const std::string& path, const FormatRoute* forced, const std::string& unclaimed_hint) {
  PlacedFile p;
  p.path = path;
  if (forced) {
    p.route = forced;
    p.how = "--as " + forced->name;
    return p;
  }
  auto opened = open_input_lines(path);
  if (!opened) {
    p.why = opened.error().message;
    return p;
  }
  PeekedLineSource lines(std::move(*opened), 256);
  ToolEvidence ev = detect_tool(lines.head());
  if (!lines.head().empty() && starts_with_utf16_bom(lines.head()[0])) {
    p.why = utf16_refusal();
    return p;
  }
  if (ev.binary) {
    p.why = "binary data (NUL bytes), not the text of a tool";
    return p;
  }
  p.route = route_of(ev.tool);
  if (!p.route) {
    p.why = "not the output of a tool fabdiag reads" +
            (ev.line ? " (line " + std::to_string(ev.line) + ": " + ev.text + ")" : std::string(" (empty)")) +
            "; " + unclaimed_hint;
    return p;
  }
  p.how = "line " + std::to_string(ev.line) + ": " + ev.text;
  add_log_readers(p, ev.tool, lines.head());
  return p;
}

// One result of the run: the files it read and what came of them.
using Part = PilePart;

// Reads the files of one route group into parts; a file whose reader refused it gets `why`.
void read_group(const GlobalOptions& g, const ImportAnyOptions& o, Route route,
                std::vector<PlacedFile*>& group, std::vector<Part>& parts) {
  std::vector<std::string> paths;
  for (auto* f : group) paths.push_back(f->path);
  auto forced = [&]() -> std::string { return o.as.empty() ? "auto" : o.as; };
  if (route == Route::kCounters || route == Route::kCheck) {
    Part part{paths, {}};
    std::optional<int> rc;
    if (route == Route::kCounters) {
      CountersOptions c;
      c.from = paths;
      c.from_format = forced();
      c.max_findings = o.max_findings;
      rc = counters_output(g, c, part.out);
    } else {
      CheckOptions c;
      c.from = paths;
      c.from_format = forced();
      rc = check_output(g, c, part.out);
    }
    if (rc) {
      // One file the group's reader refused must not cost the others: read them one by one
      // to find it, then the rest together.
      if (group.size() > 1) {
        std::vector<PlacedFile*> good;
        for (auto* f : group) {
          std::vector<PlacedFile*> one = {f};
          std::vector<Part> scratch;
          read_group(g, o, route, one, scratch);
          if (f->why.empty()) good.push_back(f);
        }
        if (!good.empty() && good.size() < group.size()) read_group(g, o, route, good, parts);
        return;
      }
      for (auto* f : group) f->why = "not read (the error above)";
      return;
    }
    parts.push_back(std::move(part));
    return;
  }
  for (auto* f : group) {
    Result<ImportOutput> out = route == Route::kNcclTests
                                   ? nccl_tests_output(ImportNcclTestsOptions{f->path, "", o.max_findings, o.line_rate_gbit_per_s})
                                   : f->route->reader->read(ImportFileOptions{f->path, o.max_findings, o.line_rate_gbit_per_s});
    if (!out) {
      f->why = out.error().message + (out.error().source.empty() ? "" : " (" + out.error().source + ")");
      continue;
    }
    parts.push_back(Part{{f->path}, std::move(*out)});
  }
}

}  // namespace

nlohmann::json pile_files_json(const std::vector<PileFile>& files) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& f : files) {
    nlohmann::json e = {{"file", f.path}};
    e["format"] = f.format.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.format);
    if (!f.how.empty()) e["detected_by"] = f.how;
    if (!f.why.empty()) e["not_read"] = f.why;
    if (!f.host_hint.empty()) e["host"] = f.host_hint;
    j.push_back(std::move(e));
  }
  return j;
}

Section pile_files_section(const std::vector<PileFile>& files) {
  Section s;
  s.title = "files read";
  Table t;
  t.columns = {"file", "format", "detected by"};
  t.align = {Align::kLeft, Align::kLeft, Align::kLeft};
  for (const auto& f : files)
    t.rows.push_back({f.path, f.format.empty() ? "not read" : f.format, f.why.empty() ? f.how : f.why});
  s.tables.push_back(std::move(t));
  return s;
}

namespace {

// Several parts -> one fabdiag.import/1 envelope: each part's result under data.parts[], the
// findings and errors of all of them, the hosts they name.
ImportOutput join_parts(std::vector<Part>& parts, const std::vector<PileFile>& files) {
  ImportOutput joined;
  Envelope& env = joined.env;
  env = make_envelope("fabdiag.import/1");
  env.hosts.clear();
  std::set<std::string> hosts;
  env.data["parts"] = nlohmann::json::array();
  joined.doc.title = "fabdiag import: " + std::to_string(files.size()) + " file(s)";
  joined.doc.sections.push_back(pile_files_section(files));
  for (auto& p : parts) {
    for (const auto& h : p.out.env.hosts) hosts.insert(h);
    env.data["parts"].push_back({{"files", p.files},
                                 {"schema", p.out.env.schema},
                                 {"params", p.out.env.params},
                                 {"data", std::move(p.out.env.data)}});
    env.findings.insert(env.findings.end(), p.out.env.findings.begin(), p.out.env.findings.end());
    env.errors.insert(env.errors.end(), p.out.env.errors.begin(), p.out.env.errors.end());
    Section head;
    head.title = p.out.doc.title;
    joined.doc.sections.push_back(std::move(head));
    for (auto& s : p.out.doc.sections) joined.doc.sections.push_back(std::move(s));
  }
  env.hosts.assign(hosts.begin(), hosts.end());
  return joined;
}

}  // namespace

std::optional<int> read_pile(const GlobalOptions& g, const ImportAnyOptions& o, Pile& pile) {
  const FormatRoute* forced = nullptr;
  if (!o.as.empty() && !(forced = route_named(o.as))) {
    print_error("--as '" + o.as + "': expected one of " + format_names());
    return kExitUsage;
  }
  InterruptScope stop;  // a signal stops the reading between files; the archive copies are removed
  auto stopped = [&] { return stop.pending() ? stop_exit_code(StopCause{stop.pending(), 0}) : 0; };
  auto inputs = collect_inputs(o.paths);
  if (!inputs) {
    if (inputs.error().code == ErrorCode::kInterrupted) {
      print_error(inputs.error().to_string());
      return stopped() ? stopped() : kExitInterrupted;
    }
    return fail_input(inputs.error());
  }
  if (inputs->files.empty()) {
    print_error("no files under " + o.paths.front());
    return kExitUsage;
  }
  std::vector<PlacedFile> files;
  const std::string not_read_why = "not read: interrupted";
  for (const auto& in : inputs->files) {
    if (!in.skipped.empty() || stop.pending()) {
      PlacedFile skipped;
      skipped.path = in.path;
      skipped.why = in.skipped.empty() ? not_read_why : in.skipped;
      files.push_back(std::move(skipped));
      continue;
    }
    files.push_back(place_file(in.path, forced, o.unclaimed_hint));
    files.back().host_hint = in.host_hint;
    auto also = std::move(files.back().also);
    for (auto& [route, how] : also) {
      PlacedFile more = files.back();
      more.route = route;
      more.how = how;
      more.optional = true;
      files.push_back(std::move(more));
    }
  }
  std::map<Route, std::vector<PlacedFile*>> groups;
  for (auto& f : files)
    if (f.route) groups[f.route->route].push_back(&f);
  for (auto& [route, group] : groups) {
    if (!stop.pending()) {
      read_group(g, o, route, group, pile.parts);
      continue;
    }
    for (auto* f : group) f->why = not_read_why;
  }
  pile.interrupted_by = stop.pending();
  for (const auto& f : files)
    if (!f.optional || f.why.empty())
      pile.files.push_back({f.path, f.route && f.why.empty() ? f.route->name : "", f.how, f.why, f.host_hint});
  for (const auto& a : inputs->archives) name_archive_members(pile, *a);
  size_t not_read = 0;
  for (const auto& f : pile.files)
    if (!f.why.empty() && (o.max_findings == 0 || ++not_read <= o.max_findings)) print_error(f.path + ": " + f.why);
  if (o.max_findings && not_read > o.max_findings)
    print_error("... and " + std::to_string(not_read - o.max_findings) + " more files not read (--max-findings " +
                std::to_string(o.max_findings) + ")");
  if (pile.interrupted_by) {
    const auto cut = std::count_if(files.begin(), files.end(), [&](const PlacedFile& f) { return f.why == not_read_why; });
    print_error(std::string("interrupted by ") + signal_name(pile.interrupted_by) + ": " + std::to_string(cut) + " of " +
                std::to_string(files.size()) + " files not read");
  }
  if (pile.parts.empty()) return pile.interrupted_by ? stopped() : kExitUsage;  // nothing could be read: each file said why
  return std::nullopt;
}

int run_import_any(const GlobalOptions& g, const ImportAnyOptions& o) {
  Pile pile;
  if (auto rc = read_pile(g, o, pile)) return *rc;
  if (pile.parts.size() == 1 && pile.files.size() == 1) {  // one file: its own command's result
    PilePart& p = pile.parts.front();
    p.out.env.params["detected"] = pile_files_json(pile.files).front();
    return emit(g, p.out.env, p.out.doc);
  }
  ImportOutput joined = join_parts(pile.parts, pile.files);
  joined.env.params = {{"importer", "auto"}, {"files", pile_files_json(pile.files)}};
  for (const auto& f : pile.files)
    if (!f.why.empty()) joined.env.errors.push_back(make_error(ErrorCode::kParse, f.why, f.path));
  cap_errors(joined.env.errors, o.max_findings);  // thousands of unreadable files: summarised (core/repeats.h)
  if (!pile.interrupted_by) return emit(g, joined.env, joined.doc);
  const StopCause cause{pile.interrupted_by, 0};  // what was read before the signal, marked partial
  mark_cut(joined.env, ErrorCode::kInterrupted, Cut{describe_stop(cause), "", "the files whose not_read says interrupted"});
  emit(g, joined.env, joined.doc);
  return stop_exit_code(cause);
}

}  // namespace fabdiag::cmd
