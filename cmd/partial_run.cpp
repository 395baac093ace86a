#include "cmd/partial_run.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <thread>

#include "cmd/mpi_job.h"
#include "core/atomic_file.h"
#include "core/exit_codes.h"

namespace fabdiag::cmd {

namespace {

constexpr double kLingerS = 0.25;      // after writing stdout under mpirun: time for it to forward
constexpr double kFailGraceS = 0.3;    // a failed step waits this long for the signal behind it
const char* const kCheckpointReason = "running: checkpoint";

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

bool writes_stdout(const GlobalOptions& g, const PartialRunOptions& o) {
  return o.stream || g.output.empty() || g.output == "-";
}

// The run being watched, for the exit hook below (one PartialRun per process at a time).
std::atomic<PartialRun*> g_watched{nullptr};

}  // namespace

// Ctrl-C during MPI_Init also kills the orted daemon a singleton MPI starts (only when the user
// turned OMPI_MCA_ess_singleton_isolated off, see open_mpi_shielded; it is in the same process
// group), and Open MPI then ends the process with exit(1) before the watcher thread has seen
// the signal: this hook, run by exit(), delivers the cut first when a signal is pending.
void PartialRun::deliver_at_exit() {
  PartialRun* self = g_watched.load();
  if (!self || !self->watcher_) return;
  auto cause = self->watcher_->pending();
  if (!cause) return;
  std::lock_guard<std::mutex> lock(self->mutex_);
  if (self->finished_) return;
  self->deliver(stop_error_code(*cause), describe_stop(*cause));
  _exit(stop_exit_code(*cause));
}

PartialRun::PartialRun(const GlobalOptions& g, PartialRunOptions o) : g_(g), o_(std::move(o)) {
  static const bool hooked = std::atexit(&PartialRun::deliver_at_exit) == 0;
  (void)hooked;
  g_watched.store(this);
  watcher_ = std::make_unique<StopWatcher>(o_.deadline_s, [this](const StopCause& cause) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_) return;  // the whole result is being written: let it
    deliver(stop_error_code(cause), describe_stop(cause));
    _exit(stop_exit_code(cause));
  });
}

PartialRun::~PartialRun() {
  PartialRun* self = this;
  g_watched.compare_exchange_strong(self, nullptr);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
  }
  watcher_.reset();
}

void PartialRun::publish(RunState s) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  state_ = std::move(s);
  if (!o_.stream && o_.checkpoint.empty()) return;
  Envelope env = state_.env;
  env.duration_s = seconds_since(started_);
  mark_cut(env, ErrorCode::kInterrupted, Cut{kCheckpointReason, state_.during, state_.not_run});
  if (o_.stream) write_stdout(render_json_line(env));
  else write_checkpoint(env);
}

void PartialRun::finish(Envelope& final_env) {
  {
    std::lock_guard<std::mutex> lock(mutex_);  // blocks for good while a cut is delivered
    finished_ = true;
    if (!o_.stream && !o_.checkpoint.empty()) {
      write_checkpoint(final_env);
      if (!checkpoint_error_.empty())
        final_env.errors.push_back(make_error(ErrorCode::kIo, checkpoint_error_, o_.checkpoint));
    }
  }
  watcher_.reset();
}

int PartialRun::fail(const Error& e) {
  const auto since = std::chrono::steady_clock::now();
  while (!watcher_->pending() && seconds_since(since) < kFailGraceS)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::unique_lock<std::mutex> lock(mutex_);
  if (!finished_ && watcher_->pending()) {
    lock.unlock();  // the watcher delivers the cut and ends the process
    for (;;) pause();
  }
  finished_ = true;
  deliver(e.code, "stopped by a failed step: " + e.to_string());
  return kExitPartial;
}

void PartialRun::deliver(ErrorCode code, const std::string& reason) {
  Envelope env = state_.env;
  env.duration_s = seconds_since(started_);
  mark_cut(env, code, Cut{reason, state_.during, state_.not_run});
  print_error(cut_text(env.cut) + "; what finished follows, marked partial");
  if (o_.stream) write_stdout(render_json_line(env));
  else write_rendered(g_, env, state_.doc);
  if (!o_.stream && !o_.checkpoint.empty()) write_checkpoint(env);
  if (writes_stdout(g_, o_) && launcher_rank().has_value())
    std::this_thread::sleep_for(std::chrono::duration<double>(kLingerS));
}

void PartialRun::write_checkpoint(const Envelope& env) {
  auto st = write_file_atomic(o_.checkpoint, render_json(env));
  if (st || !checkpoint_error_.empty()) return;
  checkpoint_error_ = "cannot write the checkpoint: " + st.error().message;
  print_error(st.error().to_string() + " (--checkpoint; the run goes on)");
}

std::optional<int> refuse_unwritable_outputs(const GlobalOptions& g, const std::string& checkpoint) {
  if (launcher_rank().value_or(0) != 0) return std::nullopt;
  if (checkpoint == "-") {
    print_error("--checkpoint needs a file; '-' (stdout) is where the result goes");
    return kExitUsage;
  }
  for (const auto& [flag, path] : {std::pair<std::string, std::string>{"--output", g.output}, {"--checkpoint", checkpoint}}) {
    if (path.empty() || path == "-") continue;
    if (auto st = check_output_path(path); !st) {
      print_error("cannot write " + flag + ": " + st.error().to_string());
      return kExitUsage;
    }
  }
  return std::nullopt;
}

RunState startup_state(const Envelope& base, const std::string& title, const std::string& not_run) {
  RunState st;
  st.env = base;
  st.doc.title = title;
  Section s;
  s.title = "progress";
  s.lines.push_back("Cut during start-up (MPI), before the first step: no result yet.");
  st.doc.sections.push_back(std::move(s));
  st.during = "start-up (MPI), before the first step";
  st.not_run = not_run;
  return st;
}

}  // namespace fabdiag::cmd
