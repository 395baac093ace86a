// `fabdiag triage --from DIR|FILE...`: the layered walk offline, over collected outputs. Every
// file is read as `fabdiag import` reads it; each finding is given the host it concerns (its
// subject, else the DIR/<host>/ its file sits under); triage/offline.h joins them per host into
// systemic causes, suspects with their evidence chain, fabric findings and cleared hosts.
#include <filesystem>
#include <map>
#include <set>

#include "cmd/commands.h"
#include "cmd/import_any.h"
#include "core/exit_codes.h"
#include "core/repeats.h"
#include "core/run_cut.h"
#include "core/text.h"
#include "triage/offline.h"

namespace fabdiag::cmd {

namespace {

// Outputs taken on a switch or of the whole fabric: their findings name switch ports, never the
// host whose folder they were collected in.
bool is_fabric_format(const std::string& format) {
  return format == "ibqueryerrors" || format == "iblinkinfo" || format == "sonic-pfc-counters" || format == "sonic-pfcwd-stats" || format == "lldpctl" ||
         format == "ibportstate" || format == "ibnodes" || format == "sonic-interface-counters" ||
         format == "nvue-interface";
}

// The file of the pile that `source` names ("DIR/node05/syslog.txt:1..15 (6 lines)"), or "".
std::string file_of_source(const std::string& source, const std::vector<PileFile>& files) {
  for (const auto& f : files)
    if (source.compare(0, f.path.size(), f.path) == 0 &&
        (source.size() == f.path.size() || source[f.path.size()] == ':' || source[f.path.size()] == ' '))
      return f.path;
  return "";
}

// node03.cluster.local and node03 are one host: the short name wins when both are seen.
std::map<std::string, std::string> short_names(const std::set<std::string>& names) {
  std::map<std::string, std::string> out;
  for (const auto& n : names) {
    size_t dot = n.find('.');
    if (dot != std::string::npos && names.count(n.substr(0, dot))) out[n] = n.substr(0, dot);
  }
  return out;
}

// What hosted_findings() found: the findings with their hosts, the hosts with data, and the
// hosts whose files could not be read at all.
struct Hosted {
  std::vector<triage::HostedFinding> findings;
  std::vector<std::string> hosts;
  std::vector<std::string> unread;
};

// Each finding of the pile and its host: its subject's host, else the host of the file its
// evidence was read from (its DIR/<host>/), else "(host of FILE)" for a host-local finding of a
// file no folder names; switch-port findings keep no host (fabric).
Hosted hosted_findings(const Pile& pile) {
  // A file's DIR/<host>/ names its host only when its content names none (an NCCL log names
  // the hosts of its lines; a collection's job/ folder is not a host) and it is not a switch's.
  std::set<std::string> self_named, names;
  std::map<std::string, const PileFile*> by_path;
  for (const auto& f : pile.files) by_path[f.path] = &f;
  for (const auto& p : pile.parts) {
    for (const auto& h : p.out.env.hosts) names.insert(h);
    if (!p.out.env.hosts.empty()) self_named.insert(p.files.begin(), p.files.end());
  }
  for (const auto& f : pile.files)
    if (!f.host_hint.empty()) names.insert(f.host_hint);
  const auto alias = short_names(names);
  auto canonical = [&alias](const std::string& h) { auto it = alias.find(h); return it == alias.end() ? h : it->second; };
  std::map<std::string, std::string> host_of_file;
  std::set<std::string> known, hinted_unread;
  for (const auto& p : pile.parts)
    for (const auto& h : p.out.env.hosts) known.insert(canonical(h));
  for (const auto& f : pile.files) {
    if (f.host_hint.empty() || self_named.count(f.path) || is_fabric_format(f.format)) continue;
    if (f.format.empty()) hinted_unread.insert(canonical(f.host_hint));
    else host_of_file[f.path] = canonical(f.host_hint), known.insert(canonical(f.host_hint));
  }
  Hosted out;
  out.hosts.assign(known.begin(), known.end());
  for (const auto& h : hinted_unread)
    if (!known.count(h)) out.unread.push_back(h);
  for (const auto& p : pile.parts) {
    for (const auto& f : p.out.env.findings) {
      std::string host = canonical(triage::host_of_subject(f.subject, out.hosts));
      std::string file;
      for (const auto& e : f.evidence)
        if (file.empty()) file = file_of_source(e.source, pile.files);
      if (file.empty() && p.files.size() == 1) file = p.files[0];
      const PileFile* pf = by_path.count(file) ? by_path[file] : nullptr;
      const bool fabric = f.subject.find(';') != std::string::npos || (pf && is_fabric_format(pf->format));
      // A switch's output names its own ports first ("leaf01 Ethernet0", "Topspin Switch"): a
      // word of it is a host only when the pile knows that host, or as a link's far end.
      if (fabric && !known.count(host) && f.subject.find(" <-> ") == std::string::npos) host.clear();
      if (host.empty() && host_of_file.count(file)) host = host_of_file[file];
      if (host.empty() && !fabric && !file.empty())
        host = "(host of " + std::filesystem::path(file).filename().string() + ")";
      out.findings.push_back({f, host});
    }
  }
  return out;
}

std::string layers_text(const std::vector<Layer>& layers) {
  std::string s;
  for (auto l : layers) s += (s.empty() ? "" : ", ") + std::string(to_string(l));
  return s;
}

nlohmann::json verdict_json(const triage::OfflineVerdict& v) {
  nlohmann::json d;
  d["source"] = "files";
  d["hosts"] = v.hosts;
  d["suspects"] = nlohmann::json::array();
  for (const auto& s : v.suspects) {
    std::vector<Evidence> ev;
    for (const auto& f : s.findings) {
      Evidence e = Evidence::text(f.code, f.message, f.evidence.empty() ? "" : f.evidence.front().source);
      ev.push_back(std::move(e));
    }
    d["suspects"].push_back({{"kind", "node"},
                             {"hosts", {s.host}},
                             {"layer", to_string(s.layers.back())},
                             {"layers", layers_text(s.layers)},
                             {"severity", to_string(s.severity)},
                             {"evidence", ev},
                             {"action", s.action}});
  }
  d["systemic"] = nlohmann::json::array();
  for (const auto& c : v.systemic)
    d["systemic"].push_back({{"code", c.code}, {"severity", to_string(c.severity)}, {"layer", to_string(c.layer)},
                             {"hosts", c.hosts}, {"of_hosts", c.of_hosts}, {"message", c.message},
                             {"action", c.action}});
  d["fabric"] = v.fabric;
  d["not_judged"] = nlohmann::json::array();
  for (const auto& h : v.not_judged)
    d["not_judged"].push_back({{"subject", h}, {"reason", "none of its files could be read"}});
  d["cleared"] = nlohmann::json::array();
  for (const auto& h : v.cleared)
    d["cleared"].push_back({{"subject", h}, {"reason", "nothing at warn or above in its files"}});
  return d;
}

// "node01, node02, node03 and 5 more".
std::string host_list(const std::vector<std::string>& hosts) {
  return join_first(hosts, 5, ", ", hosts.size() > 5 ? "and " + std::to_string(hosts.size() - 5) + " more" : "");
}

Section verdict_section(const triage::OfflineVerdict& v) {
  Section s;
  s.title = "verdict";
  for (const auto& c : v.systemic)
    s.lines.push_back("SYSTEMIC " + c.code + " on " + std::to_string(c.hosts.size()) + " of " +
                      std::to_string(c.of_hosts) + " hosts (" + to_string(c.layer) + "; " + host_list(c.hosts) +
                      "): " + c.message +
                      (c.action.empty() ? "" : "\n    -> " + c.action));
  for (const auto& sp : v.suspects) {
    s.lines.push_back("SUSPECT node " + sp.host + " (" + to_string(sp.severity) + "; evidence at " +
                      layers_text(sp.layers) + ")");
    for (const auto& f : sp.findings) s.lines.push_back("    " + std::string(to_string(f.layer)) + " " + f.code + ": " + f.message);
    if (!sp.action.empty()) s.lines.push_back("    -> " + sp.action);
  }
  for (const auto& f : v.fabric)
    s.lines.push_back("FABRIC " + f.subject + ": " + f.code + " (" + to_string(f.severity) + ")");
  for (const auto& h : v.not_judged) s.lines.push_back("NOT JUDGED " + h + ": none of its files could be read");
  if (!v.cleared.empty()) {
    s.lines.push_back("CLEARED " + join(v.cleared) + ": nothing at warn or above in their files");
  }
  if (v.systemic.empty() && v.suspects.empty() && v.fabric.empty())
    s.lines.push_back("No fault found in the files read (see what each file was taken for above).");
  return s;
}

}  // namespace

int run_triage_from(const GlobalOptions& g, const TriageOptions& o) {
  auto started = std::chrono::steady_clock::now();
  Pile pile;
  if (auto rc = read_pile(g, ImportAnyOptions{o.from, "", 200, std::nullopt, kFromUnclaimedHint}, pile)) return *rc;
  Hosted hosted = hosted_findings(pile);
  triage::OfflineVerdict verdict = triage::judge_offline(hosted.findings, hosted.hosts);
  verdict.not_judged = hosted.unread;

  Envelope env = make_envelope("fabdiag.triage/1");
  env.hosts = verdict.hosts;
  env.params = {{"from", o.from}, {"files", pile_files_json(pile.files)}};
  env.data = verdict_json(verdict);
  env.data["parts"] = nlohmann::json::array();
  Document doc;
  doc.title = "fabdiag triage --from: " + std::to_string(pile.files.size()) + " file(s), " +
              std::to_string(verdict.hosts.size()) + " host(s)";
  doc.sections.push_back(verdict_section(verdict));
  doc.sections.push_back(pile_files_section(pile.files));
  for (auto& p : pile.parts) {
    env.findings.insert(env.findings.end(), p.out.env.findings.begin(), p.out.env.findings.end());
    env.errors.insert(env.errors.end(), p.out.env.errors.begin(), p.out.env.errors.end());
    env.data["parts"].push_back({{"files", p.files}, {"schema", p.out.env.schema}, {"data", std::move(p.out.env.data)}});
  }
  for (const auto& f : pile.files)
    if (!f.why.empty()) env.errors.push_back(make_error(ErrorCode::kParse, f.why, f.path));
  cap_errors(env.errors, size_t{200});  // thousands of unreadable files: summarised (core/repeats.h)
  finish_envelope(env, started);
  if (!pile.interrupted_by) return emit(g, env, doc);
  const StopCause cause{pile.interrupted_by, 0};  // a verdict over the files read before the signal
  mark_cut(env, ErrorCode::kInterrupted, Cut{describe_stop(cause), "", "the files whose not_read says interrupted"});
  emit(g, env, doc);
  return stop_exit_code(cause);
}

}  // namespace fabdiag::cmd
