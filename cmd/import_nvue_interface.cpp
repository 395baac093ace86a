// `fabdiag import nvue-interface FILE`: Cumulus Linux NVUE `nv show interface` counters,
// link stats, link phy-detail and --view=counters (text or -o json) -> one fabdiag.nvue/1
// envelope (import/nvue_interface.h, docs/fabric.md#cumulus-nvue-interface-counters).
#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "import/nvue_interface.h"
#include "import/switch_counters.h"

namespace fabdiag::cmd {

namespace {

std::string count_cell(const NvuePort& p, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (auto it = p.counts.find(k); it != p.counts.end()) return std::to_string(it->second);
  return "-";
}

std::string worst_ber_cell(const NvuePort& p, const std::string& prefix) {
  double w = -1;
  for (const auto& [k, v] : p.bers)
    if (k.rfind(prefix, 0) == 0 && v > w) w = v;
  return w < 0 ? "-" : format_g3(w);
}

Section ports_section(const NvueImport& imp) {
  Section s;
  s.title = "Switch ports (Cumulus NVUE, " + imp.format + ")";
  for (const auto& c : imp.commands) s.fields.emplace_back("command", c);
  Table t;
  t.columns = {"port", "state", "carrier transitions", "in errors", "out errors", "in drops", "out drops",
               "effective errors", "raw BER (worst)", "effective BER"};
  t.align.assign(t.columns.size(), Align::kRight);
  t.align[0] = Align::kLeft;
  for (const auto& p : imp.ports)
    t.rows.push_back({switch_port_subject(p.host, p.port), p.state.empty() ? "-" : p.state,
                      count_cell(p, {"carrier-transitions"}), count_cell(p, {"in-errors", "Total Errors rx", "RX_ERR"}),
                      count_cell(p, {"out-errors", "Total Errors tx", "TX_ERR"}),
                      count_cell(p, {"in-drops", "Total Drops rx", "RX_DRP"}),
                      count_cell(p, {"out-drops", "Total Drops tx", "TX_DRP"}), count_cell(p, {"effective-errors"}),
                      worst_ber_cell(p, "raw-ber"), worst_ber_cell(p, "effective-ber")});
  t.notes.push_back("totals since boot or the last clear; '-' is a value the output did not give (unknown, not zero)");
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ImportOutput> read_nvue_interface(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kNvueInterface);
  if (!lines) return lines.error();
  auto imp = import_nvue_interface(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();
  ImportOutput out = reader_output(o, "nvue-interface", "fabdiag.nvue/1", nvue_interface_data(*imp),
                                   nvue_interface_findings(*imp), imp->gaps);
  out.env.hosts.clear();  // a switch's counters, not this host's
  out.doc.sections.push_back(ports_section(*imp));
  return out;
}

}  // namespace fabdiag::cmd
