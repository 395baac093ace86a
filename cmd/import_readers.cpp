// The rows of the `fabdiag import` reader registry (cmd/import_readers.h).
#include "cmd/import_readers.h"

#include "cmd/common.h"
#include "cmd/input.h"

#include <vector>

namespace fabdiag::cmd {

// The read functions, each in its cmd/import_<format>.cpp (declared here: only this table
// calls them).
Result<ImportOutput> read_import_nvsmi_topo(const ImportFileOptions& o);
Result<ImportOutput> read_import_nccl_log(const ImportFileOptions& o);

std::span<const ImportReader> import_readers() {
  // {name, ToolText, help, footer, read}: one row per format.
  static const std::vector<ImportReader> readers = {
      {"nvidia-smi-topo", ToolText::kNvsmiTopo,
       "`nvidia-smi topo -m` output -> fabdiag.topo/1 (matrix, affinity, NIC legend, rails)",
       "Space or tab separated. Rows cut off or truncated, no NIC rows, no legend are tolerated: those\n"
       "cells stay unknown.\n"
       "Exit codes: 0 ok, 1 rails findings (warn or worse: NICs shared by GPUs, GPU without a local\n"
       "NIC), 2 FILE unreadable or without a matrix, 4 rows missing or truncated.",
       read_import_nvsmi_topo},
      {"nccl-log", ToolText::kNcclLog,
       "NCCL_DEBUG=INFO/WARN log -> fabdiag.nccllog/1 (per host: version, data transport, GPUDirect "
       "RDMA, settings, WARN lines)",
       "Any NCCL since 2.4; hosts interleaved, mpirun tags allowed. A NET/Socket list next to NET/IB\n"
       "is bootstrap, not a fallback.\n"
       "Exit codes: 0 nothing wrong, 1 a warn/error/critical finding, 2 FILE missing or\n"
       "without an NCCL line, 4 a cut last line or unreadable part (listed under errors).",
       read_import_nccl_log},
  };
  return readers;
}

const ImportReader* import_reader_for(ToolText tool) {
  for (const auto& r : import_readers())
    if (r.tool == tool) return &r;
  return nullptr;
}

int run_import_reader(const GlobalOptions& g, const ImportReader& r, const ImportFileOptions& o) {
  auto out = r.read(o);
  if (!out) return fail_input(out.error());
  return emit(g, out->env, out->doc);
}

}  // namespace fabdiag::cmd
