#include "core/clock.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace fabdiag {

namespace {
class RealClock final : public Clock {
 public:
  double monotonic_s() const override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  std::string utc_now_iso8601() const override { return format_utc_iso8601(std::time(nullptr)); }
  void sleep_s(double seconds) const override {
    if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  }
};
}  // namespace

const Clock& real_clock() {
  static const RealClock clock;
  return clock;
}

std::string format_utc_iso8601(std::time_t epoch_s) {
  std::tm tm{};
  gmtime_r(&epoch_s, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void wait_with_heartbeat(const Clock& clock, double seconds, const std::function<void(double left_s)>& left) {
  const double deadline = clock.monotonic_s() + seconds;
  while (clock.monotonic_s() < deadline) {
    clock.sleep_s(std::min(deadline - clock.monotonic_s(), 10.0));
    double left_s = deadline - clock.monotonic_s();
    if (left_s > 0.5 && left) left(left_s);
  }
}

}  // namespace fabdiag
