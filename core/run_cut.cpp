#include "core/run_cut.h"

#include <algorithm>
#include <cstdio>

#include "core/exit_codes.h"
#include "core/interrupt.h"

namespace fabdiag {

namespace {
constexpr const char* kCutSource = "fabdiag";
}

std::string describe_stop(const StopCause& cause) {
  if (cause.signal != 0) return std::string("interrupted by ") + signal_name(cause.signal);
  char secs[32];
  std::snprintf(secs, sizeof secs, "%g", cause.deadline_s);
  return std::string("deadline of ") + secs + " s (--timeout) passed";
}

int stop_exit_code(const StopCause& cause) {
  return cause.signal != 0 ? 128 + cause.signal : kExitPartial;
}

ErrorCode stop_error_code(const StopCause& cause) {
  return cause.signal != 0 ? ErrorCode::kInterrupted : ErrorCode::kTimeout;
}

std::string cut_text(const Cut& cut) {
  std::string out = cut.reason;
  if (!cut.during.empty()) out += (out.empty() ? "during " : " during ") + cut.during;
  if (!cut.not_run.empty()) out += (out.empty() ? "not run: " : "; not run: ") + cut.not_run;
  return out;
}

void mark_cut(Envelope& env, ErrorCode code, Cut cut) {
  if (env.partial) {
    const std::string old = cut_text(env.cut);
    env.errors.erase(std::remove_if(env.errors.begin(), env.errors.end(),
                                    [&](const Error& e) { return e.source == kCutSource && e.message == old; }),
                     env.errors.end());
  }
  env.partial = true;
  env.cut = std::move(cut);
  env.errors.push_back(make_error(code, cut_text(env.cut), kCutSource));
}

}  // namespace fabdiag
