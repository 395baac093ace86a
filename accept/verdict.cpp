// The verdict of an acceptance run: judging one row, the node roll-up, the fabdiag.accept/1
// data, the findings of the failed checks and the exit code (accept/evaluate.h).
#include <algorithm>
#include <cmath>

#include "accept/check_builders.h"

namespace fabdiag::accept {

const char* to_string(Status s) {
  switch (s) {
    case Status::kPass: return "pass";
    case Status::kFail: return "fail";
    case Status::kNotChecked: return "not_checked";
  }
  return "not_checked";
}

void judge(CheckResult& c, const std::string& kind) {
  if (!c.measured || !c.expected) {
    c.status = Status::kNotChecked;
    c.margin_pct.reset();
    if (c.reason.empty()) c.reason = !c.measured ? "not measured" : "no expectation";
    return;
  }
  const double m = *c.measured, e = *c.expected;
  const double eps = 1e-9 * std::max(1.0, std::fabs(e));
  bool ok = kind == ">=" ? m >= e - eps : kind == "<=" ? m <= e + eps : std::fabs(m - e) <= eps;
  c.status = ok ? Status::kPass : Status::kFail;
  if (e != 0) c.margin_pct = (kind == "<=" ? (e - m) : kind == ">=" ? (m - e) : -std::fabs(m - e)) / std::fabs(e) * 100.0;
  else c.margin_pct.reset();
}

Verdict evaluate(const Spec& spec, const Inputs& in) {
  Verdict v;
  for (const auto& h : in.hosts)
    for (auto& c : node_checks(spec.node, h)) v.checks.push_back(std::move(c));
  for (auto& c : delivery_checks(spec, in)) v.checks.push_back(std::move(c));
  std::vector<std::string> hosts;
  for (const auto& h : in.hosts) hosts.push_back(h.host);
  for (const auto& c : v.checks)
    if (c.scope == "node" && std::find(hosts.begin(), hosts.end(), c.subject) == hosts.end()) hosts.push_back(c.subject);
  for (const auto& host : hosts) {
    NodeStatus n{host, Status::kPass};
    for (const auto& c : v.checks) {
      if (c.scope != "node" || c.subject != host) continue;
      if (c.status == Status::kFail) n.status = Status::kFail;
      else if (c.status == Status::kNotChecked && n.status == Status::kPass) n.status = Status::kNotChecked;
    }
    v.nodes.push_back(n);
  }
  for (const auto& c : v.checks) (c.status == Status::kPass ? v.pass : c.status == Status::kFail ? v.fail : v.not_checked)++;
  return v;
}

namespace {

nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

Layer layer_of(const std::string& check) {
  if (check.rfind("busbw:", 0) == 0) return Layer::kCollective;
  if (check.rfind("pair_bandwidth", 0) == 0) return Layer::kLocalization;
  if (check == "gdr") return Layer::kApplication;
  return Layer::kPhysical;
}

}  // namespace

nlohmann::json verdict_json(const Verdict& v, const Spec& spec) {
  nlohmann::json d;
  d["spec"] = {{"file", spec.file}, {"name", spec.name}, {"efficiency", spec.deliver.efficiency}};
  d["summary"] = {{"pass", v.pass}, {"fail", v.fail}, {"not_checked", v.not_checked}};
  d["nodes"] = nlohmann::json::array();
  for (const auto& n : v.nodes) d["nodes"].push_back({{"host", n.host}, {"status", to_string(n.status)}});
  d["checks"] = nlohmann::json::array();
  for (const auto& c : v.checks)
    d["checks"].push_back({{"scope", c.scope},          {"subject", c.subject},   {"check", c.check},
                           {"status", to_string(c.status)}, {"measured", opt(c.measured)}, {"expected", opt(c.expected)},
                           {"unit", c.unit},            {"margin_pct", opt(c.margin_pct)}, {"evidence", c.evidence},
                           {"reason", c.reason}});
  return d;
}

std::vector<Finding> verdict_findings(const Verdict& v) {
  std::vector<Finding> out;
  for (const auto& c : v.checks) {
    if (c.status != Status::kFail) continue;
    Finding f;
    f.severity = Severity::kError;
    f.layer = layer_of(c.check);
    f.code = "accept_" + c.check.substr(0, c.check.find(':'));
    f.subject = c.subject;
    f.message = c.check + " failed on " + c.subject + ": measured " + show_value(c.measured, c.unit) + ", expected " +
                show_value(c.expected, c.unit) +
                (c.reason.empty() ? "" : " (" + c.reason + ")");
    f.evidence = c.evidence;
    f.action = "Fix or replace what the evidence names, then re-run `fabdiag accept` (docs/accept.md#what-each-check-reads)";
    out.push_back(std::move(f));
  }
  return out;
}

int verdict_exit_code(const Verdict& v) {
  if (v.fail > 0) return 1;
  if (v.not_checked > 0) return 4;
  return 0;
}

}  // namespace fabdiag::accept
