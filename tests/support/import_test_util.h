// Test helpers for the counter importers: read a fixture of the repository, import it, and run
// it through the same interpretation as `fabdiag counters --from`.
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "rules/counter_interpret.h"
#include "import/counter_formats.h"

namespace fabdiag::testing {

/// The text of a file of the repository ("tests/fixtures/cases/017-...").
inline std::string repo_text(const std::string& rel) {
  std::ifstream in(std::string(FABDIAG_SOURCE_DIR) + "/" + rel);
  REQUIRE_MESSAGE(in.good(), "cannot open " << rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Imports `rel` as `format` (REQUIREs success).
inline CounterImport import_repo_file(CounterImportFormat format, const std::string& rel,
                                      const std::string& netdev = {}) {
  auto imp = import_counters(format, repo_text(rel), rel, netdev);
  REQUIRE_MESSAGE(imp.ok(), (imp.ok() ? std::string() : imp.error().to_string()));
  return std::move(*imp);
}

/// Import, combine and interpret one file, as `fabdiag import FORMAT FILE [--interval S]` does.
struct Interpreted {
  CombinedImport combined;
  CounterInterpretation result;
};
inline Interpreted interpret_repo_file(CounterImportFormat format, const std::string& rel,
                                       std::optional<double> window_s = std::nullopt,
                                       const std::string& netdev = {}) {
  Interpreted out;
  out.combined = combine_imports({import_repo_file(format, rel, netdev)}, window_s);
  out.result = interpret_counters(out.combined.input);
  return out;
}

/// The findings of `r` with severity >= warn.
inline std::vector<const Finding*> problems(const CounterInterpretation& r) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings)
    if (f.severity >= Severity::kWarn) out.push_back(&f);
  return out;
}

/// The finding with `code` about `subject` (any subject when empty), or nullptr.
inline const Finding* finding(const CounterInterpretation& r, const std::string& code,
                              const std::string& subject = {}) {
  for (const auto& f : r.findings)
    if (f.code == code && (subject.empty() || f.subject == subject)) return &f;
  return nullptr;
}

/// The reading (or change) of `name` on `device`, or nullptr.
inline const CounterChange* change(const InterpretInput& in, const std::string& device,
                                   const std::string& name) {
  for (const auto& c : in.changes)
    if (c.counter.device == device && c.counter.name == name) return &c;
  return nullptr;
}

}  // namespace fabdiag::testing
