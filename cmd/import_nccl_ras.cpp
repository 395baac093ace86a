// `fabdiag import nccl-ras FILE`: an NCCL RAS report (text or JSON) or monitor stream -> one
// fabdiag.ncclras/1 envelope (the job summary or the JSON report's communicators, each Errors /
// Warnings entry with its operation counts and the ranks RAS names, the monitor events;
// import/nccl_ras.h).
#include "cmd/import_readers.h"
#include "cmd/input.h"
#include "core/repeats.h"
#include "import/nccl_ras.h"

namespace fabdiag::cmd {

namespace {

std::string opt_cell(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "-"; }

Section summary_section(const RasReport& r) {
  Section s;
  s.title = "RAS job summary";
  if (!r.nccl_version.empty()) s.fields.emplace_back("NCCL", r.nccl_version);
  s.fields.emplace_back("nodes", opt_cell(r.nodes));
  s.fields.emplace_back("processes per node", opt_cell(r.processes_per_node));
  s.fields.emplace_back("processes / GPUs", opt_cell(r.processes) + " / " + opt_cell(r.gpus));
  Table t;
  t.columns = {"group", "comms", "nodes/comm", "ranks/node", "ranks/comm", "ranks in group", "status", "errors"};
  t.align = {Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kLeft,
             Align::kLeft};
  for (const auto& g : r.groups)
    t.rows.push_back({std::to_string(g.group), std::to_string(g.comms), std::to_string(g.nodes_per_comm),
                      std::to_string(g.ranks_per_node), std::to_string(g.ranks_per_comm),
                      std::to_string(g.ranks_in_group), g.status, g.errors.empty() ? "-" : g.errors});
  s.tables.push_back(std::move(t));
  return s;
}

Section entry_section(const RasEntry& e) {
  Section s;
  s.title = e.comm + " " + e.hash + " " + e.kind + (e.error ? " (error)" : " (warning)");
  if (!e.what.empty()) s.fields.emplace_back("what", e.what);
  for (const auto& c : e.counts) {
    std::string listed;
    for (auto r : c.listed) listed += (listed.empty() ? " (listed: " : " ") + std::to_string(r);
    s.fields.emplace_back(c.op < 0 ? "no operation" : "operation " + std::to_string(c.op),
                          std::to_string(c.ranks) + " ranks" + (listed.empty() ? "" : listed + ")"));
  }
  if (!e.ranks.empty()) {
    Table t;
    t.columns = {"rank", "GPU", "process", "node"};
    t.align = {Align::kRight, Align::kRight, Align::kRight, Align::kLeft};
    for (const auto& r : e.ranks) t.rows.push_back({std::to_string(r.rank), r.gpu, std::to_string(r.pid), r.node});
    s.tables.push_back(std::move(t));
  }
  for (const auto& l : e.text) s.fields.emplace_back("", l);
  return s;
}

// A JSON report's communicators: hash, size, ranks read and missing.
Section comms_section(const RasReport& r) {
  Section s;
  s.title = "RAS communicators (JSON report" + (r.timestamp.empty() ? "" : ", " + r.timestamp) + ")";
  Table t;
  t.columns = {"comm", "hash", "size", "ranks", "missing", "line"};
  t.align = {Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight};
  for (const auto& c : r.comms)
    t.rows.push_back({c.id, c.hash, std::to_string(c.size), std::to_string(c.ranks_read) + (c.cut ? " (cut)" : ""),
                      std::to_string(c.missing_read), std::to_string(c.line)});
  s.tables.push_back(std::move(t));
  return s;
}

// A monitor stream's events, one row per event and peer.
Section events_section(const RasReport& r) {
  Section s;
  s.title = "RAS monitor events (" + std::to_string(r.event_count) + ")";
  Table t;
  t.columns = {"event", "peer", "GPUs", "count", "first", "last", "details"};
  t.align = {Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight, Align::kLeft, Align::kLeft, Align::kLeft};
  for (const auto& e : r.events)
    t.rows.push_back({e.event, e.host.empty() ? e.addr : e.host + (e.pid >= 0 ? " pid " + std::to_string(e.pid) : ""),
                      e.gpus.empty() ? "-" : e.gpus, std::to_string(e.count), e.first_time, e.last_time,
                      e.details.empty() ? "-" : e.details});
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_nccl_ras(const ImportFileOptions& o) {
  auto lines = open_input_lines(o.file);
  if (!lines) return lines.error();
  auto rep = import_nccl_ras(**lines, o.file, ReadLimits{o.max_findings});
  if (!rep) return rep.error();
  ImportOutput out;
  out.env = make_envelope("fabdiag.ncclras/1");
  out.env.hosts.clear();  // the report is about the job's nodes, not this one
  out.env.params = {{"importer", "nccl-ras"}, {"file", o.file}};
  out.env.data = nccl_ras_data(*rep);
  out.env.findings = nccl_ras_findings(*rep, o.file);
  out.env.errors = rep->gaps;
  cap_findings(out.env.findings, o.max_findings);
  out.doc.title = "fabdiag import nccl-ras " + o.file;
  if (rep->form == "text") out.doc.sections.push_back(summary_section(*rep));
  if (rep->form == "json") out.doc.sections.push_back(comms_section(*rep));
  if (rep->form == "monitor") out.doc.sections.push_back(events_section(*rep));
  for (const auto& e : rep->entries) out.doc.sections.push_back(entry_section(e));
  return out;
}

}  // namespace fabdiag::cmd
