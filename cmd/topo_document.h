// The person-readable view of a TopologyReport, shared by `fabdiag topo` and `fabdiag import
// nvidia-smi-topo`: the matrix with CPU/NUMA affinity and GPU NUMA ID columns, the legends,
// NVLink per GPU, rails, PCIe links and (with --against) the drift summary.
#pragma once

#include <optional>
#include <string>

#include "probes/topo/rails.h"
#include "probes/topo/topology.h"
#include "probes/topo/topology_drift.h"
#include "report/document.h"

namespace fabdiag::cmd {

/// What the document shows besides the report itself.
struct TopoView {
  std::string title = "fabdiag topo";
  std::string empty_note;     ///< Line shown instead of the matrix when there is no device.
  bool pcie_links = true;     ///< Show the PCIe link table (not for imported matrices).
  const TopologyDrift* drift = nullptr;  ///< Drift summary, when --against was given.
  std::string drift_baseline;            ///< Its file.
};

/// Builds the document. Rows of devices whose whole row is missing (an imported matrix cut
/// off) are not printed; a note names them.
Document topo_document(const TopologyReport& r, const Rails& rails, const TopoView& view);

}  // namespace fabdiag::cmd
