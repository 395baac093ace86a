// `fabdiag import lspci|ibstat|ibstatus|ibv-devinfo FILE`: a saved tool output -> the host facts
// model `fabdiag check --from` judges (fabdiag.hostfacts/1, built by import/host_formats.h),
// without judging it; rendered here.
#include <nlohmann/json.hpp>

#include "cmd/commands.h"
#include "cmd/input.h"
#include "core/exit_codes.h"
#include "import/host_formats.h"

namespace fabdiag::cmd {

namespace {

std::string opt_text(const std::optional<double>& v, const char* unit) {
  if (!v) return "?";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%s", *v, unit);
  return buf;
}

// What was parsed, one table per kind of fact: RDMA ports, PCIe links, ACS ports, NCCL
// completion errors.
Section parsed_section(const HostFacts& facts) {
  Section s;
  s.title = "parsed";
  if (facts.rdma_ports) {
    Table t;
    t.columns = {"PORT", "MODEL", "LINK", "STATE", "PHYS_STATE", "RATE", "SOURCE"};
    for (const auto& p : *facts.rdma_ports)
      t.rows.push_back({p.device, p.model.empty() ? "?" : p.model, p.link_layer.empty() ? "?" : p.link_layer,
                        p.state.empty() ? "?" : p.state, p.phys_state.empty() ? "?" : p.phys_state,
                        p.rate.empty() ? "?" : p.rate, p.source});
    s.tables.push_back(std::move(t));
  }
  if (facts.pcie_links && !facts.pcie_links->empty()) {
    Table t;
    t.columns = {"LINK", "SPEED NOW", "SPEED MAX", "WIDTH NOW", "WIDTH MAX", "UPSTREAM PORT"};
    for (const auto& l : *facts.pcie_links)
      t.rows.push_back({l.label, opt_text(l.link.current_speed_gts, " GT/s"), opt_text(l.link.max_speed_gts, " GT/s"),
                        l.link.current_width ? "x" + std::to_string(*l.link.current_width) : "?",
                        l.link.max_width ? "x" + std::to_string(*l.link.max_width) : "?",
                        l.parent_bdf.empty() ? "-" : l.parent_bdf});
    s.tables.push_back(std::move(t));
  }
  if (facts.acs_ports && !facts.acs_ports->empty()) {
    Table t;
    t.columns = {"ACS PORT", "CONTROL", "SOURCE"};
    for (const auto& p : *facts.acs_ports) t.rows.push_back({p.label, acs_control_text(p.control), p.source});
    s.tables.push_back(std::move(t));
  }
  if (!facts.wc_errors.empty()) {
    Table t;
    t.columns = {"NCCL COMPLETION ERROR", "STATUS", "SOURCE"};
    for (const auto& w : facts.wc_errors)
      t.rows.push_back({w.line, std::to_string(w.status) + " " + wc_status_name(w.status), w.source});
    s.tables.push_back(std::move(t));
  }
  return s;
}

}  // namespace

int run_import_host(const GlobalOptions& g, const ImportHostOptions& o) {
  auto format = parse_input_format(o.format);
  if (!format || *format == InputFormat::kAuto) {
    print_error("import: unknown format '" + o.format + "'");
    return kExitUsage;
  }
  auto opened = open_input_lines(o.file);
  if (!opened) return fail_input(opened.error());
  PeekedLineSource lines(std::move(*opened), 256);
  if (auto st = check_named_tool(tool_of(*format), lines.head(), o.file); !st) return fail_input(st.error());
  nlohmann::json listings = nlohmann::json::array();
  auto facts = import_host_facts(lines, o.file, *format, ReadLimits{o.max_findings},
                                 *format == InputFormat::kLspci ? &listings : nullptr);
  if (!facts) return fail_input(facts.error());

  Envelope env = make_envelope("fabdiag.hostfacts/1");
  env.hosts.clear();  // the file comes from another host
  env.params = {{"importer", o.format}, {"file", o.file}};
  env.data = host_facts_data(*facts, std::move(listings), *format);
  env.errors = facts->gaps;

  Document doc;
  doc.title = "fabdiag import " + o.format + " " + o.file;
  doc.sections.push_back(parsed_section(*facts));
  return emit(g, env, doc);
}

}  // namespace fabdiag::cmd
