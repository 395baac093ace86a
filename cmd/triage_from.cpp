// `fabdiag triage --from DIR|FILE...`: the layered walk offline, over collected outputs. Every
// file is read as `fabdiag import` reads it; each finding is given the host it concerns (its
// subject, else the DIR/<host>/ its file sits under); triage/offline.h joins them per host into
// systemic causes, suspects with their evidence chain, fabric findings and cleared hosts.
#include <map>
#include <set>

#include "cmd/commands.h"
#include "cmd/import_any.h"
#include "core/exit_codes.h"
#include "triage/offline.h"

namespace fabdiag::cmd {

namespace {

// The host of the file `source` names ("DIR/node05/syslog.txt:1..15 (6 lines)" -> node05).
std::string host_of_source(const std::string& source, const std::map<std::string, std::string>& host_of_file) {
  for (const auto& [file, host] : host_of_file)
    if (source.compare(0, file.size(), file) == 0 && (source.size() == file.size() || source[file.size()] == ':' ||
                                                      source[file.size()] == ' '))
      return host;
  return "";
}

// Each finding of the pile and its host: its subject's host, else the host of the file its
// evidence was read from, else the host of the part's only file.
std::vector<triage::HostedFinding> hosted_findings(const Pile& pile, std::vector<std::string>& hosts) {
  // A file's DIR/<host>/ names its host only when its content names none (an NCCL log names
  // the hosts of its lines; a collection's job/ folder is not a host).
  std::set<std::string> self_named;
  std::set<std::string> known;
  for (const auto& p : pile.parts) {
    for (const auto& h : p.out.env.hosts) known.insert(h);
    if (!p.out.env.hosts.empty()) self_named.insert(p.files.begin(), p.files.end());
  }
  std::map<std::string, std::string> host_of_file;
  for (const auto& f : pile.files)
    if (!f.host_hint.empty() && !f.format.empty() && !self_named.count(f.path)) {
      host_of_file[f.path] = f.host_hint;
      known.insert(f.host_hint);
    }
  hosts.assign(known.begin(), known.end());
  std::vector<triage::HostedFinding> out;
  for (const auto& p : pile.parts) {
    auto only = p.files.size() == 1 ? host_of_file.find(p.files[0]) : host_of_file.end();
    std::string part_host = only != host_of_file.end() ? only->second : "";
    for (const auto& f : p.out.env.findings) {
      std::string host = triage::host_of_subject(f.subject, hosts);
      for (const auto& e : f.evidence)
        if (host.empty()) host = host_of_source(e.source, host_of_file);
      if (host.empty()) host = part_host;
      out.push_back({f, host});
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
  d["cleared"] = nlohmann::json::array();
  for (const auto& h : v.cleared)
    d["cleared"].push_back({{"subject", h}, {"reason", "nothing at warn or above in its files"}});
  return d;
}

Section verdict_section(const triage::OfflineVerdict& v) {
  Section s;
  s.title = "verdict";
  for (const auto& c : v.systemic)
    s.lines.push_back("SYSTEMIC " + c.code + " on " + std::to_string(c.hosts.size()) + " of " +
                      std::to_string(c.of_hosts) + " hosts (" + to_string(c.layer) + "): " + c.message +
                      (c.action.empty() ? "" : "\n    -> " + c.action));
  for (const auto& sp : v.suspects) {
    s.lines.push_back("SUSPECT node " + sp.host + " (" + to_string(sp.severity) + "; evidence at " +
                      layers_text(sp.layers) + ")");
    for (const auto& f : sp.findings) s.lines.push_back("    " + std::string(to_string(f.layer)) + " " + f.code + ": " + f.message);
    if (!sp.action.empty()) s.lines.push_back("    -> " + sp.action);
  }
  for (const auto& f : v.fabric)
    s.lines.push_back("FABRIC " + f.subject + ": " + f.code + " (" + to_string(f.severity) + ")");
  if (!v.cleared.empty()) {
    std::string list;
    for (const auto& h : v.cleared) list += (list.empty() ? "" : ", ") + h;
    s.lines.push_back("CLEARED " + list + ": nothing at warn or above in their files");
  }
  if (v.systemic.empty() && v.suspects.empty() && v.fabric.empty())
    s.lines.push_back("No fault found in the files read (see what each file was taken for above).");
  return s;
}

}  // namespace

int run_triage_from(const GlobalOptions& g, const TriageOptions& o) {
  auto started = std::chrono::steady_clock::now();
  Pile pile;
  if (auto rc = read_pile(g, ImportAnyOptions{o.from, "", 200}, pile)) return *rc;
  std::vector<std::string> hosts;
  auto hosted = hosted_findings(pile, hosts);
  triage::OfflineVerdict verdict = triage::judge_offline(hosted, hosts);

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
  finish_envelope(env, started);
  return emit(g, env, doc);
}

}  // namespace fabdiag::cmd
