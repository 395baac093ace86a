#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "core/envelope.h"

using namespace fabdiag;

TEST_CASE("envelope and findings round-trip through JSON") {
  Envelope env = make_envelope("fabdiag.test/1");
  env.data = {{"x", 1}};
  Finding f;
  f.severity = Severity::kError;
  f.layer = Layer::kPhysical;
  f.code = "pcie_width_downgraded";
  f.subject = "0000:17:00.0";
  f.message = "trained at x8 of x16";
  f.evidence.push_back(Evidence{"current_link_width", 8, "", "lanes", 16, "", "bus/pci/devices/0000:17:00.0/current_link_width", false});
  f.action = "reseat";
  env.findings.push_back(f);
  env.errors.push_back(make_error(ErrorCode::kPermission, "needs root", "config"));
  nlohmann::json j = env;
  CHECK(j["schema"] == "fabdiag.test/1");
  CHECK(j["findings"][0]["severity"] == "error");
  CHECK(j["findings"][0]["layer"] == "L4");
  CHECK(j["findings"][0]["evidence"][0]["threshold"] == 16);
  CHECK(j["errors"][0]["code"] == "permission");
  auto back = envelope_from_json(j);
  REQUIRE(back.ok());
  CHECK(back->findings.size() == 1);
  CHECK(back->findings[0].evidence[0].value == doctest::Approx(8));
  CHECK(back->errors[0].code == ErrorCode::kPermission);
  CHECK(worst_severity(back->findings) == Severity::kError);
}

TEST_CASE("envelope_from_json rejects documents that are not results") {
  CHECK_FALSE(envelope_from_json(nlohmann::json::array()).ok());
  CHECK_FALSE(envelope_from_json(nlohmann::json{{"data", 1}}).ok());
  auto bad = envelope_from_json(nlohmann::json{{"schema", "x"}, {"data", {}}, {"findings", 3}});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::kParse);
}

TEST_CASE("Error::to_string names the source and the context") {
  Error e = make_error(ErrorCode::kIo, "read failed", "/sys/x").with_context("reading counters");
  CHECK(e.to_string() == "/sys/x: read failed (while reading counters)");
}
