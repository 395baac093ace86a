#include <doctest/doctest.h>

#include <signal.h>

#include <nlohmann/json.hpp>

#include "core/exit_codes.h"
#include "core/run_cut.h"

using namespace fabdiag;

TEST_CASE("a stop names its cause, its exit code and its error code") {
  CHECK(describe_stop({SIGINT, 0}) == "interrupted by SIGINT");
  CHECK(describe_stop({SIGTERM, 0}) == "interrupted by SIGTERM");
  CHECK(describe_stop({0, 600}) == "deadline of 600 s (--timeout) passed");
  CHECK(describe_stop({0, 2.5}) == "deadline of 2.5 s (--timeout) passed");
  CHECK(stop_exit_code({SIGINT, 0}) == kExitInterrupted);
  CHECK(stop_exit_code({SIGINT, 0}) == 130);
  CHECK(stop_exit_code({SIGTERM, 0}) == 143);
  CHECK(stop_exit_code({0, 600}) == kExitPartial);
  CHECK(stop_error_code({SIGINT, 0}) == ErrorCode::kInterrupted);
  CHECK(stop_error_code({0, 1}) == ErrorCode::kTimeout);
  CHECK(std::string(to_string(ErrorCode::kInterrupted)) == "interrupted");
  CHECK(parse_error_code("interrupted") == ErrorCode::kInterrupted);
}

TEST_CASE("cut_text joins reason, step and what did not run, leaving out empty parts") {
  CHECK(cut_text({"interrupted by SIGINT", "pair round 3 of 5", "pair rounds 4..5"}) ==
        "interrupted by SIGINT during pair round 3 of 5; not run: pair rounds 4..5");
  CHECK(cut_text({"interrupted by SIGINT", "pair round 5 of 5", ""}) == "interrupted by SIGINT during pair round 5 of 5");
  CHECK(cut_text({"deadline of 4 s (--timeout) passed", "", "the rest"}) ==
        "deadline of 4 s (--timeout) passed; not run: the rest");
  CHECK(cut_text({"", "final counters", ""}) == "during final counters");
}

TEST_CASE("mark_cut marks the envelope once: a later cut replaces the earlier entry, other gaps stay") {
  Envelope env = make_envelope("fabdiag.bench/1");
  env.errors.push_back(make_error(ErrorCode::kPermission, "needs root", "mlx5_0"));
  mark_cut(env, ErrorCode::kInterrupted, {"running: checkpoint", "size 4M of all_reduce (3 of 5)", "sizes 8M..16M of all_reduce"});
  CHECK(env.partial);
  REQUIRE(env.errors.size() == 2);
  CHECK(env.errors[1].code == ErrorCode::kInterrupted);
  CHECK(env.errors[1].source == "fabdiag");
  CHECK(env.errors[1].message ==
        "running: checkpoint during size 4M of all_reduce (3 of 5); not run: sizes 8M..16M of all_reduce");

  Cut again = env.cut;
  again.reason = "deadline of 600 s (--timeout) passed";
  mark_cut(env, ErrorCode::kTimeout, again);
  REQUIRE(env.errors.size() == 2);
  CHECK(env.errors[0].message == "needs root");
  CHECK(env.errors[1].code == ErrorCode::kTimeout);
  CHECK(env.errors[1].message ==
        "deadline of 600 s (--timeout) passed during size 4M of all_reduce (3 of 5); not run: sizes 8M..16M of all_reduce");
  CHECK(env.cut.reason == "deadline of 600 s (--timeout) passed");
}

TEST_CASE("partial and cut are in the JSON of a cut run only, and read back") {
  Envelope whole = make_envelope("fabdiag.pairwise/1");
  nlohmann::json jw = whole;
  CHECK_FALSE(jw.contains("partial"));
  CHECK_FALSE(jw.contains("cut"));

  Envelope env = make_envelope("fabdiag.pairwise/1");
  mark_cut(env, ErrorCode::kInterrupted, {"interrupted by SIGINT", "pair round 2 of 3", "pair round 3"});
  nlohmann::json j = env;
  CHECK(j["partial"] == true);
  CHECK(j["cut"] == nlohmann::json{{"reason", "interrupted by SIGINT"}, {"during", "pair round 2 of 3"}, {"not_run", "pair round 3"}});
  CHECK(j["errors"][0]["code"] == "interrupted");
  auto back = envelope_from_json(j);
  REQUIRE(back.ok());
  CHECK(back->partial);
  CHECK(back->cut.during == "pair round 2 of 3");
  CHECK(back->cut.not_run == "pair round 3");
  CHECK(back->errors.size() == 1);
  CHECK(back->errors[0].code == ErrorCode::kInterrupted);
  auto old = envelope_from_json(jw);
  REQUIRE(old.ok());
  CHECK_FALSE(old->partial);
}
