// `fabdiag import pytorch-watchdog FILE`: a PyTorch training log with ProcessGroupNCCL watchdog
// timeouts -> one fabdiag.torchwatchdog/1 envelope (per process group: the work each rank timed
// out on, its last enqueued / completed work, and the verdict; import/pytorch_watchdog.h).
#include "cmd/import_readers.h"
#include "cmd/input.h"
#include "core/repeats.h"
#include "import/pytorch_watchdog.h"

namespace fabdiag::cmd {

namespace {

std::string cell(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "-"; }

std::string ms_cell(const std::optional<int64_t>& v) { return v ? std::to_string(*v) + " ms" : "-"; }

Section group_section(const WatchdogGroup& g) {
  Section s;
  s.title = "process group " + (g.pg.empty() ? std::string("(not named)") : g.pg);
  if (g.stuck_seq) s.fields.emplace_back("stuck at", "SeqNum " + std::to_string(*g.stuck_seq));
  auto list = [](const std::vector<int64_t>& v) {
    std::string out;
    for (auto r : v) out += (out.empty() ? "" : " ") + std::to_string(r);
    return out.empty() ? std::string("none") : out;
  };
  s.fields.emplace_back("timed out", list(g.timed_out));
  if (!g.moved_on.empty()) s.fields.emplace_back("moved on", list(g.moved_on));
  if (!g.not_launched.empty()) s.fields.emplace_back("never launched it", list(g.not_launched));
  if (!g.not_in_log.empty()) s.fields.emplace_back("not in the log", list(g.not_in_log));
  Table t;
  t.columns = {"rank", "host", "SeqNum", "op", "NumelIn", "NumelOut", "timeout", "ran for", "last enqueued",
               "last completed", "line"};
  t.align = {Align::kRight, Align::kLeft, Align::kRight, Align::kLeft, Align::kRight, Align::kRight,
             Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight};
  for (const auto& r : g.ranks)
    t.rows.push_back({std::to_string(r.rank), r.host.empty() ? "-" : r.host, cell(r.seq), r.op.empty() ? "-" : r.op,
                      cell(r.numel_in), cell(r.numel_out), ms_cell(r.timeout_ms), ms_cell(r.ran_for_ms),
                      cell(r.last_enqueued), cell(r.last_completed), std::to_string(r.line)});
  t.notes.push_back("SeqNum '-': a rank that reports its progress without a timeout of its own");
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_pytorch_watchdog(const ImportFileOptions& o) {
  auto lines = open_input_lines(o.file);
  if (!lines) return lines.error();
  auto imp = import_pytorch_watchdog(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();

  ImportOutput out;
  out.env = make_envelope("fabdiag.torchwatchdog/1");
  out.env.hosts.clear();  // the hosts of the job, not this one
  for (const auto& g : imp->groups)
    for (const auto& r : g.ranks)
      if (!r.host.empty() && std::find(out.env.hosts.begin(), out.env.hosts.end(), r.host) == out.env.hosts.end())
        out.env.hosts.push_back(r.host);
  out.env.params = {{"importer", "pytorch-watchdog"}, {"file", o.file}};
  out.env.data = pytorch_watchdog_data(*imp);
  out.env.findings = pytorch_watchdog_findings(*imp, o.file);
  out.env.errors = imp->gaps;
  cap_findings(out.env.findings, o.max_findings);

  out.doc.title = "fabdiag import pytorch-watchdog " + o.file;
  for (const auto& g : imp->groups) out.doc.sections.push_back(group_section(g));
  return out;
}

}  // namespace fabdiag::cmd
