// `fabdiag check`: host data-path lint. Reads the facts from sysfs/procfs (collect/check_sysfs.h)
// or from saved tool outputs (--from, import/host_formats.h), runs the rules
// (rules/check_run.h) and prints the check list, the RDMA ports, the ACS ports and findings.
#include <algorithm>
#include <chrono>
#include <optional>

#include <nlohmann/json.hpp>

#include "cmd/commands.h"
#include "cmd/input.h"
#include "core/exit_codes.h"
#include "core/text.h"
#include "rules/check_run.h"
#include "collect/check_sysfs.h"
#include "import/host_formats.h"
#include "probes/counters/sysfs_counters.h"

namespace fabdiag::cmd {

namespace {

Table checks_table(const CheckReport& r) {
  Table t;
  t.columns = {"CHECK", "RESULT", "DETAIL"};
  for (const auto& c : r.checks) {
    std::string result = to_string(c.status);
    if (c.status == CheckStatus::kProblems || (c.status == CheckStatus::kPass && c.findings > 0))
      result += " (" + std::to_string(c.findings) + ")";
    t.rows.push_back({c.title, result, c.summary});
  }
  t.notes.push_back("pass (n) = only info findings; unknown = facts present but not decisive; not checked = the "
                    "input has no facts for it.");
  return t;
}

Table ports_table(const std::vector<RdmaPortFacts>& ports) {
  Table t;
  t.columns = {"PORT", "MODEL", "LINK", "STATE", "PHYS_STATE", "RATE", "NETDEV", "MTU", "ROCEV2 GID"};
  bool not_up = false;
  for (const auto& p : ports) {
    std::string rate = p.rate.empty() ? "?" : p.rate;
    if (!port_is_up(p) && !p.rate.empty()) {
      rate += " **";
      not_up = true;
    }
    std::string mtu = "-";
    if (p.netdev_mtu_bytes) mtu = std::to_string(*p.netdev_mtu_bytes);
    if (p.active_mtu_bytes) mtu = std::to_string(*p.active_mtu_bytes) + " (active)";
    std::string gid = "-";
    if (p.link_layer == "Ethernet")
      gid = !p.rocev2_gids ? "?" : p.rocev2_gids->empty() ? "none" : "yes (" + std::to_string(p.rocev2_gids->size()) + ")";
    t.rows.push_back({p.device, p.model.empty() ? "?" : p.model, p.link_layer.empty() ? "?" : p.link_layer,
                      p.state.empty() ? "?" : p.state, p.phys_state.empty() ? "?" : p.phys_state, rate,
                      p.netdev.empty() ? "-" : p.netdev, mtu, gid});
  }
  if (not_up) t.notes.push_back("** the port has no link: the rate is not a link speed");
  return t;
}

Table acs_table(const std::vector<AcsPort>& ports) {
  Table t;
  t.columns = {"PORT", "ACS CONTROL", "BELOW"};
  for (const auto& p : ports) {
    std::string acs = p.status == AcsStatus::kRead ? acs_control_text(p.control)
                                                   : std::string("unknown (") + to_string(p.status) + ")";
    std::string below = p.position_known ? (p.below.empty() ? "no GPU or NIC" : join(p.below)) : "not shown in the input";
    t.rows.push_back({p.label, acs, below});
  }
  t.notes.push_back("Redirect = ReqRedir+, CmpltRedir+ or EgressCtrl+; SrcValid and UpstreamFwd alone do not redirect P2P.");
  return t;
}

// The check list, then the RDMA ports and ACS ports the facts hold.
Document check_document(const HostFacts& facts, const CheckReport& report) {
  Document doc;
  doc.title = "fabdiag check";
  Section checks;
  checks.title = "checks";
  checks.fields.emplace_back("input", facts.origin);
  checks.fields.emplace_back("summary", status_summary(report.checks));
  checks.tables.push_back(checks_table(report));
  doc.sections.push_back(std::move(checks));
  if (facts.rdma_ports && !facts.rdma_ports->empty()) {
    Section s;
    s.title = "rdma ports";
    s.tables.push_back(ports_table(*facts.rdma_ports));
    doc.sections.push_back(std::move(s));
  }
  if (facts.acs_ports && !facts.acs_ports->empty()) {
    Section s;
    s.title = "acs";
    s.tables.push_back(acs_table(*facts.acs_ports));
    doc.sections.push_back(std::move(s));
  }
  return doc;
}

// --expect-rate into `run_opts`; the exit code when one does not parse.
std::optional<int> parse_expect_rates(const CheckOptions& o, CheckRunOptions& run_opts) {
  for (const auto& text : o.expect_rates) {
    auto e = parse_rate_expectation(text);
    if (!e) {
      print_error("--expect-rate '" + text + "': expected GBPS (400) or MODEL=GBPS (MT4129=400), a positive number of Gb/s");
      return kExitUsage;
    }
    run_opts.expect_rates.push_back(*e);
  }
  return std::nullopt;
}

// The facts to judge: this host's sysfs/procfs, or the --from files; the exit code when they
// cannot be read.
std::optional<int> read_facts(const GlobalOptions& g, const CheckOptions& o, InputFormat format, HostFacts& facts) {
  if (o.from.empty()) {
    auto fs = make_fs_root(g);
    if (!fs) {
      print_error(fs.error().to_string() + ": --sysfs-root and --procfs-root must name a directory");
      return kExitUsage;
    }
    facts = read_host_facts(*fs, stderr_progress(g));
    return std::nullopt;
  }
  auto imported = import_host_files(o.from, read_input, format);
  if (!imported) return fail_input(imported.error().with_context("reading --from"));
  facts = std::move(*imported);
  return std::nullopt;
}

}  // namespace

int run_check(const GlobalOptions& g, const CheckOptions& o) {
  ImportOutput out;
  if (auto rc = check_output(g, o, out)) return *rc;
  return emit(g, out.env, out.doc);
}

std::optional<int> check_output(const GlobalOptions& g, const CheckOptions& o, ImportOutput& out) {
  auto started = std::chrono::steady_clock::now();
  CheckRunOptions run_opts;
  if (auto rc = parse_expect_rates(o, run_opts)) return *rc;
  auto format = parse_input_format(o.from_format);
  if (!format) {
    print_error("--from-format '" + o.from_format + "': expected auto, lspci, ibstat, ibstatus, ibv-devinfo or nccl-log");
    return kExitUsage;
  }
  HostFacts facts;
  if (auto rc = read_facts(g, o, *format, facts)) return *rc;
  CheckReport report = run_checks(facts, run_opts);
  // Not one check found its input: a wrong --sysfs-root, an empty directory, files that hold
  // none of the facts. Each check says "not checked" and why; the run as a whole read nothing,
  // so it is not a clean bill of health (exit 4, partial), never exit 0 for cron to trust.
  if (!report.checks.empty() &&
      std::all_of(report.checks.begin(), report.checks.end(),
                  [](const CheckResult& c) { return c.status == CheckStatus::kNotChecked; })) {
    const std::string src = o.from.empty() ? g.sysfs_root : "the --from files";
    facts.gaps.push_back(make_error(
        ErrorCode::kNotFound,
        "nothing was checked: no check found its input in " + src +
            " (each check says what it looked for); is this the right " +
            (o.from.empty() ? "sysfs root?" : "input?"),
        src));
  }

  Envelope& env = out.env;
  env = make_envelope("fabdiag.check/1");
  if (!o.from.empty()) env.hosts.clear();  // the files come from another host
  env.params = {{"source", o.from.empty() ? "sysfs" : "files"},
                {"from", o.from},
                {"from_format", o.from_format},
                {"expect_rate", o.expect_rates}};
  if (o.from.empty()) {
    env.params["sysfs_root"] = g.sysfs_root;
    env.params["procfs_root"] = g.procfs_root;
  }
  env.data["checks"] = report.checks;
  env.data["summary"] = status_summary_json(report.checks);
  env.data["facts"] = facts;
  env.findings = report.findings;
  env.errors = facts.gaps;
  finish_envelope(env, started);
  out.doc = check_document(facts, report);
  return std::nullopt;
}

}  // namespace fabdiag::cmd
