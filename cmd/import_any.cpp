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
#include "cmd/input.h"
#include "core/exit_codes.h"
#include "core/line_source.h"
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
};

// An expanded argument: the file and the host its path names below a directory argument.
struct FoundFile {
  std::string path;
  std::string host_hint;
};

// The first directory below `top` on the way to `file`, when it is a host name.
std::string host_below(const fs::path& top, const fs::path& file) {
  fs::path rel = file.lexically_relative(top);
  auto it = rel.begin();
  if (it == rel.end() || std::next(it) == rel.end()) return "";  // directly in `top`
  std::string first = it->string();
  return triage::is_valid_hostname(first) ? first : "";
}

// FILE and DIR arguments -> files, a directory walked in name order (regular files only; links
// are not followed out of it). Errors: a path that does not exist.
Result<std::vector<FoundFile>> expand_paths(const std::vector<std::string>& args) {
  std::vector<FoundFile> files;
  for (const auto& a : args) {
    std::error_code ec;
    if (a == "-" || fs::is_regular_file(a, ec)) {
      files.push_back({a, ""});
      continue;
    }
    if (!fs::is_directory(a, ec)) {
      if (!fs::exists(a, ec)) return make_error(ErrorCode::kNotFound, "no such file or directory", a);
      files.push_back({a, ""});  // a FIFO or device: read as it is, the reader says what it finds
      continue;
    }
    std::vector<std::string> found;
    fs::recursive_directory_iterator it(a, fs::directory_options::skip_permission_denied, ec), end;
    if (ec) return make_error(ErrorCode::kPermission, ec.message(), a);
    for (; it != end; it.increment(ec)) {
      if (ec) return make_error(ErrorCode::kIo, ec.message(), a);
      if (it->is_regular_file(ec) && !it->is_symlink(ec)) found.push_back(it->path().string());
    }
    std::sort(found.begin(), found.end());
    for (auto& f : found) files.push_back({f, host_below(a, f)});
  }
  return files;
}

// `dir`, or its only entry when that is a folder ("collect/" at the top of an archive).
std::string single_top_folder(const std::string& dir) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec || it == end) return dir;
  fs::path only = it->path();
  bool is_dir = it->is_directory(ec) && !it->is_symlink(ec);
  return is_dir && ++it == end ? only.string() : dir;
}

PlacedFile place_file(const std::string& path, const FormatRoute* forced) {
  PlacedFile p;
  p.path = path;
  if (forced) {
    p.route = forced;
    p.how = "--as " + forced->name;
    return p;
  }
  if (path == "-") {
    p.why = "stdin cannot be detected and then read again: give --as FORMAT";
    return p;
  }
  auto opened = open_input_lines(path);
  if (!opened) {
    p.why = opened.error().message;
    return p;
  }
  PeekedLineSource lines(std::move(*opened), 256);
  ToolEvidence ev = detect_tool(lines.head());
  if (ev.binary) {
    p.why = "binary data (NUL bytes), not the text of a tool";
    return p;
  }
  p.route = route_of(ev.tool);
  if (!p.route) {
    p.why = "not the output of a tool fabdiag reads" +
            (ev.line ? " (line " + std::to_string(ev.line) + ": " + ev.text + ")" : std::string(" (empty)")) +
            "; name it with --as FORMAT";
    return p;
  }
  p.how = "line " + std::to_string(ev.line) + ": " + ev.text;
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
      for (auto* f : group) f->why = "not read (the error above)";
      return;
    }
    parts.push_back(std::move(part));
    return;
  }
  for (auto* f : group) {
    Result<ImportOutput> out = route == Route::kNcclTests
                                   ? nccl_tests_output(ImportNcclTestsOptions{f->path, "", o.max_findings})
                                   : f->route->reader->read(ImportFileOptions{f->path, o.max_findings});
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
  // Archives are extracted first and walked as directories (a single top folder is the top).
  std::vector<std::unique_ptr<ExtractedArchive>> archives;
  std::vector<std::string> args;
  for (const auto& a : o.paths) {
    if (!is_archive_path(a)) {
      args.push_back(a);
      continue;
    }
    auto x = ExtractedArchive::extract(a);
    if (!x) return fail_input(x.error());
    args.push_back(single_top_folder((*x)->dir()));
    archives.push_back(std::move(*x));
  }
  auto paths = expand_paths(args);
  if (!paths) return fail_input(paths.error());
  if (paths->empty()) {
    print_error("no files under " + o.paths.front());
    return kExitUsage;
  }
  std::vector<PlacedFile> files;
  for (const auto& p : *paths) {
    files.push_back(place_file(p.path, forced));
    files.back().host_hint = p.host_hint;
  }
  std::map<Route, std::vector<PlacedFile*>> groups;
  for (auto& f : files)
    if (f.route) groups[f.route->route].push_back(&f);
  for (auto& [route, group] : groups) read_group(g, o, route, group, pile.parts);
  for (const auto& f : files)
    pile.files.push_back({f.path, f.route && f.why.empty() ? f.route->name : "", f.how, f.why, f.host_hint});
  for (const auto& a : archives) name_archive_members(pile, *a);
  for (const auto& f : pile.files)
    if (!f.why.empty()) print_error(f.path + ": " + f.why);
  if (pile.parts.empty()) return kExitUsage;  // nothing could be read: each file said why
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
  return emit(g, joined.env, joined.doc);
}

}  // namespace fabdiag::cmd
