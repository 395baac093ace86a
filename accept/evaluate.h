// The acceptance verdict: every spec item evaluated per node, per link and per check over the
// result documents of a run or of saved files (docs/accept.md#what-each-check-reads). A check
// whose input is missing is `not_checked` with the reason, never `pass`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "accept/spec.h"
#include "core/finding.h"

namespace fabdiag::accept {

/// One result document given to the evaluation: its `data` and where it came from.
struct Doc {
  std::string schema;  ///< "fabdiag.topo/1", "fabdiag.check/1", "fabdiag.counters/1", ...
  nlohmann::json data;
  std::string source;  ///< The file (or "live: fabdiag topo") it was read from.
};

/// The node documents of one host (the last one of each kind given wins).
struct HostInputs {
  std::string host;
  std::optional<Doc> topo;      ///< fabdiag.topo/1: GPUs, NICs, NVLinks, PCIe, rails, ports.
  std::optional<Doc> check;     ///< fabdiag.check/1: checks[] (gdr), facts.rdma_ports (rate, MTUs).
  std::optional<Doc> counters;  ///< fabdiag.counters/1 with deltas (two snapshots around the soak).
};

/// Everything evaluated.
struct Inputs {
  std::vector<HostInputs> hosts;  ///< In the order the hosts were first seen.
  std::vector<Doc> bench;         ///< fabdiag.bench/1 (one table each; imported tables[] split).
  std::vector<Doc> pairwise;      ///< fabdiag.pairwise/1.
};

/// Outcome of one check.
enum class Outcome { kPass, kFail, kNotChecked };
/// "pass", "fail", "not_checked".
const char* to_string(Outcome s);

/// One evaluated check (a row of data.checks[] of fabdiag.accept/1).
struct CheckResult {
  std::string scope;    ///< "node", "link" or "cluster".
  std::string subject;  ///< Host, "hostA<->hostB" for a link, the hosts of a cluster run.
  std::string check;    ///< "gpu_count", "pcie_width:nic", "busbw:all_reduce:1G", ...
  Outcome status = Outcome::kNotChecked;
  std::optional<double> measured;  ///< In `unit`; nullopt = not measured.
  std::optional<double> expected;  ///< In `unit`; nullopt = no expectation.
  std::string unit;                ///< "count", "lanes", "GT/s", "bits/s", "bytes/s", "bytes".
  std::optional<double> margin;      ///< Room to spare (+) or shortfall (-) in `unit`: 42 symbol errors over an allowance of 0 = -42.
  std::optional<double> margin_pct;  ///< `margin` in % of expected; nullopt when expected is 0.
  std::vector<Evidence> evidence;
  std::string reason;  ///< Why it failed or was not checked; how the expectation was made.
};

/// A node's overall status: fail if a node check of it failed, else not_checked if one could not
/// be checked, else pass.
struct NodeStatus {
  std::string host;
  Outcome status = Outcome::kPass;
};

/// A link's overall status (a pair "hostA<->hostB" or a port "host:mlx5_3/1"): fail if a link
/// check of it failed, else not_checked if one could not be checked, else pass.
struct LinkStatus {
  std::string link;
  Outcome status = Outcome::kPass;
};

/// The verdict.
struct Verdict {
  std::vector<NodeStatus> nodes;
  std::vector<LinkStatus> links;  ///< In the order their first check was made.
  std::vector<CheckResult> checks;
  int pass = 0, fail = 0, not_checked = 0;
};

/// Evaluates `spec` over `in`. Node checks need each host's topo/check/counters documents,
/// delivery checks the bench and pairwise documents (docs/accept.md#what-each-check-reads).
Verdict evaluate(const Spec& spec, const Inputs& in);

/// The node checks of one host (gpu_count ... gdr); evaluate() calls it for every host.
std::vector<CheckResult> node_checks(const NodeSpec& spec, const HostInputs& host);

/// The delivery checks: busbw floors, pair bandwidth (node medians and links), counter growth
/// (one link row per port, "HOST:DEVICE").
std::vector<CheckResult> delivery_checks(const Spec& spec, const Inputs& in);

/// `data` of fabdiag.accept/1: {spec {file, name, efficiency}, summary {pass, fail, not_checked},
/// nodes[] {host, status}, links[] {link, status}, checks[] {scope, subject, check, status, measured, expected, unit, margin, margin_pct,
/// evidence[], reason}}.
nlohmann::json verdict_json(const Verdict& v, const Spec& spec);

/// One finding per failed check (code "accept_<check name>", severity error, layer by check).
std::vector<Finding> verdict_findings(const Verdict& v);

/// Exit code of a verdict (README "Exit codes"): 1 when a check failed, else 4 when one could not
/// be checked or when nothing was judged at all (a spec that asks for nothing), else 0.
int verdict_exit_code(const Verdict& v);

/// A value for people: bytes/s as GB/s (1e9, as nccl-tests prints: "357.2 GB/s"), else the number
/// and its unit ("8 lanes"); "-" when not measured.
std::string value_text(const std::optional<double>& v, const std::string& unit);

/// The margin of `c` for people: "+11.6%", "-34.8%", or where there is no percentage (an
/// allowance of 0) the margin in its unit, "-42 count"; "-" when there is none.
std::string margin_text(const CheckResult& c);

/// Fills status, margin and margin_pct of `c` from measured and expected: `kind` is ">=" (a floor),
/// "<=" (a ceiling) or "==". Not measured or no expectation: not_checked (reason kept).
void judge(CheckResult& c, const std::string& kind);

}  // namespace fabdiag::accept
