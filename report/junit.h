// JUnit XML of a report model: what a CI system (Jenkins, GitLab, GitHub test reporters) shows
// as test results. One <testsuite> per document read, one <testcase> per node, per link and
// per check; a failing one carries <failure> with measured, expected, margin and the evidence,
// one not checked carries <skipped> with the reason; every gap (a file not read, a document's
// errors[]) is a <testcase> with <error>.
#pragma once

#include <string>

#include "report/render_pieces.h"
#include "report/result_model.h"

namespace fabdiag {

/// The whole XML document (UTF-8, with its declaration and a trailing newline). Classnames:
/// fabdiag.node, fabdiag.link, fabdiag.check.<scope>, fabdiag.gap; testcase names: the host,
/// "hostA<->hostB", "<subject>: <check>". Every text and attribute is escaped
/// (report/xml_escape.h); the totals on <testsuites> and each <testsuite> count what is in it.
std::string render_junit(const ReportModel& model);

/// render_junit() handed to `drain` in pieces of about 1 MiB as it is written (every link of a
/// 1500-host matrix is a testcase: 83 MB): the totals are counted first, then each suite is
/// written case by case, never held whole. The same bytes.
void render_junit_to(const ReportModel& model, const TextDrain& drain);

}  // namespace fabdiag
