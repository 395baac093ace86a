// `fabdiag check`: runs every host data-path rule over one HostFacts and says, per check,
// whether it passed, found problems, could not tell, does not apply, or had no facts to look at.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/finding.h"
#include "probes/check/check_model.h"
#include "rules/check_port_rules.h"

namespace fabdiag {

/// Outcome of one check.
enum class CheckStatus {
  kPass,           ///< Checked; nothing at warn or above.
  kProblems,       ///< At least one finding at warn or above.
  kUnknown,        ///< The facts exist but do not decide it (ACS needs root, IOMMU mode unknown).
  kNotApplicable,  ///< Nothing to check here (no GPU, no RoCE port).
  kNotChecked,     ///< The input holds no facts for it (an lspci file has no RDMA ports).
};
/// "pass", "problems", "unknown", "n/a", "not checked".
const char* to_string(CheckStatus s);

/// One line of the check list.
struct CheckResult {
  std::string name;     ///< Stable id: "pcie_link", "acs", "aer", "gpudirect_rdma", "iommu",
                        ///< "port_state", "port_rate", "roce_mtu", "roce_gid", "ecn", "nccl_errors".
  std::string title;    ///< "PCIe link width/speed".
  CheckStatus status = CheckStatus::kNotChecked;
  std::string summary;  ///< What was looked at, e.g. "8 ports, 7 up".
  size_t findings = 0;  ///< Number of findings this check produced (any severity).
};

/// Options of a run.
struct CheckRunOptions {
  std::vector<RateExpectation> expect_rates;  ///< --expect-rate; empty = compare with peers only.
};

/// The verdict of one run.
struct CheckReport {
  std::vector<CheckResult> checks;
  std::vector<Finding> findings;  ///< In check order.
};

/// Runs every rule whose facts are present (see CheckResult::name for the order).
CheckReport run_checks(const HostFacts& facts, const CheckRunOptions& options);

/// How many checks have each status: pass, problems, unknown, n/a, not checked, in that order,
/// every status listed (0 included).
std::vector<std::pair<CheckStatus, size_t>> count_by_status(const std::vector<CheckResult>& checks);
/// The counts as one line: "10 checks: 2 pass, 1 problems, 0 unknown, 3 n/a, 4 not checked".
std::string status_summary(const std::vector<CheckResult>& checks);
/// The counts as JSON (`data.summary` of fabdiag.check/1): {"checks": 10, "pass": 2,
/// "problems": 1, "unknown": 0, "n/a": 3, "not checked": 4}.
nlohmann::json status_summary_json(const std::vector<CheckResult>& checks);

/// JSON: [{name, title, status, summary, findings}].
void to_json(nlohmann::json& j, const CheckResult& c);

}  // namespace fabdiag
