// The table and Markdown view of a report model, and its fabdiag.report/1 envelope (the JSON
// form): what `fabdiag report --format table|md|json` prints (cmd/report.cpp).
#pragma once

#include <string>
#include <vector>

#include "core/envelope.h"
#include "report/document.h"
#include "report/render_pieces.h"
#include "report/result_model.h"

namespace fabdiag {

/// Sections: the documents read, the summary, nodes (merged over the documents), links (at most
/// kMaxListedLinks, chosen as the HTML page chooses them, with a line on the rest), checks
/// (measured, expected, margin, why), the pairwise matrices in GB/s, busbw per size per
/// collective (with the baseline band's low and high), the evidence chains. Findings and gaps
/// are the envelope's (report_envelope), printed by the renderer after these.
Document report_document(const ReportModel& model, const std::string& title);

/// fabdiag.report/1 without its verdict lists: data {files[] {file, schema, started_at,
/// partial}, summary {pass, fail, not_checked}}, findings = every document's, errors = the gaps.
/// Hosts: every document's, once each. render_json_to(env, report_verdict_arrays(model), ...)
/// writes the whole document.
Envelope report_envelope(const ReportModel& model);

/// data.nodes[], data.links[] and data.checks[] of the report, written one verdict at a time
/// (each {scope, subject, check, status, measured, expected, unit, margin_pct, evidence[],
/// reason, file}: accept's check shape): every link of a 1500-host matrix (1.1 million) without
/// holding them. `model` must outlive the members.
std::vector<StreamedArray> report_verdict_arrays(const ReportModel& model);

}  // namespace fabdiag
