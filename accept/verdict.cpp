// The verdict of an acceptance run: judging one row, the node roll-up, the fabdiag.accept/1
// data, the findings of the failed checks and the exit code (accept/evaluate.h).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "accept/check_builders.h"

namespace fabdiag::accept {

const char* to_string(Outcome s) {
  switch (s) {
    case Outcome::kPass: return "pass";
    case Outcome::kFail: return "fail";
    case Outcome::kNotChecked: return "not_checked";
  }
  return "not_checked";
}

std::string value_text(const std::optional<double>& v, const std::string& unit) {
  if (!v) return "-";
  char buf[64];
  if (unit == "bytes/s") std::snprintf(buf, sizeof buf, "%.4g GB/s", *v / 1e9);
  else std::snprintf(buf, sizeof buf, "%.6g%s%s", *v, unit.empty() ? "" : " ", unit.c_str());
  return buf;
}

std::string margin_text(const CheckResult& c) {
  char buf[64];
  if (c.margin_pct) std::snprintf(buf, sizeof buf, "%+.1f%%", *c.margin_pct);
  else if (c.margin) std::snprintf(buf, sizeof buf, "%+.6g%s%s", *c.margin, c.unit.empty() ? "" : " ", c.unit.c_str());
  else return "-";
  return buf;
}

void judge(CheckResult& c, const std::string& kind) {
  if (!c.measured || !c.expected) {
    c.status = Outcome::kNotChecked;
    c.margin.reset();
    c.margin_pct.reset();
    if (c.reason.empty()) c.reason = !c.measured ? "not measured" : "no expectation";
    return;
  }
  const double m = *c.measured, e = *c.expected;
  const double eps = 1e-9 * std::max(1.0, std::fabs(e));
  bool ok = kind == ">=" ? m >= e - eps : kind == "<=" ? m <= e + eps : std::fabs(m - e) <= eps;
  c.status = ok ? Outcome::kPass : Outcome::kFail;
  double margin = kind == "<=" ? (e - m) : kind == ">=" ? (m - e) : -std::fabs(m - e);
  if (margin == 0) margin = 0.0;  // an exact match is "+0", never "-0"
  c.margin = margin;
  if (e != 0) c.margin_pct = margin / std::fabs(e) * 100.0;
  else c.margin_pct.reset();
}

namespace {

// fail if a check of `subject` at `scope` failed, else not_checked if one was not checked, else pass.
Outcome rolled_up(const std::vector<CheckResult>& checks, const std::string& scope, const std::string& subject) {
  Outcome s = Outcome::kPass;
  for (const auto& c : checks) {
    if (c.scope != scope || c.subject != subject) continue;
    if (c.status == Outcome::kFail) return Outcome::kFail;
    if (c.status == Outcome::kNotChecked) s = Outcome::kNotChecked;
  }
  return s;
}

}  // namespace

Verdict evaluate(const Spec& spec, const Inputs& in) {
  Verdict v;
  for (const auto& h : in.hosts)
    for (auto& c : node_checks(spec.node, h)) v.checks.push_back(std::move(c));
  for (auto& c : delivery_checks(spec, in)) v.checks.push_back(std::move(c));
  std::vector<std::string> hosts;
  for (const auto& h : in.hosts) hosts.push_back(h.host);
  for (const auto& c : v.checks)
    if (c.scope == "node" && std::find(hosts.begin(), hosts.end(), c.subject) == hosts.end()) hosts.push_back(c.subject);
  for (const auto& host : hosts) v.nodes.push_back(NodeStatus{host, rolled_up(v.checks, "node", host)});
  std::vector<std::string> links;
  for (const auto& c : v.checks)
    if (c.scope == "link" && std::find(links.begin(), links.end(), c.subject) == links.end()) links.push_back(c.subject);
  for (const auto& link : links) v.links.push_back(LinkStatus{link, rolled_up(v.checks, "link", link)});
  for (const auto& c : v.checks) (c.status == Outcome::kPass ? v.pass : c.status == Outcome::kFail ? v.fail : v.not_checked)++;
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
  d["links"] = nlohmann::json::array();
  for (const auto& l : v.links) d["links"].push_back({{"link", l.link}, {"status", to_string(l.status)}});
  d["checks"] = nlohmann::json::array();
  for (const auto& c : v.checks)
    d["checks"].push_back({{"scope", c.scope},          {"subject", c.subject},   {"check", c.check},
                           {"status", to_string(c.status)}, {"measured", opt(c.measured)}, {"expected", opt(c.expected)},
                           {"unit", c.unit},            {"margin", opt(c.margin)}, {"margin_pct", opt(c.margin_pct)}, {"evidence", c.evidence},
                           {"reason", c.reason}});
  return d;
}

std::vector<Finding> verdict_findings(const Verdict& v) {
  std::vector<Finding> out;
  for (const auto& c : v.checks) {
    if (c.status != Outcome::kFail) continue;
    Finding f;
    f.severity = Severity::kError;
    f.layer = layer_of(c.check);
    f.code = "accept_" + c.check.substr(0, c.check.find(':'));
    f.subject = c.subject;
    f.message = c.check + " failed on " + c.subject + ": measured " + value_text(c.measured, c.unit) + ", expected " +
                value_text(c.expected, c.unit) + (c.margin ? ", margin " + margin_text(c) : "") +
                (c.reason.empty() ? "" : " (" + c.reason + ")");
    f.evidence = c.evidence;
    f.action = "Fix or replace what the evidence names, then re-run `fabdiag accept` (docs/accept.md#what-each-check-reads)";
    out.push_back(std::move(f));
  }
  return out;
}

int verdict_exit_code(const Verdict& v) {
  if (v.fail > 0) return 1;
  if (v.not_checked > 0 || v.pass == 0) return 4;  // nothing judged signs nothing off
  return 0;
}

}  // namespace fabdiag::accept
