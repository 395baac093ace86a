// Rails: which RDMA NIC each GPU should send through, from the topology matrix. NCCL uses
// GPUDirect RDMA only when the GPU-NIC path is at most PXB (NCCL_NET_GDR_LEVEL default,
// docs/domain.md#gpu-and-nic-topology), so:
//   - a GPU's closest NICs are the RDMA NICs with its best PCIe relation (X < PIX < PXB < PHB <
//     NODE < SYS; NVLink cells do not apply to NICs); "local" = PXB or better;
//   - GPUs and their local closest NICs form groups (connected components of the GPU-NIC
//     graph); a group with more GPUs than NICs shares NICs: when its GPUs send at once each
//     gets NICs/GPUs of a NIC (case 011: two GPUs per PXB NIC);
//   - a NIC worse than PXB to every GPU is close to no GPU (frontend/storage, or misplaced).
// These feed the expected bandwidth later. PXB itself is the normal GPU-NIC path through a
// PCIe switch, never a fault.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/finding.h"
#include "probes/topo/pcie_path.h"
#include "probes/topo/topology.h"

namespace fabdiag {

/// The rail of one GPU.
struct GpuRail {
  std::string gpu;                        ///< "GPU0".
  bool known = true;                      ///< false: no GPU-NIC cell of this GPU is known.
  PcieLevel relation = PcieLevel::kUnknown;  ///< Best relation to an RDMA NIC.
  std::vector<std::string> closest_nics;  ///< NICs at `relation` (all of them, in NIC order).
  std::vector<std::string> shares_with;   ///< Other GPUs of its group when the group shares NICs.
};

/// GPUs that share the local NICs of their group (#gpus > #nics).
struct SharedNicGroup {
  std::vector<std::string> gpus;
  std::vector<std::string> nics;
  PcieLevel relation = PcieLevel::kUnknown;  ///< Worst relation inside the group.
};

/// Rails of a node.
struct Rails {
  std::vector<std::string> rdma_nics;        ///< NICs considered (TopoDevice::rdma).
  std::vector<GpuRail> gpus;                 ///< One per GPU, in matrix order.
  std::vector<std::string> far_nics;         ///< RDMA NICs worse than PXB to every known GPU.
  std::vector<std::string> unknown_gpus;     ///< GPUs whose NIC relations are all unknown.
  std::vector<SharedNicGroup> shared;        ///< Groups whose GPUs share NICs.
  std::vector<std::string> gpus_without_local_nic;  ///< Known GPUs whose best NIC is worse than PXB.
};

/// Computes the rails from report.devices and report.matrix (missing and N/A cells are
/// unknown, never guessed). No GPU or no RDMA NIC: every list is empty except rdma_nics/gpus.
Rails compute_rails(const TopologyReport& report);

/// Findings (layer L4, topology, not hardware faults):
///  - "nic_shared_by_gpus" per shared group (subject: its NICs): info when every RDMA NIC of the
///    node is GPU-local (fewer NICs than GPUs is a design choice, e.g. 8 GPUs on 4 NICs), warn
///    when the node also has RDMA NICs close to no GPU (far_nics), which could have given the
///    sharing GPUs a NIC of their own (mis-slotted, or NCCL may pick the far ones);
///  - warn "gpu_without_local_nic" per GPU whose best RDMA NIC is PHB or worse (no GDR by
///    default; traffic crosses the host bridge or the CPU interconnect);
///  - info "nic_far_from_gpus" per far NIC ("leave it out of NCCL_IB_HCA or confirm it is a
///    frontend/storage NIC").
/// `source` names where the matrix came from (evidence source).
std::vector<Finding> judge_rails(const Rails& rails, const TopologyReport& report, const std::string& source);

/// data.rails of the topo envelope:
/// { rdma_nics: ["NIC0"..], gpus: [ {gpu, known, relation: "PXB"|null, closest_nics: [],
///   shares_with: []} ], far_nics: [], unknown_gpus: [], gpus_without_local_nic: [],
///   shared: [ {gpus: [], nics: [], relation} ] }
nlohmann::json rails_to_json(const Rails& rails);

}  // namespace fabdiag
