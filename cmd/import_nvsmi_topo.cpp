// `fabdiag import nvidia-smi-topo FILE`: a saved `nvidia-smi topo -m` -> one fabdiag.topo/1
// envelope with the same data (matrix, affinity, NIC legend, rails) as `fabdiag topo`.
#include "cmd/commands.h"
#include "cmd/input.h"
#include "cmd/topo_document.h"
#include "import/nvsmi_topo.h"
#include "probes/topo/rails.h"
#include "probes/topo/topology_json.h"

namespace fabdiag::cmd {

int run_import_nvsmi_topo(const GlobalOptions& g, const ImportNvsmiTopoOptions& o) {
  auto text = read_input(o.file);
  if (!text) return fail_input(text.error());
  auto parsed = parse_nvsmi_topo(*text, o.file);
  if (!parsed) return fail_input(parsed.error());
  TopologyReport report = nvsmi_topo_to_report(*parsed, o.file);
  Rails rails = compute_rails(report);

  Envelope env = topo_envelope(report, rails, judge_rails(rails, report, "nvidia-smi topo -m (" + o.file + ")"));
  env.hosts.clear();  // the matrix comes from the node the output was saved on, not this one
  env.params = {{"importer", "nvidia-smi-topo"}, {"file", o.file}};

  TopoView view;
  view.title = "fabdiag import nvidia-smi-topo " + o.file;
  view.pcie_links = false;
  return emit(g, env, topo_document(report, rails, view));
}

}  // namespace fabdiag::cmd
