// `fabdiag report FILE...`: saved result documents (bench, pairwise, triage, baseline diff,
// accept, import with parts) read into one report model and rendered as a table, Markdown,
// JSON (fabdiag.report/1), JUnit XML or one self-contained HTML page.
#include <cstdio>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "cmd/commands.h"
#include "cmd/input.h"
#include "cmd/result_pieces.h"
#include "core/escape_line.h"
#include "core/exit_codes.h"
#include "report/html.h"
#include "report/junit.h"
#include "report/report_document.h"
#include "report/result_json.h"
#include "report/result_model.h"

namespace fabdiag::cmd {

namespace {

// Reads FILE into the model; the exit code when it cannot be used (not JSON, not a result
// document, a schema `report` does not render: the error printed). A file that cannot be read
// at all is a gap in the model, not a stop, unless no file could be read (exit 2).
// The document is parsed with its matrix rows packed (report/result_json.h) and its text freed
// before the model is built: memory is the model, not the file (docs/report.md#memory).
std::optional<int> read_one(const std::string& file, ReportModel& model) {
  nlohmann::json j;
  {
    auto text = read_input(file);
    if (!text) {
      model.errors.push_back({SourcedError::kNoSource, text.error().with_context("reading a result for the report")});
      return std::nullopt;
    }
    j = parse_result_json(*text);
  }
  if (j.is_discarded()) {
    print_error(file + ": not JSON; `fabdiag report` reads the --format json documents fabdiag writes");
    return kExitUsage;
  }
  nlohmann::json data;  // moved, not copied, into the envelope (a null stays for its checks)
  if (j.is_object() && j.contains("data")) data = std::move(j["data"]);
  auto env = envelope_from_json(j);
  if (env) env->data = std::move(data);
  if (!env) {
    print_error(file + ": not a fabdiag result document: " + env.error().message);
    return kExitUsage;
  }
  if (!is_report_schema(env->schema)) {
    print_error(file + ": schema " + env->schema +
                " is not one `fabdiag report` renders (fabdiag.bench/1, fabdiag.pairwise/1, fabdiag.triage/1, "
                "fabdiag.baseline_diff/1, fabdiag.accept/1, fabdiag.import/1)");
    return kExitUsage;
  }
  add_document(model, file, *env);
  return std::nullopt;
}

// The files once each: a file given twice (or under two names: a link, ./x and x) counts once,
// by its real path; each repeat is noted on stderr. A path that does not resolve is kept (its
// reading names the error).
std::vector<std::string> distinct_files(const std::vector<std::string>& files) {
  std::map<std::string, std::string> given_as;  // real path -> the name it was first given as
  std::vector<std::string> out;
  for (const auto& f : files) {
    std::error_code ec;
    std::string real = f == "-" ? f : std::filesystem::canonical(f, ec).string();
    if (ec) real = f;
    auto [first, fresh] = given_as.emplace(real, f);
    if (fresh) {
      out.push_back(f);
      continue;
    }
    std::fprintf(stderr, "fabdiag: note: %s: the same file as %s (%s), read once\n", escape_line(f).c_str(),
                 escape_line(first->second).c_str(), escape_line(real).c_str());
  }
  return out;
}

}  // namespace

int run_report(const GlobalOptions& g, const ReportOptions& o) {
  ReportModel model;
  const std::vector<std::string> files = distinct_files(o.files);
  for (const auto& f : files)
    if (auto rc = read_one(f, model)) return *rc;
  if (model.sources.empty()) {  // no document at all: nothing to report on (as `import`: exit 2)
    for (const auto& e : model.errors) print_error(e.error.to_string());
    return kExitUsage;
  }
  const std::string title = !o.title.empty() ? o.title
                            : model.sources.size() == 1 ? "fabdiag report: " + model.sources[0].file
                                                        : "fabdiag report: " + std::to_string(files.size()) + " files";
  const Envelope env = report_envelope(model);
  const Format format = resolve_format(g);
  // JSON and JUnit list every link (a 1500-host matrix: 1.1 million): written in pieces.
  int rc = kExitOk;
  if (format == Format::kJson)
    rc = write_result_pieces(g, [&](const TextDrain& drain) { render_json_to(env, report_verdict_arrays(model), drain); });
  else if (format == Format::kJunit)
    rc = write_result_pieces(g, [&](const TextDrain& drain) { render_junit_to(model, drain); });
  else
    rc = write_result_text(g, format == Format::kHtml ? render_html(model, title)
                                                      : render(format, env, report_document(model, title)));
  if (rc != kExitOk) return rc;
  if (count_outcomes(model).fail > 0) return kExitProblems;
  return model.errors.empty() ? kExitOk : kExitPartial;
}

}  // namespace fabdiag::cmd
