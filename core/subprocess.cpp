#include "core/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "core/interrupt.h"

namespace fabdiag {

namespace {
constexpr size_t kStderrTailBytes = 64 * 1024;
constexpr double kKillGraceS = 10;  // SIGTERM -> SIGKILL: time for mpirun to stop its daemons
constexpr int kPollMs = 200;        // how soon a waiting call notices an interrupt

// A started child: its process (group) id and the read ends of its stdout and stderr.
struct Child {
  pid_t pid = -1;
  int out_fd = -1;
  int err_fd = -1;
};

void close_pair(int fds[2]) {
  close(fds[0]);
  close(fds[1]);
}

// Forks and execs argv in its own process group. The pipes are close-on-exec (dup2 onto 1 and 2
// clears the flag in the child), so children started at the same time by other threads do not
// inherit them and keep them open past this child's end.
Result<Child> spawn(const std::vector<std::string>& argv) {
  std::vector<char*> args;  // built before fork: the child of a threaded parent should not allocate
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int out_pipe[2], err_pipe[2], exec_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0)
    return make_error(ErrorCode::kIo, std::string("pipe: ") + std::strerror(errno), argv[0]);
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close_pair(out_pipe);
    return make_error(ErrorCode::kIo, std::string("pipe: ") + std::strerror(errno), argv[0]);
  }
  if (pipe2(exec_pipe, O_CLOEXEC) != 0) {
    close_pair(out_pipe);
    close_pair(err_pipe);
    return make_error(ErrorCode::kIo, std::string("pipe: ") + std::strerror(errno), argv[0]);
  }
  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    close_pair(out_pipe);
    close_pair(err_pipe);
    close_pair(exec_pipe);
    return make_error(ErrorCode::kIo, std::string("fork: ") + std::strerror(err), argv[0]);
  }
  if (pid == 0) {
    setpgid(0, 0);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    execvp(args[0], args.data());
    int err = errno;
    ssize_t ignored = write(exec_pipe[1], &err, sizeof err);
    (void)ignored;
    _exit(127);
  }
  setpgid(pid, pid);
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(exec_pipe[1]);
  int exec_errno = 0;
  bool exec_failed = read(exec_pipe[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
  close(exec_pipe[0]);
  if (exec_failed) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    waitpid(pid, nullptr, 0);
    return make_error(exec_errno == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo,
                      std::string("cannot run: ") + std::strerror(exec_errno), argv[0]);
  }
  return Child{pid, out_pipe[0], err_pipe[0]};
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The stop sequence of one child: SIGTERM to its group on an interrupt or at the deadline,
// SIGKILL kKillGraceS later.
class Stopper {
 public:
  Stopper(pid_t pid, double timeout_s) : pid_(pid), timeout_s_(timeout_s) {}
  bool past_deadline() const { return timeout_s_ > 0 && seconds_since(start_) > timeout_s_; }
  // Called while the child's output is still open.
  void on_tick(int interrupt, ProcessResult& res) {
    if (!term_sent_ && (interrupt != 0 || past_deadline())) {
      if (interrupt != 0) res.interrupted_by = interrupt;
      else res.timed_out = true;
      kill(-pid_, SIGTERM);
      term_sent_ = true;
      term_time_ = std::chrono::steady_clock::now();
    }
    if (term_sent_ && !kill_sent_ && seconds_since(term_time_) > kKillGraceS) kill_now();
  }
  // Called after the output closed, while the child has not been reaped.
  void on_linger(ProcessResult& res) {
    bool late = past_deadline();
    if ((late || res.interrupted_by) && !kill_sent_) {
      if (late && !res.interrupted_by) res.timed_out = true;
      kill_now();
    }
  }

 private:
  void kill_now() {
    kill(-pid_, SIGKILL);
    kill_sent_ = true;
  }
  pid_t pid_;
  double timeout_s_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point term_time_;
  bool term_sent_ = false, kill_sent_ = false;
};

// Hands out the complete lines of `line` + the new bytes; keeps the unfinished rest in `line`.
void take_lines(const char* buf, size_t n, std::string& line, const StderrLineSink& sink) {
  if (!sink) return;
  line.append(buf, n);
  size_t pos;
  while ((pos = line.find('\n')) != std::string::npos) {
    sink(line.substr(0, pos));
    line.erase(0, pos + 1);
  }
}

// Appends stderr bytes to the tail and hands out complete lines.
void take_stderr(const char* buf, size_t n, std::string& line, ProcessResult& res, const StderrLineSink& sink) {
  res.stderr_tail.append(buf, n);
  if (res.stderr_tail.size() > kStderrTailBytes) res.stderr_tail.erase(0, res.stderr_tail.size() - kStderrTailBytes);
  take_lines(buf, n, line, sink);
}

// Where the child's output goes as it arrives.
struct LineSinks {
  const StderrLineSink& err;
  const StderrLineSink& out;
};

// Reads the child's stdout and stderr until both close, stopping the child on an interrupt or
// at the deadline.
void pump_output(Child& child, const InterruptScope& interrupts, Stopper& stopper, ProcessResult& res,
                 const LineSinks& sinks) {
  std::string err_line, out_line;
  pollfd fds[2] = {{child.out_fd, POLLIN, 0}, {child.err_fd, POLLIN, 0}};
  int open_fds = 2;
  while (open_fds > 0) {
    stopper.on_tick(interrupts.pending(), res);
    int rc = poll(fds, 2, kPollMs);
    if (rc < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[8192];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else if (i == 0) {
        res.stdout_text.append(buf, static_cast<size_t>(n));
        take_lines(buf, static_cast<size_t>(n), out_line, sinks.out);
      } else {
        take_stderr(buf, static_cast<size_t>(n), err_line, res, sinks.err);
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  if (!err_line.empty() && sinks.err) sinks.err(err_line);
  if (!out_line.empty() && sinks.out) sinks.out(out_line);
}

class SystemProcessRunner final : public ProcessRunner {
 public:
  Result<ProcessResult> run(const std::vector<std::string>& argv, double timeout_s,
                            const StderrLineSink& on_stderr_line,
                            const StderrLineSink& on_stdout_line) const override {
    return run_process(argv, timeout_s, on_stderr_line, on_stdout_line);
  }
};

}  // namespace

Result<ProcessResult> run_process(const std::vector<std::string>& argv, double timeout_s,
                                  const StderrLineSink& on_stderr_line, const StderrLineSink& on_stdout_line) {
  if (argv.empty()) return make_error(ErrorCode::kInvalidArgument, "empty command");
  // Installed before the fork: a Ctrl-C from here on reaches this child too.
  InterruptScope interrupts;
  auto child = spawn(argv);
  if (!child) return child.error();
  ProcessResult res;
  Stopper stopper(child->pid, timeout_s);
  pump_output(*child, interrupts, stopper, res, LineSinks{on_stderr_line, on_stdout_line});
  int status = 0;
  // The pipes closed; the child may still linger after a kill: wait with the same deadline.
  while (waitpid(child->pid, &status, WNOHANG) == 0) {
    stopper.on_linger(res);
    usleep(50 * 1000);
  }
  if (WIFEXITED(status)) res.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) res.exit_code = 128 + WTERMSIG(status);
  return res;
}

const ProcessRunner& system_process_runner() {
  static const SystemProcessRunner runner;
  return runner;
}

}  // namespace fabdiag
