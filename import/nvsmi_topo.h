// Importer for saved `nvidia-smi topo -m` output: the matrix, CPU/NUMA affinity columns and the
// NIC legend, into the same TopologyReport that `fabdiag topo` builds from sysfs, so saved
// outputs get the same rails analysis and JSON (fabdiag.topo/1).
//
// Accepted layouts: space-aligned or tab-separated; with or without the "CPU Affinity", "NUMA
// Affinity" and "GPU NUMA ID" columns (driver 535+ prints all three); device columns GPU<n>,
// NIC<n> or, in older drivers, the RDMA device names (mlx5_0); old relation names (SOC = SYS).
// Tolerated: text before the header (a prompt, the command), rows cut off (missing rows stay
// unknown and are never derived from the symmetric cell), truncated rows, no NIC rows, no
// legend, "N/A" cells, CRLF line ends.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/line_source.h"
#include "core/result.h"
#include "core/finding.h"
#include "probes/topo/rails.h"
#include "probes/topo/topology.h"

namespace fabdiag {

/// One matrix row as printed.
struct NvsmiTopoRow {
  std::string name;                ///< "GPU0".
  std::vector<std::string> cells;  ///< Relation codes in column order; fewer when truncated.
  std::string cpu_affinity;        ///< "24-31,88-95"; "" when absent or blank.
  std::string numa_affinity;       ///< "3", "N/A"; "" when absent.
  std::string gpu_numa_id;         ///< "N/A", "4"; "" when absent.
  size_t line = 0;                 ///< 1-based line number in the input.
};

/// A parsed `nvidia-smi topo -m` output.
struct NvsmiTopo {
  std::vector<std::string> columns;        ///< Device columns in order: "GPU0".."NIC5".
  std::vector<std::string> extra_columns;  ///< "CPU Affinity", "NUMA Affinity", "GPU NUMA ID" as present.
  std::vector<NvsmiTopoRow> rows;          ///< In input order.
  std::vector<std::pair<std::string, std::string>> nic_legend;  ///< ("NIC0", "mlx5_0").
  std::vector<Error> gaps;                 ///< Truncated or unreadable rows, missing rows.
  /// Matrices read before the last one: a header read again starts the matrix over, so the
  /// output of one host's `nvidia-smi topo -m` run many times is its last matrix.
  size_t matrices_replaced = 0;
};

/// True for a relation cell nvidia-smi prints: X, PIX, PXB, PHB, NODE, SYS, SOC, NV<n>, N/A.
bool is_nvsmi_relation(std::string_view token);

/// Parses the lines (streamed: only the matrix being read is held). `source` (the file name)
/// goes into errors. A matrix header read again starts the matrix over (the last one is kept,
/// counted in matrices_replaced; gaps of the earlier ones stay). Errors: kParse when no matrix
/// header (a line whose first field is GPU0, or NIC0 on GPU-less hosts, followed by device
/// names) is found; the read error of `lines`. Rows with problems become gaps; rows of devices
/// that are not columns are skipped with a gap.
Result<NvsmiTopo> parse_nvsmi_topo(LineSource& lines, const std::string& source);

/// The same over a text held in memory.
Result<NvsmiTopo> parse_nvsmi_topo(std::string_view text, const std::string& source);

/// The TopologyReport of a parsed output: one device per column (kind from the name: GPU<n>
/// = GPU, anything else = RDMA NIC; ibdev from the NIC legend, or the column name when it is an
/// RDMA device name), numa_node / local_cpulist / gpu_numa_id from the row's columns when
/// they are numbers or cpulists, cells from the rows (NV<n> = nvlink_links n, N/A = unknown,
/// cells of missing rows or beyond a truncated row = missing). NVLink is "known" (source
/// "nvidia-smi topo -m"). No PCI details (pci.bdf empty). The parse gaps are copied.
TopologyReport nvsmi_topo_to_report(const NvsmiTopo& topo, const std::string& source);

/// A saved `nvidia-smi topo -m` as `fabdiag topo` shows a node: the report
/// (nvsmi_topo_to_report()), its rails (compute_rails()) and their findings (judge_rails(), with
/// source "nvidia-smi topo -m (SOURCE)").
struct NvsmiTopoImport {
  TopologyReport report;
  Rails rails;
  std::vector<Finding> findings;
  size_t matrices_replaced = 0;  ///< NvsmiTopo::matrices_replaced.
};

/// Parses `lines` and builds the import above. Errors: those of parse_nvsmi_topo().
Result<NvsmiTopoImport> import_nvsmi_topo(LineSource& lines, const std::string& source);

/// The same over a text held in memory.
Result<NvsmiTopoImport> import_nvsmi_topo(std::string_view text, const std::string& source);

}  // namespace fabdiag
