// `fabdiag import ibnetdiscover FILE`: infiniband-diags' ibnetdiscover (plain or -p) -> one
// fabdiag.ibfabric/1 envelope (the fabric graph; import/ibnetdiscover.h, docs/fabric.md#ibnetdiscover).
#include "cmd/import_reader_input.h"
#include "cmd/import_readers.h"
#include "core/repeats.h"
#include "core/text.h"
#include "import/ibnetdiscover.h"

namespace fabdiag::cmd {

namespace {

std::string str(const nlohmann::json& j) {
  if (j.is_null()) return "-";
  return j.is_string() ? j.get<std::string>() : j.dump();
}

Section fabric_section(const IbnetImport& imp, const nlohmann::json& data) {
  Section s;
  s.title = "InfiniBand fabric (ibnetdiscover, " + imp.format + ")";
  s.fields.emplace_back("switches", std::to_string(data["switches"].size()));
  s.fields.emplace_back("CAs", std::to_string(data["cas"].size()));
  s.fields.emplace_back("links", std::to_string(imp.links.size()));
  Table sw;
  sw.columns = {"switch", "guid", "lid", "role", "hosts", "uplinks (switch: links)"};
  sw.align = {Align::kLeft, Align::kLeft, Align::kRight, Align::kLeft, Align::kRight, Align::kLeft};
  for (const auto& j : data["switches"]) {
    std::vector<std::string> up;
    for (const auto& u : j["uplinks"]) up.push_back(str(u["desc"]) + ": " + str(u["links"]));
    sw.rows.push_back({str(j["desc"]), str(j["guid"]), str(j["lid"]), str(j["role"]), std::to_string(j["hcas"].size()),
                       up.empty() ? "-" : join(up, ", ")});
  }
  s.tables.push_back(std::move(sw));
  Table links;
  links.columns = {"end A", "port", "end B", "port", "kind", "width", "speed"};
  links.align = {Align::kLeft, Align::kRight, Align::kLeft, Align::kRight, Align::kLeft, Align::kRight, Align::kLeft};
  for (const auto& j : data["links"])
    links.rows.push_back({str(j["a"]["desc"]), str(j["a"]["port"]), str(j["b"]["desc"]), str(j["b"]["port"]),
                          str(j["kind"]), j["lanes"].is_null() ? "-" : str(j["lanes"]) + "x", str(j["speed"])});
  s.tables.push_back(std::move(links));
  return s;
}

}  // namespace

Result<ImportOutput> read_ibnetdiscover(const ImportFileOptions& o) {
  auto lines = open_reader_input(o.file, ToolText::kIbnetdiscover);
  if (!lines) return lines.error();
  auto imp = import_ibnetdiscover(**lines, o.file, ReadLimits{o.max_findings});
  if (!imp) return imp.error();

  ImportOutput out;
  out.env = make_envelope("fabdiag.ibfabric/1");
  out.env.params = {{"importer", "ibnetdiscover"}, {"file", o.file}};
  out.env.data = ibnetdiscover_data(*imp);
  out.env.findings = ibnetdiscover_findings(*imp);
  out.env.errors = imp->gaps;
  cap_findings(out.env.findings, o.max_findings);
  cap_errors(out.env.errors, o.max_findings);
  out.doc.title = "fabdiag import ibnetdiscover " + o.file;
  out.doc.sections.push_back(fabric_section(*imp, out.env.data));
  return out;
}

}  // namespace fabdiag::cmd
