#include "core/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace fabdiag {

namespace {
constexpr size_t kStderrTailBytes = 64 * 1024;
volatile sig_atomic_t g_interrupt = 0;
void on_interrupt(int sig) { g_interrupt = sig; }

// Installs SIGINT/SIGTERM handlers for the lifetime of one wait, restoring the old ones after.
struct InterruptGuard {
  struct sigaction old_int {}, old_term {};
  InterruptGuard() {
    g_interrupt = 0;
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
  }
  ~InterruptGuard() {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
  }
};
}  // namespace

Result<ProcessResult> run_process(const std::vector<std::string>& argv, double timeout_s,
                                  const std::function<void(const std::string&)>& on_stderr_line) {
  if (argv.empty()) return make_error(ErrorCode::kInvalidArgument, "empty command");
  int out_pipe[2], err_pipe[2], exec_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0 || pipe2(exec_pipe, O_CLOEXEC) != 0)
    return make_error(ErrorCode::kIo, std::string("pipe: ") + std::strerror(errno), argv[0]);
  pid_t pid = fork();
  if (pid < 0) return make_error(ErrorCode::kIo, std::string("fork: ") + std::strerror(errno), argv[0]);
  if (pid == 0) {
    setpgid(0, 0);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    close(out_pipe[0]);
    close(err_pipe[0]);
    close(exec_pipe[0]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
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
  if (read(exec_pipe[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno) {
    close(exec_pipe[0]);
    close(out_pipe[0]);
    close(err_pipe[0]);
    waitpid(pid, nullptr, 0);
    return make_error(exec_errno == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo,
                      std::string("cannot run: ") + std::strerror(exec_errno), argv[0]);
  }
  close(exec_pipe[0]);

  ProcessResult res;
  InterruptGuard guard;
  std::string err_line;
  auto start = std::chrono::steady_clock::now();
  bool term_sent = false, kill_sent = false;
  std::chrono::steady_clock::time_point term_time;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  while (open_fds > 0) {
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!term_sent && g_interrupt != 0) {
      res.interrupted_by = g_interrupt;
      kill(-pid, SIGTERM);
      term_sent = true;
      term_time = std::chrono::steady_clock::now();
    }
    if (!term_sent && timeout_s > 0 && elapsed > timeout_s) {
      res.timed_out = true;
      kill(-pid, SIGTERM);
      term_sent = true;
      term_time = std::chrono::steady_clock::now();
    }
    if (term_sent && !kill_sent &&
        std::chrono::steady_clock::now() - term_time > std::chrono::seconds(10)) {
      kill(-pid, SIGKILL);
      kill_sent = true;
    }
    int rc = poll(fds, 2, 200);
    if (rc < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[8192];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      if (i == 0) {
        res.stdout_text.append(buf, static_cast<size_t>(n));
      } else {
        res.stderr_tail.append(buf, static_cast<size_t>(n));
        if (res.stderr_tail.size() > kStderrTailBytes)
          res.stderr_tail.erase(0, res.stderr_tail.size() - kStderrTailBytes);
        err_line.append(buf, static_cast<size_t>(n));
        size_t pos;
        while ((pos = err_line.find('\n')) != std::string::npos) {
          if (on_stderr_line) on_stderr_line(err_line.substr(0, pos));
          err_line.erase(0, pos + 1);
        }
      }
    }
  }
  if (!err_line.empty() && on_stderr_line) on_stderr_line(err_line);
  int status = 0;
  // The pipes closed; the child may still linger after a kill: wait with the same deadline.
  while (waitpid(pid, &status, WNOHANG) == 0) {
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool past_deadline = timeout_s > 0 && elapsed > timeout_s;
    if ((past_deadline || res.interrupted_by) && !kill_sent) {
      if (past_deadline && !res.interrupted_by) res.timed_out = true;
      kill(-pid, SIGKILL);
      kill_sent = true;
    }
    usleep(50 * 1000);
  }
  if (WIFEXITED(status)) res.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) res.exit_code = 128 + WTERMSIG(status);
  return res;
}

}  // namespace fabdiag
