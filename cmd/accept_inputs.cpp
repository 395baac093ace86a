// `accept --from FILE|DIR...`: saved fabdiag documents and collected tool outputs -> the inputs
// of the acceptance verdict (accept/evaluate.h). Raw outputs go through `fabdiag import`'s
// reading (cmd/import_any.h), so a file is taken for what that command would take it for.
#include <filesystem>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "cmd/accept.h"
#include "cmd/import_any.h"
#include "cmd/import_inputs.h"
#include "cmd/input.h"
#include "core/atomic_file.h"
#include "core/exit_codes.h"

namespace fabdiag::cmd {

namespace {

using accept::Doc;
using accept::HostInputs;
using accept::Inputs;

// The document when `path` holds a fabdiag result (a JSON object with "schema": "fabdiag.*").
std::optional<nlohmann::json> fabdiag_document(const std::string& path) {
  auto text = read_file(path);
  if (!text) return std::nullopt;
  size_t i = text->find_first_not_of(" \t\r\n");
  if (i == std::string::npos || (*text)[i] != '{') return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("schema") || !j["schema"].is_string() ||
      j["schema"].get<std::string>().rfind("fabdiag.", 0) != 0 || !j.contains("data"))
    return std::nullopt;
  return j;
}

HostInputs& host_entry(Inputs& in, const std::string& host) {
  for (auto& h : in.hosts)
    if (h.host == host) return h;
  in.hosts.push_back(HostInputs{host, {}, {}, {}});
  return in.hosts.back();
}

// Why a document of a schema accept reads cannot be used ("data.devices is not a list"), or ""
// when it has the members the checks read: a document that lacks them is "not read" in the
// inputs table, as its checks say (not "topo of node01" beside "no fabdiag.topo/1 result").
std::string malformed(const std::string& schema, const nlohmann::json& data) {
  auto list = [&](const char* key) { return data.is_object() && data.contains(key) && data[key].is_array(); };
  static const std::set<std::string> kRead = {"fabdiag.topo/1", "fabdiag.counters/1", "fabdiag.check/1", "fabdiag.bench/1",
                                               "fabdiag.pairwise/1"};
  if (!kRead.count(schema)) return "";
  if (!data.is_object()) return "data is not an object";
  if (schema == "fabdiag.topo/1" && !list("devices")) return "data.devices is not a list";
  if (schema == "fabdiag.counters/1" && !list("counters")) return "data.counters is not a list";
  if (schema == "fabdiag.check/1" && !list("checks") && !(data.contains("facts") && data["facts"].is_object()))
    return "neither data.checks is a list nor data.facts an object";
  if (schema == "fabdiag.bench/1" && !list("results") && !list("tables")) return "neither data.results nor data.tables is a list";
  if (schema == "fabdiag.pairwise/1") {
    if (!list("hosts")) return "data.hosts is not a list";
    for (const auto& h : data["hosts"])
      if (!h.is_string()) return "data.hosts holds a " + std::string(h.type_name()) + ", not a host name";
  }
  return "";
}

// Files one document: node documents to their host, bench and pairwise to the cluster; the
// parts of fabdiag.import/1 and fabdiag.triage/1 one by one. Returns what it was used as
// ("not read: ..." for a malformed document, also on stderr).
std::string file_document(const std::string& schema, nlohmann::json data, const std::string& source,
                          const std::string& host, Inputs& in) {
  if (std::string why = malformed(schema, data); !why.empty()) {
    print_error(source + ": " + schema + ": " + why + "; not read");
    return "not read: " + schema + " is malformed: " + why;
  }
  if (schema == "fabdiag.import/1" || schema == "fabdiag.triage/1") {
    std::string used;
    for (auto& p : data.value("parts", nlohmann::json::array()))
      used += (used.empty() ? "" : "; ") +
              file_document(p.value("schema", ""), p.value("data", nlohmann::json()), source, host, in);
    return used.empty() ? "not used: no part accept reads" : used;
  }
  if (schema == "fabdiag.bench/1") {
    if (data.contains("tables") && data["tables"].is_array()) {
      for (auto& t : data["tables"]) in.bench.push_back(Doc{schema, std::move(t), source});
      return "bench tables";
    }
    in.bench.push_back(Doc{schema, std::move(data), source});
    return "bench " + in.bench.back().data.value("collective", std::string("?"));
  }
  if (schema == "fabdiag.pairwise/1") {
    in.pairwise.push_back(Doc{schema, std::move(data), source});
    return "pairwise";
  }
  if (schema != "fabdiag.topo/1" && schema != "fabdiag.check/1" && schema != "fabdiag.counters/1")
    return "not used: " + schema + " is not an input of accept";
  HostInputs& h = host_entry(in, host);
  std::optional<Doc>* slot = schema == "fabdiag.topo/1" ? &h.topo : schema == "fabdiag.check/1" ? &h.check : &h.counters;
  *slot = Doc{schema, std::move(data), source};
  return schema.substr(8, schema.find('/') - 8) + " of " + host;
}

std::string one_host(const nlohmann::json& hosts) {
  return hosts.is_array() && hosts.size() == 1 && hosts[0].is_string() ? hosts[0].get<std::string>() : "";
}

std::string fallback_host(const std::string& path) {
  return "(host of " + std::filesystem::path(path).filename().string() + ")";
}

}  // namespace

std::optional<int> read_accept_inputs(const GlobalOptions& g, const std::vector<std::string>& paths, Inputs& in,
                                      std::vector<AcceptInputFile>& files) {
  auto inputs = collect_inputs(paths);
  if (!inputs) return fail_input(inputs.error());
  std::map<std::string, std::string> hint_of;
  std::vector<std::string> raw;
  for (const auto& f : inputs->files) {
    if (!f.skipped.empty()) {
      files.push_back({f.path, "not read: " + f.skipped});
      continue;
    }
    hint_of[f.path] = f.host_hint;
    if (auto doc = fabdiag_document(f.path)) {
      std::string host = one_host((*doc)["hosts"]);
      if (host.empty()) host = f.host_hint.empty() ? fallback_host(f.path) : f.host_hint;
      files.push_back({f.path, file_document((*doc)["schema"], std::move((*doc)["data"]), f.path, host, in)});
    } else {
      raw.push_back(f.path);
    }
  }
  if (!raw.empty()) {
    Pile pile;
    if (auto rc = read_pile(g, ImportAnyOptions{raw, "", 200, std::nullopt, kFromUnclaimedHint}, pile); rc && files.empty()) return rc;
    for (auto& p : pile.parts) {
      const std::string& first = p.files.front();
      std::string host = hint_of.count(first) ? hint_of[first] : "";
      if (host.empty()) host = one_host(nlohmann::json(p.out.env.hosts));
      if (host.empty()) host = fallback_host(first);
      std::string used = file_document(p.out.env.schema, std::move(p.out.env.data), first, host, in);
      for (const auto& f : p.files) files.push_back({f, p.out.env.schema + ": " + used});
    }
    for (const auto& f : pile.files)
      if (!f.why.empty()) files.push_back({f.path, "not read: " + f.why});
  }
  if (in.hosts.empty() && in.bench.empty() && in.pairwise.empty()) {
    print_error("accept --from: no input accept reads (fabdiag topo/check/counters/bench/pairwise results or "
                "the tool outputs `fabdiag import` reads)");
    return kExitUsage;
  }
  return std::nullopt;
}

}  // namespace fabdiag::cmd
