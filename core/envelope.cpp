#include "core/envelope.h"

#include <unistd.h>

#include "core/clock.h"
#include "core/version.h"

namespace fabdiag {

std::string utc_now_iso8601() { return real_clock().utc_now_iso8601(); }

std::string local_hostname() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

Envelope make_envelope(const std::string& schema) {
  Envelope e;
  e.schema = schema;
  e.tool_version = FABDIAG_VERSION;
  e.hosts = {local_hostname()};
  e.started_at = utc_now_iso8601();
  return e;
}

void finish_envelope(Envelope& env, std::chrono::steady_clock::time_point started) {
  env.duration_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

void to_json(nlohmann::json& j, const Error& e) {
  j = nlohmann::json{{"code", to_string(e.code)}, {"message", e.message}, {"source", e.source}};
  if (!e.context.empty()) j["context"] = e.context;
}

nlohmann::json envelope_json_without_data(const Envelope& e) {
  nlohmann::json j = nlohmann::json::object();
  j["schema"] = e.schema;
  j["tool_version"] = e.tool_version;
  j["hosts"] = e.hosts;
  j["started_at"] = e.started_at;
  j["duration_s"] = e.duration_s;
  j["params"] = e.params;
  j["data"] = nullptr;
  j["findings"] = e.findings;
  j["errors"] = nlohmann::json::array();
  for (const auto& err : e.errors) j["errors"].push_back(err);
  if (e.partial) {
    j["partial"] = true;
    j["cut"] = {{"reason", e.cut.reason}, {"during", e.cut.during}, {"not_run", e.cut.not_run}};
  }
  return j;
}

void to_json(nlohmann::json& j, const Envelope& e) {
  j = envelope_json_without_data(e);
  j["data"] = e.data;
}

Result<Envelope> envelope_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return make_error(ErrorCode::kParse, "result document is not a JSON object");
  if (!j.contains("schema") || !j["schema"].is_string())
    return make_error(ErrorCode::kParse, "result document has no \"schema\" string");
  if (!j.contains("data")) return make_error(ErrorCode::kParse, "result document has no \"data\"");
  try {
    Envelope e;
    e.schema = j["schema"].get<std::string>();
    e.tool_version = j.value("tool_version", "");
    if (j.contains("hosts")) e.hosts = j["hosts"].get<std::vector<std::string>>();
    e.started_at = j.value("started_at", "");
    e.duration_s = j.value("duration_s", 0.0);
    e.params = j.value("params", nlohmann::json::object());
    e.data = j["data"];
    if (j.contains("findings")) e.findings = j["findings"].get<std::vector<Finding>>();
    if (j.contains("errors"))
      for (const auto& x : j["errors"])
        e.errors.push_back(make_error(parse_error_code(x.value("code", "internal")),
                                      x.value("message", ""), x.value("source", "")));
    e.partial = j.value("partial", false);
    if (e.partial && j.contains("cut") && j["cut"].is_object()) {
      const auto& c = j["cut"];
      e.cut = Cut{c.value("reason", ""), c.value("during", ""), c.value("not_run", "")};
    }
    return e;
  } catch (const nlohmann::json::exception& ex) {
    return make_error(ErrorCode::kParse, std::string("malformed result document: ") + ex.what());
  }
}

}  // namespace fabdiag
