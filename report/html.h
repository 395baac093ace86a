// The self-contained HTML page of a report model: one file, no external assets, no script;
// inline CSS and SVG only, so it opens from a mail attachment or an air-gapped share.
#pragma once

#include <string>

#include "report/document.h"
#include "report/result_model.h"

namespace fabdiag {

/// The page, in this order (each part only when the model has it):
///   header: title, the documents read (ul#sources), div#summary with data-pass, data-fail,
///     data-not-checked (counts over nodes, links and checks);
///   table#nodes: tr.node.<status>[data-host] (status pass, fail or not_checked), merged over
///     the documents (report/result_model.h merged_nodes);
///   table#links: tr.link.<status>[data-subject];
///   section#pairwise: svg#pairwise-heatmap (then #pairwise-heatmap-2, ...; report/svg_heatmap.h);
///   section#curves: svg.busbw-curve[data-collective] per collective (report/svg_curves.h);
///   table#checks: tr.check.<status>[data-scope][data-subject][data-check] with measured,
///     expected, margin and the evidence;
///   table#findings: tr.finding.<severity>[data-code][data-subject], worst first;
///   section#evidence-chain: div.chain[data-kind][data-subject] with ol of evidence and action;
///   section#gaps: li.gap per error;
///   section#details: `details`'s sections as tables (what the table format prints), when
///     given (a command's own --format html).
/// Every text is escaped (report/xml_escape.h).
std::string render_html(const ReportModel& model, const std::string& title, const Document* details = nullptr);

}  // namespace fabdiag
