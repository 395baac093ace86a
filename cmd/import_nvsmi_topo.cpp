// `fabdiag import nvidia-smi-topo FILE`: a saved `nvidia-smi topo -m` -> one fabdiag.topo/1
// envelope with the same data (matrix, affinity, NIC legend, rails) as `fabdiag topo`; the
// import (report, rails, findings) is import/nvsmi_topo.h's, the document cmd/topo_document.h's.
#include "cmd/commands.h"
#include "cmd/input.h"
#include "cmd/topo_document.h"
#include "import/nvsmi_topo.h"
#include "probes/topo/topology_json.h"

namespace fabdiag::cmd {

int run_import_nvsmi_topo(const GlobalOptions& g, const ImportNvsmiTopoOptions& o) {
  auto text = read_input(o.file);
  if (!text) return fail_input(text.error());
  auto imp = import_nvsmi_topo(*text, o.file);
  if (!imp) return fail_input(imp.error());

  Envelope env = topo_envelope(imp->report, imp->rails, imp->findings);
  env.hosts.clear();  // the matrix comes from the node the output was saved on, not this one
  env.params = {{"importer", "nvidia-smi-topo"}, {"file", o.file}};

  TopoView view;
  view.title = "fabdiag import nvidia-smi-topo " + o.file;
  view.pcie_links = false;
  return emit(g, env, topo_document(imp->report, imp->rails, view));
}

}  // namespace fabdiag::cmd
