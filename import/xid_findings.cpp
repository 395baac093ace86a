// The findings and data of an Xid log import (import/xid_log.h).
#include <cstdio>

#include "core/text.h"
#include "import/common.h"
#include "import/xid_catalog.h"
#include "import/xid_log.h"

namespace fabdiag {

namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string gpu_name(const XidGpu& g) {
  return (g.gpu_index ? "GPU" + std::to_string(*g.gpu_index) + " " : std::string("GPU ")) + "(PCI " + g.pci + ")";
}

std::string span(const XidTally& t) {
  if (t.first_time.empty()) return "";
  if (t.count == 1 || t.first_time == t.last_time) return " at " + t.first_time;
  return " between " + t.first_time + " and " + t.last_time;
}

std::vector<std::string> list(const std::set<std::string>& s) { return {s.begin(), s.end()}; }

// The finding of Xid `code` on `g` as the catalog judges it, without message and evidence;
// `meaning` gets the catalog's words for it.
Finding catalog_finding(const XidGpu& g, const XidInfo& info, std::string& meaning) {
  Finding f;
  f.layer = Layer::kPhysical;
  f.code = "gpu_xid";
  f.subject = g.pci_bdf;
  f.severity = info.severity;
  f.action = info.action;
  meaning = info.mnemonic.empty() ? "not in fabdiag's copy of the Xid catalog"
                                  : info.mnemonic + (info.description.empty() ? "" : ": " + info.description);
  return f;
}

void add_catalog_evidence(Finding& f, const XidInfo& info) {
  if (!info.immediate.empty())
    f.evidence.push_back(Evidence::text("catalog resolution (immediate / investigatory)",
                                        info.immediate + " / " + info.investigatory, "import/data/xid_catalog.json"));
}

Finding xid_finding(const XidLogImport& imp, const XidGpu& g, int code, const XidTally& t) {
  XidInfo info = xid_info(code);
  std::string meaning;
  Finding f = catalog_finding(g, info, meaning);
  if (code == 154)
    if (auto r = xid154_recovery(t.recovery)) {
      f.severity = r->first;
      f.action = r->second;
    }
  std::string causes;
  for (const auto& [cause, n] : t.caused_by)
    causes += (causes.empty() ? "; caused by previous Xid " : ", Xid ") + std::to_string(cause) +
              (n == t.count ? "" : " (" + std::to_string(n) + " of them)");
  f.message = gpu_name(g) + ": Xid " + std::to_string(code) + " (" + meaning + ") x" + std::to_string(t.count) +
              span(t) + (t.processes.empty() ? "" : " (processes " + join(list(t.processes)) + ")") + causes +
              (t.timeout_s ? "; GSP answered no RPC for " + num(*t.timeout_s) + " s" : "") +
              (t.recovery.empty() ? "" : "; the driver's recovery action: " + t.recovery) +
              (g.driver_notes.empty() ? "" : "; the driver says: " + g.driver_notes.front());
  f.evidence.push_back(Evidence::number("xid " + std::to_string(code) + " events", static_cast<double>(t.count), "count",
                                        line_source(imp.source, t.first_line)));
  f.evidence.back().value_text = t.first_text;
  add_catalog_evidence(f, info);
  if (t.timeout_s)
    f.evidence.push_back(Evidence::number("gsp rpc timeout", *t.timeout_s, "s", line_source(imp.source, t.first_line)));
  if (t.count > 1)
    f.evidence.push_back(Evidence::text("last event", t.last_time.empty() ? "(no timestamp)" : t.last_time,
                                        line_source(imp.source, t.last_line)));
  return f;
}

// An Xid known only because a later report names it as its cause: judged as the Xid itself.
Finding cited_finding(const XidLogImport& imp, const XidGpu& g, int code, const XidCited& c) {
  XidInfo info = xid_info(code);
  std::string meaning;
  Finding f = catalog_finding(g, info, meaning);
  f.message = gpu_name(g) + ": Xid " + std::to_string(code) + " (" + meaning + ") named as the cause of " +
              std::to_string(c.count) + " Xid " + std::to_string(c.by_xid) + " report(s)" +
              (c.first_time.empty() ? "" : " from " + c.first_time) +
              "; its own report is not in this log (excerpt or wrapped ring buffer): read it with `dmesg -T` or "
              "`journalctl -k` on the node";
  f.evidence.push_back(Evidence::number("reports naming xid " + std::to_string(code), static_cast<double>(c.count),
                                        "count", line_source(imp.source, c.first_line)));
  add_catalog_evidence(f, info);
  return f;
}

}  // namespace

std::vector<Finding> xid_findings(const XidLogImport& imp) {
  std::vector<Finding> out;
  for (const auto& g : imp.gpus) {
    for (const auto& [code, t] : g.xids) out.push_back(xid_finding(imp, g, code, t));
    for (const auto& [code, c] : g.cited)
      if (!g.xids.count(code)) out.push_back(cited_finding(imp, g, code, c));
  }
  return out;
}

nlohmann::json xid_log_data(const XidLogImport& imp) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : imp.gpus) {
    nlohmann::json xids = nlohmann::json::array();
    for (const auto& [code, t] : g.xids) {
      XidInfo info = xid_info(code);
      nlohmann::json caused_by = nlohmann::json::object();  // "149": reports naming it
      for (const auto& [cause, n] : t.caused_by) caused_by[std::to_string(cause)] = n;
      xids.push_back({{"xid", code},
                      {"mnemonic", info.mnemonic},
                      {"description", info.description},
                      {"immediate_action", info.immediate},
                      {"investigatory_action", info.investigatory},
                      {"count", t.count},
                      {"first_time", t.first_time},
                      {"last_time", t.last_time},
                      {"first_line", t.first_line},
                      {"last_line", t.last_line},
                      {"first_text", t.first_text},
                      {"processes", list(t.processes)},
                      {"timeout_s", t.timeout_s ? nlohmann::json(*t.timeout_s) : nlohmann::json(nullptr)},
                      {"recovery", t.recovery},
                      {"caused_by", caused_by},
                      {"from_message", t.from_message}});
    }
    nlohmann::json cited = nlohmann::json::array();
    for (const auto& [code, c] : g.cited)
      if (!g.xids.count(code))
        cited.push_back({{"xid", code}, {"mnemonic", xid_info(code).mnemonic}, {"named_by_xid", c.by_xid},
                         {"reports", c.count}, {"first_line", c.first_line}, {"first_time", c.first_time}});
    gpus.push_back({{"pci_bdf", g.pci_bdf},
                    {"pci", g.pci},
                    {"gpu_index", g.gpu_index ? nlohmann::json(*g.gpu_index) : nlohmann::json(nullptr)},
                    {"uuid", g.uuid},
                    {"xids", xids},
                    {"cited_xids", cited},
                    {"driver_notes", g.driver_notes}});
  }
  return {{"tool", "kernel log"},
          {"lines", imp.lines},
          {"xid_lines", imp.xid_lines},
          {"sxid_lines", imp.sxid_lines},
          {"gpu_lost_lines", imp.gpu_lost_lines},
          {"gpus", gpus}};
}

}  // namespace fabdiag
