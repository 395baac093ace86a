#include "core/stop_watcher.h"

namespace fabdiag {

StopWatcher::StopWatcher(double deadline_s, std::function<void(const StopCause&)> on_stop)
    : deadline_s_(deadline_s), on_stop_(std::move(on_stop)), thread_([this] { watch(); }) {}

StopWatcher::~StopWatcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

std::optional<StopCause> StopWatcher::pending() const {
  if (int sig = interrupts_.pending()) return StopCause{sig, 0};
  if (deadline_s_ > 0 &&
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() >= deadline_s_)
    return StopCause{0, deadline_s_};
  return std::nullopt;
}

void StopWatcher::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!quit_) {
    if (auto cause = pending()) {
      lock.unlock();
      if (on_stop_) on_stop_(*cause);
      return;
    }
    wake_.wait_for(lock, std::chrono::duration<double>(kPollS));
  }
}

}  // namespace fabdiag
