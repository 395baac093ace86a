// libFuzzer target: a saved result document as `fabdiag report FILE` reads it: the JSON
// parsed, envelope_from_json(), add_document() into the report model (every schema's reader:
// the input's "schema" member picks it, the fuzzer mutates it like the rest), then every
// format the command renders (table, Markdown, JSON, JUnit, HTML).
#include <nlohmann/json.hpp>

#include "report/html.h"
#include "report/junit.h"
#include "report/render.h"
#include "report/report_document.h"
#include "report/result_model.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabdiag;
  auto j = nlohmann::json::parse(fuzz::as_text(data, size), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  auto env = envelope_from_json(j);
  if (!env) return 0;
  ReportModel m;
  add_document(m, "fuzz-input", *env);
  add_document(m, "fuzz-input-again", *env);  // a second file: merging nodes, curves by collective
  const Envelope out = report_envelope(m);
  const Document doc = report_document(m, "fuzz");
  for (Format f : {Format::kTable, Format::kMarkdown, Format::kJson}) (void)render(f, out, doc);
  (void)render_junit(m);
  (void)render_html(m, "fuzz", &doc);
  (void)render(Format::kHtml, *env, Document{});  // a command's own --format html
  return 0;
}
