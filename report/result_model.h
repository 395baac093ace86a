// The report model: what `fabdiag report` (and --format html|junit of any command) draws from
// saved result envelopes. Pass/fail verdicts per node, per link and per check with measured vs
// expected, the pairwise matrices, the busbw-vs-size curves with their baseline band, the
// suspects' evidence chains and every finding, each tagged with the document it came from.
// Built from the envelopes' JSON only (report/result_sources.cpp reads each schema); the
// renderers (report/html.cpp, report/junit.cpp, report/report_document.cpp) know nothing else.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/envelope.h"
#include "core/finding.h"

namespace fabdiag {

/// A verdict's status, as fabdiag.accept/1 spells it: "pass", "fail", "not_checked".
enum class Outcome { kPass = 0, kNotChecked = 1, kFail = 2 };

/// "pass", "fail", "not_checked".
const char* to_string(Outcome o);
/// Parses the names above; nullopt for anything else.
std::optional<Outcome> parse_outcome(const std::string& s);
/// The worse of two: fail > not_checked > pass.
Outcome worse(Outcome a, Outcome b);

/// One pass/fail verdict: a JUnit testcase, a row of the nodes, links or checks table.
struct Verdict {
  std::string scope;    ///< "node", "link" or "cluster".
  std::string subject;  ///< A host, "hostA<->hostB" for a link, a collective for the cluster.
  std::string check;    ///< What was checked ("node", "link", "pair bandwidth", a finding code).
  Outcome status = Outcome::kPass;
  std::optional<double> measured;    ///< In `unit`; nullopt = not measured.
  std::optional<double> expected;    ///< In `unit`; nullopt = no expectation.
  std::string unit;                  ///< "bytes/s", "count", ... (raw base units).
  std::optional<double> margin_pct;  ///< (measured / expected - 1) x 100 where both are known; + = room to spare (report/result_sources.h margin_of).
  std::vector<Evidence> evidence;
  std::string reason;                ///< Why this status, in a sentence.
  size_t source = 0;                 ///< Index into ReportModel::sources.
};

/// A pairwise bandwidth matrix (row = sender, column = receiver).
struct Heatmap {
  size_t source = 0;
  std::string title;
  std::vector<std::string> hosts;
  /// hosts x hosts bytes/s, row-major (`[src * hosts.size() + dst]`); NaN = not measured. One
  /// double a cell: a 1500-host matrix is 18 MB.
  std::vector<double> cells;
  std::vector<std::string> suspect_hosts;                        ///< Named slow nodes.
  std::vector<std::pair<std::string, std::string>> suspect_links;  ///< Named slow links (either order).

  /// hosts[src] -> hosts[dst] in bytes/s; nullopt when not measured, on the diagonal, or
  /// outside the matrix.
  std::optional<double> at(size_t src, size_t dst) const;
};

/// The link verdicts of one pairwise matrix, one per pair of hosts measured in at least one
/// direction (i < j in the matrix's host order, row by row), made when they are visited and
/// never stored: a 1500-host matrix has 1.1 million (report/matrix_links.h makes them). Kept
/// here: what decides each verdict.
struct MatrixLinks {
  size_t source = 0;
  size_t heatmap = 0;  ///< Index into ReportModel::heatmaps: the matrix and its hosts.
  size_t before = 0;   ///< Its verdicts come just before ReportModel::links[before] (== size: after all).
  /// What every pair and node is measured against (bytes/s): the analysis's reference R
  /// (data.reference_bytes_per_s; the fleet median for documents without it); nullopt: none,
  /// every link is not checked.
  std::optional<double> reference;
  std::string reference_source;  ///< "p90 of pairs", "fleet median", "baseline".
  /// A pair value (the mean of its directions) below pair_ratio x reference is a slow pair
  /// (perf/pairwise_analysis.h rule 4): it fails, or is not checked when the data cannot pin it.
  double pair_ratio = 0.15;
  std::vector<std::string> slow_nodes;  ///< The result's outlier nodes: their slow pairs fail, explained by them.
  /// One-host `inconclusive` entries (host, reason): a slow pair touching one is not checked.
  std::vector<std::pair<std::string, std::string>> unsure_nodes;
  std::vector<std::pair<std::string, std::string>> slow;  ///< The result's outlier links: fail.
  /// An `inconclusive` entry of two hosts and its reason: that pair is not checked (unless it failed).
  std::vector<std::pair<std::vector<std::string>, std::string>> inconclusive;
  bool cleared_by_walk = false;  ///< A triage's screen: its outliers pass, the walk cleared them.
  std::vector<std::pair<std::string, std::string>> suspects;  ///< A triage walk's suspect links: fail.
};

/// One measured point of a curve.
struct CurvePoint {
  double size_bytes = 0;
  double busbw_bytes_per_s = 0;
};

/// The baseline band at one size: values inside it are not a regression.
struct BandPoint {
  double size_bytes = 0;
  double low_bytes_per_s = 0;   ///< Below this the diff flags a drop: min(ref x (1 - tolerance), ref - k x spread).
  double high_bytes_per_s = 0;  ///< ref + k x spread (ref when the spread is unknown).
};

/// The points one document gives for one collective.
struct CurveSeries {
  size_t source = 0;
  std::string label;  ///< "FILE", "FILE (current vs baseline)".
  std::vector<CurvePoint> points;  ///< Sorted by size.
};

/// busbw vs message size of one collective over every document that measured it.
struct Curve {
  std::string collective;
  std::vector<CurveSeries> series;
  std::vector<BandPoint> band;  ///< From a baseline diff; empty when none gave one. Sorted by size.
};

/// A named suspect with the chain of evidence behind it (triage, pairwise, a diff's roll-up).
struct SuspectChain {
  size_t source = 0;
  std::string kind;     ///< "node" or "link".
  std::string subject;  ///< The host, or "hostA<->hostB".
  std::string layer;    ///< "L0".."L4"; empty when unknown.
  std::vector<Evidence> evidence;
  std::string action;
};

/// One document read into the model.
struct ReportSource {
  std::string file;        ///< As named on the command line ("-" = stdin; "" = this run).
  std::string schema;      ///< "fabdiag.pairwise/1"; for a part of an import: the part's.
  std::string started_at;
  std::vector<std::string> hosts;
  bool partial = false;
};

/// A finding and the document it came from.
struct SourcedFinding {
  size_t source = 0;
  Finding finding;
};

/// A gap and the document it belongs to (kNoSource: a file that could not be read at all).
struct SourcedError {
  static constexpr size_t kNoSource = static_cast<size_t>(-1);
  size_t source = kNoSource;
  Error error;
};

/// Everything a report shows.
struct ReportModel {
  std::vector<ReportSource> sources;
  std::vector<Verdict> nodes;   ///< scope "node": one per host and document.
  std::vector<Verdict> links;   ///< scope "link": one per link and document, but those of matrix_links.
  std::vector<MatrixLinks> matrix_links;  ///< The links of pairwise matrices, made when visited (report/matrix_links.h).
  std::vector<Verdict> checks;  ///< Every check (accept's checks, diff rows, findings at warn or above).
  std::vector<Heatmap> heatmaps;
  std::vector<Curve> curves;    ///< One per collective, in the order first seen.
  std::vector<SuspectChain> chains;
  std::vector<SourcedFinding> findings;
  std::vector<SourcedError> errors;  ///< Gaps: files not read and every document's errors[].
};

/// Whether `add_document` knows the schema's data (bench, pairwise, triage, baseline_diff,
/// accept, import with parts); other schemas still give their findings and errors.
bool is_report_schema(const std::string& schema);

/// Reads `env` (from `file`) into `model`: its verdicts, matrices, curves, suspects, findings
/// and errors. A fabdiag.import/1 with parts[] is read part by part (each part a source named
/// "FILE part N"). Data of a known schema that lacks members gives fewer verdicts, never an
/// exception; a member of the wrong type (`hosts` a string) drops that document's verdicts and
/// adds an error naming the file and the key (a gap). Findings at warn or above become failing checks (except for accept, whose checks
/// are its own); nodes and links named only by checks get a verdict of their worst check.
void add_document(ReportModel& model, const std::string& file, const Envelope& env);

/// The model of one envelope: what --format html|junit of a command draws.
ReportModel model_of(const Envelope& env, const std::string& file = "");

/// Nodes merged over the documents: one verdict per host, the worst status, the evidence and
/// reasons of the failing ones; in the order hosts are first seen.
std::vector<Verdict> merged_nodes(const ReportModel& model);

/// Counts of verdicts (nodes, links (report/matrix_links.h: those of matrices too) and checks
/// together) by status.
struct OutcomeCounts {
  size_t pass = 0, fail = 0, not_checked = 0;
};
OutcomeCounts count_outcomes(const ReportModel& model);

/// `value` as "12.3 GB/s" for bytes/s, "12 count", "-" for nullopt: the renderers' one form.
std::string format_measure(const std::optional<double>& value, const std::string& unit);

}  // namespace fabdiag
