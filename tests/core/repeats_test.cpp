// Repeats summarised: bounded lists of errors and findings that keep the count.
#include <doctest/doctest.h>

#include "core/repeats.h"

using namespace fabdiag;

TEST_CASE("BoundedErrors: N of a kind kept, the rest one summary after the kind's last kept") {
  BoundedErrors b(2);
  for (int i = 1; i <= 5; ++i) b.add("bad row", make_error(ErrorCode::kParse, "bad row " + std::to_string(i), "f:" + std::to_string(i)));
  b.add("cut", make_error(ErrorCode::kParse, "cut short", "f:9"));
  CHECK(b.total() == 6);
  CHECK(b.dropped() == 3);
  auto e = b.take();
  REQUIRE(e.size() == 4);
  CHECK(e[0].message == "bad row 1");
  CHECK(e[1].message == "bad row 2");
  CHECK(e[2].message == "... and 3 more like this: bad row (the last at f:5)");
  CHECK(e[2].source == "f:5");
  CHECK(e[2].code == ErrorCode::kParse);
  CHECK(e[3].message == "cut short");
  BoundedErrors all(0);
  for (int i = 0; i < 300; ++i) all.add("k", make_error(ErrorCode::kParse, "x"));
  CHECK(all.take().size() == 300);
}

TEST_CASE("cap_findings: per code, the worst dropped severity, subjects named, count as evidence") {
  std::vector<Finding> f;
  for (int i = 0; i < 5; ++i) {
    Finding x;
    x.code = "link_flap";
    x.subject = "eth" + std::to_string(i);
    x.severity = i == 4 ? Severity::kCritical : Severity::kWarn;
    f.push_back(x);
  }
  Finding other;
  other.code = "pfc_storm";
  f.push_back(other);
  CHECK(cap_findings(f, 2) == 3);
  REQUIRE(f.size() == 4);
  CHECK(f[0].subject == "eth0");
  CHECK(f[1].subject == "eth1");
  CHECK(f[2].code == "link_flap");
  CHECK(f[2].subject == "3 more");
  CHECK(f[2].severity == Severity::kCritical);
  CHECK(f[2].message == "... and 3 more like this (link_flap): eth2, eth3, eth4");
  REQUIRE(f[2].evidence.size() == 1);
  CHECK(*f[2].evidence[0].value == 3);
  CHECK(f[3].code == "pfc_storm");
  CHECK(cap_findings(f, 0) == 0);
}

TEST_CASE("cap_errors: kinds by the message before its particulars") {
  std::vector<Error> e;
  for (int i = 0; i < 4; ++i) e.push_back(make_error(ErrorCode::kParse, "line " + std::to_string(i) + " is bad", "f"));
  e.push_back(make_error(ErrorCode::kIo, "read failed", "f"));
  CHECK(cap_errors(e, 1) == 3);
  REQUIRE(e.size() == 3);
  CHECK(e[1].message.find("... and 3 more like this: line ") == 0);
  CHECK(e[2].message == "read failed");
}
