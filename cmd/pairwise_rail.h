// `pairwise --backend nccl --rail N`: the pair test of one rail. Every rank (one per node)
// drives CUDA device N, and its node's topology (discover_topology over --sysfs-root, rails as
// probes/topo/rails.h computes them) says which GPU that is (matched by the PCI bus id
// libcudart reports, cudaGetDeviceProperties) and which RDMA NIC is that GPU's rail (its closest
// NIC, PXB or better). The pairs then exchange between the GPUs of rail N of every node; NCCL
// picks its NIC by the same topology, and nccl_transport (cmd/nccl_info_capture.h) says which
// HCA it used.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cmd/common.h"
#include "core/fs_root.h"
#include "core/result.h"
#include "perf/comm.h"

namespace fabdiag::cmd {

/// Largest --rail (GPUs per node).
inline constexpr int kMaxRail = 63;

/// One end of rail `rail`: {rank, host, rail, gpu (CUDA device), pci_bdf (the bus id of
/// `device`, as libcudart reports it), topology_gpu ("GPU2"; null when no GPU of the topology
/// has that bus id), nic ("NIC2"; null when the GPU has no local RDMA NIC), ibdev, netdevs[],
/// relation ("PIX", "PXB", ...; null when unknown), note (why a member is null, "" otherwise)}.
/// Reads sysfs under `fs` (never fails: what it cannot find is null with the note).
nlohmann::json rail_end_json(const FsRoot& fs, int rail, int rank, const std::string& host,
                             const perf::Comm::DeviceInfo& device);

/// rail_end_json() of `comm`'s rank on the topology of --sysfs-root (GlobalOptions), or
/// {rank, rail, note} naming why that tree cannot be read.
nlohmann::json local_rail_end(const GlobalOptions& g, perf::Comm& comm, int rail);

/// "GPU0 (CUDA 0, 0000:03:00) -> NIC0 mlx5_0 (PIX)", or the note when the NIC is unknown.
std::string rail_end_text(const nlohmann::json& end);

/// Collective over `world`: every rank's `mine` (rail_end_json) gathered on rank 0 as
/// {rail, ends: [... by rank]}; null on the other ranks, and on every rank when `mine` is null
/// (no --rail: then nothing is exchanged). Errors: Comm::gather_strings'.
Result<nlohmann::json> gather_rail(perf::Comm& world, const nlohmann::json& mine, int rail);

}  // namespace fabdiag::cmd
