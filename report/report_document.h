// The table and Markdown view of a report model, and its fabdiag.report/1 envelope (the JSON
// form): what `fabdiag report --format table|md|json` prints (cmd/report.cpp).
#pragma once

#include <string>

#include "core/envelope.h"
#include "report/document.h"
#include "report/result_model.h"

namespace fabdiag {

/// Sections: the documents read, the summary, nodes (merged over the documents), links, checks
/// (measured, expected, margin, why), the pairwise matrices in GB/s, busbw per size per
/// collective (with the baseline band's low and high), the evidence chains. Findings and gaps
/// are the envelope's (report_envelope), printed by the renderer after these.
Document report_document(const ReportModel& model, const std::string& title);

/// fabdiag.report/1: data {files[] {file, schema, started_at, partial}, summary {pass, fail,
/// not_checked}, nodes[], links[], checks[]} (each verdict {scope, subject, check, status,
/// measured, expected, unit, margin_pct, evidence[], reason, file}: accept's check shape),
/// findings = every document's, errors = the gaps. Hosts: every document's, once each.
Envelope report_envelope(const ReportModel& model);

}  // namespace fabdiag
