// The node checks that read the PCIe tree, the rails and the GPUDirect RDMA verdict
// (docs/accept.md#what-each-check-reads); node_checks() (accept/evaluate.h) calls them.
#pragma once

#include <string>
#include <vector>

#include "accept/evaluate.h"

namespace fabdiag::accept {

/// "pcie_gen:KIND" (GT/s per lane) and "pcie_width:KIND" (lanes) for the devices of `kind`
/// ("gpu", "nic"), from topo devices[].pcie, else check facts.pcie_links. Width: the
/// negotiated width of every device, >= spec. Generation: NICs their current speed; GPUs the
/// link's capability (the lower max of the two ends), since a GPU lowers its speed when idle
/// (its current speed is shown as evidence). Only the members the spec gives are checked.
std::vector<CheckResult> pcie_checks(const HostInputs& h, const std::string& kind, const PcieSpec& spec);

/// "rails": the most GPUs that share one local RDMA NIC (topo data.rails), <= gpus_per_nic; a
/// GPU with no local NIC (worse than PXB) fails. Not checked when `so_far` has a failed
/// nic_count (a missing NIC is that check's failure, not a rail design fault) or no GPU is known.
CheckResult rails_check(const HostInputs& h, int gpus_per_nic, const std::vector<CheckResult>& so_far);

/// "gdr": the gpudirect_rdma check of fabdiag.check/1 (peer-memory module and driver):
/// pass = 1, problems = fail; n/a, unknown and not checked = not_checked with its summary.
CheckResult gdr_check(const HostInputs& h);

}  // namespace fabdiag::accept
