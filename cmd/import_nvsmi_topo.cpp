// `fabdiag import nvidia-smi-topo FILE`: a saved `nvidia-smi topo -m` -> one fabdiag.topo/1
// envelope with the same data (matrix, affinity, NIC legend, rails) as `fabdiag topo`; the
// import (report, rails, findings) is import/nvsmi_topo.h's, the document cmd/topo_document.h's.
#include "cmd/commands.h"
#include "core/repeats.h"
#include "cmd/input.h"
#include "cmd/topo_document.h"
#include "import/nvsmi_topo.h"
#include "probes/topo/topology_json.h"

namespace fabdiag::cmd {

Result<ImportOutput> read_import_nvsmi_topo(const ImportFileOptions& o) {
  auto lines = open_input_lines(o.file);
  if (!lines) return lines.error();
  auto imp = import_nvsmi_topo(**lines, o.file);
  if (!imp) return imp.error();

  ImportOutput out;
  Envelope& env = out.env;
  env = topo_envelope(imp->report, imp->rails, imp->findings);
  cap_findings(env.findings, o.max_findings);
  env.hosts.clear();  // the matrix comes from the node the output was saved on, not this one
  env.params = {{"importer", "nvidia-smi-topo"}, {"file", o.file}};
  if (imp->matrices_replaced) env.data["matrices_replaced"] = imp->matrices_replaced;

  TopoView view;
  view.title = "fabdiag import nvidia-smi-topo " + o.file;
  view.pcie_links = false;
  out.doc = topo_document(imp->report, imp->rails, view);
  return out;
}

}  // namespace fabdiag::cmd
