// `fabdiag import sonic-interface-counters FILE`: SONiC `show interfaces counters` (and its
// errors / rates / fec-stats / detailed forms) -> one fabdiag.switchports/1 envelope
// (import/sonic_intf_counters.h, docs/fabric.md#sonic-show-interfaces-counters).

#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "import/sonic_intf_counters.h"
#include "import/switch_counters.h"

namespace fabdiag::cmd {

namespace {

std::string cell(const SonicIntfPort& p, const char* name) {
  auto it = p.counters.find(name);
  return it == p.counters.end() ? "-" : std::to_string(it->second.last);
}

std::string rate_cell(const SonicIntfPort& p, const char* name) {
  auto it = p.rates.find(name);
  return it == p.rates.end() ? "-" : format_g3(it->second);
}

Section ports_section(const SonicIntfImport& imp) {
  Section s;
  s.title = "Switch ports (SONiC show interfaces counters)";
  if (imp.period_s) s.fields.emplace_back("counts over", std::to_string(*imp.period_s) + " s");
  else s.fields.emplace_back("counts", imp.cached_time.empty() ? "totals since boot or clear" : "since " + imp.cached_time);
  s.fields.emplace_back("read", std::to_string(imp.tables) + " table(s), " + std::to_string(imp.detailed_blocks) +
                                    " detailed block(s)");
  Table t;
  t.columns = {"port", "state", "RX_OK", "RX_ERR", "RX_DRP", "RX_OVR", "TX_OK", "TX_ERR", "TX_DRP", "TX_OVR",
               "FEC_UNCORR", "FEC_PRE_BER", "FEC_POST_BER"};
  t.align.assign(t.columns.size(), Align::kRight);
  t.align[0] = Align::kLeft;
  for (const auto& p : imp.ports)
    t.rows.push_back({switch_port_subject(p.host, p.port), p.state.empty() ? "-" : p.state, cell(p, "RX_OK"),
                      cell(p, "RX_ERR"), cell(p, "RX_DRP"), cell(p, "RX_OVR"), cell(p, "TX_OK"), cell(p, "TX_ERR"),
                      cell(p, "TX_DRP"), cell(p, "TX_OVR"), cell(p, "FEC_UNCORR"), rate_cell(p, "FEC_PRE_BER"),
                      rate_cell(p, "FEC_POST_BER")});
  t.notes.push_back("the last table's counts; '-' is a column no table gave or N/A (unknown, not zero); state U up, "
                    "D oper down, X admin down");
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_sonic_intf_counters(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kSonicIntfCounters);
  if (!lines) return lines.error();
  auto imp = import_sonic_intf_counters(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();
  ImportOutput out = reader_output(o, "sonic-interface-counters", "fabdiag.switchports/1",
                                   sonic_intf_counters_data(*imp), sonic_intf_counters_findings(*imp), imp->gaps);
  out.env.hosts.clear();  // a switch's counters, not this host's
  out.doc.sections.push_back(ports_section(*imp));
  return out;
}

}  // namespace fabdiag::cmd
