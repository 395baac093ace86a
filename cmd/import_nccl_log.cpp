// `fabdiag import nccl-log FILE`: an NCCL_DEBUG=INFO/WARN log -> one fabdiag.nccllog/1 envelope
// (per host: version, data transport, GPUDirect RDMA, WARN lines; import/nccl_log.h).
#include "cmd/commands.h"
#include "cmd/input.h"
#include "core/repeats.h"
#include "core/text.h"
#include "import/nccl_log.h"

namespace fabdiag::cmd {

namespace {

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

std::string devices_cell(const std::vector<NcclNetDevice>& devs) {
  std::vector<std::string> out;
  for (const auto& d : devs) {
    std::string s = d.name;
    if (d.port) s += ":" + std::to_string(*d.port);
    if (!d.link.empty()) s += "/" + d.link;
    out.push_back(s);
  }
  return or_dash(join(out, " "));
}

std::string gdr_cell(const NcclHostLog& h) {
  std::vector<std::string> out;
  for (const auto& [hca, g] : h.gdr) {
    bool on = g.used_in_channels || (g.enabled && *g.enabled);
    out.push_back(hca + (on ? " on" : g.enabled ? " off" : " ?"));
  }
  return or_dash(join(out, " "));
}

Section hosts_section(const NcclLogImport& imp) {
  Section s;
  s.title = "NCCL per host";
  Table t;
  t.columns = {"host", "NCCL", "procs", "data transport", "NET/IB devices", "sockets", "GDR", "WARN"};
  t.align = {Align::kLeft, Align::kLeft, Align::kRight, Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight};
  for (const auto& h : imp.hosts) {
    std::string transport = nccl_data_transport(h);
    t.rows.push_back({h.host.empty() ? "(no host)" : h.host, or_dash(h.version), std::to_string(h.processes.size()),
                      transport.empty() ? "not in the log" : transport, devices_cell(h.ib_devices),
                      devices_cell(h.socket_devices), gdr_cell(h), std::to_string(h.warns)});
  }
  t.notes.push_back("data transport: from \"via NET/...\" channel lines, else \"Using network\", else the NET/IB list; "
                    "a NET/Socket list next to NET/IB is bootstrap, not a fallback");
  s.tables.push_back(std::move(t));
  for (const auto& [k, v] : imp.settings) s.fields.emplace_back(k, v.first);
  return s;
}

}  // namespace

Result<ImportOutput> read_import_nccl_log(const ImportFileOptions& o) {
  auto lines = open_input_lines(o.file);
  if (!lines) return lines.error();
  auto imp = import_nccl_log(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();

  ImportOutput out;
  Envelope& env = out.env;
  env = make_envelope("fabdiag.nccllog/1");
  env.hosts.clear();  // the hosts of the job, not this one
  for (const auto& h : imp->hosts)
    if (!h.host.empty()) env.hosts.push_back(h.host);
  env.params = {{"importer", "nccl-log"}, {"file", o.file}};
  env.data = nccl_log_data(*imp);
  env.findings = nccl_log_findings(*imp);
  env.errors = imp->gaps;
  cap_findings(env.findings, o.max_findings);

  out.doc.title = "fabdiag import nccl-log " + o.file;
  out.doc.sections.push_back(hosts_section(*imp));
  return out;
}

}  // namespace fabdiag::cmd
