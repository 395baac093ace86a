// The offline walk of `fabdiag triage --from`: the findings that readers made of collected
// files (NCCL logs, counters, port state, syslog, ...) joined per host into one verdict: causes
// that many hosts share (systemic: a setting, a fabric-wide problem) told apart from the hosts
// that stand out (suspects, each with the chain of evidence of every layer), and the findings
// that name no host (a switch port) kept as fabric findings.
#pragma once

#include <string>
#include <vector>

#include "core/finding.h"

namespace fabdiag::triage {

/// One finding and the host it concerns ("" = none known).
struct HostedFinding {
  Finding finding;
  std::string host;
};

/// A cause shared by many hosts: one finding code at warn or above on `hosts`.
struct SystemicCause {
  std::string code;                ///< The finding code ("nccl_ib_disabled").
  Severity severity = Severity::kWarn;  ///< Worst severity among its findings.
  Layer layer = Layer::kApplication;
  std::vector<std::string> hosts;  ///< The hosts that show it, sorted.
  size_t of_hosts = 0;             ///< Hosts with data in the input.
  std::string message;             ///< The first finding's message, as an example.
  std::string action;
};

/// A host that stands out: its findings at warn or above that are not systemic.
struct OfflineSuspect {
  std::string host;
  Severity severity = Severity::kWarn;  ///< Worst of its findings.
  std::vector<Layer> layers;            ///< Distinct layers of its findings, deepest last.
  std::vector<Finding> findings;        ///< Worst first.
  std::string action;                   ///< The action of its worst finding.
};

/// The verdict over everything read.
struct OfflineVerdict {
  std::vector<std::string> hosts;          ///< Every host with data, sorted.
  std::vector<SystemicCause> systemic;     ///< Most hosts first.
  std::vector<OfflineSuspect> suspects;    ///< Worst first: severity, then layers, then count.
  std::vector<Finding> fabric;             ///< Warn or worse findings that name no host (switch ports).
  std::vector<std::string> cleared;        ///< Hosts with data and nothing at warn or above.
  std::vector<std::string> not_judged;     ///< Hosts named by folders whose files could not be read (set by the caller).
};

/// Joins `findings` into a verdict. `hosts` are the hosts with data (findings' hosts are added).
/// A code at warn or above is systemic when at least 3 hosts show it and they are at least
/// half of the hosts with data, or when every host of 2 or more shows it ("3 of 5 hosts",
/// "2 of 2"); "1 of 64" is a suspect. Suspects are ordered by worst severity, then the number
/// of layers with evidence (a host whose NCCL, port and syslog all point at it comes first),
/// then the number of findings.
OfflineVerdict judge_offline(const std::vector<HostedFinding>& findings, std::vector<std::string> hosts);

/// The host a finding concerns, from its subject: the first word ("node05 mlx5_0 port 1",
/// "node05: ...", "node05") when it is one of `known_hosts`, or when it is a host name (RFC
/// 1123, with a letter) followed by more words and not a word our subjects start with
/// ("optics ens1f0np0", "unnamed device ..."); "" otherwise ("mlx5_0/1", "0000:9c:00.0", a
/// switch's "MF0;sw01:SX6036/U1 port 5", a node GUID "0x0002c90300000001 all ports").
std::string host_of_subject(const std::string& subject, const std::vector<std::string>& known_hosts);

}  // namespace fabdiag::triage
