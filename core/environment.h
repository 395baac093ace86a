// Environment variables behind one interface: every lookup of the process environment in the
// tree (FABDIAG_NVML_LIB, FABDIAG_BASELINE_DIR, XDG_DATA_HOME, HOME, NCCL_HOME, CUDA_HOME,
// OMPI_COMM_WORLD_RANK and the other launchers' rank variables) goes through an Environment,
// passed to the code that needs it, so tests give a map instead of changing the process.
//
// Running setuid or setgid (or with file capabilities: the kernel's AT_SECURE), the caller's
// environment must not choose code that runs with privileges the caller lacks: library paths
// (FABDIAG_*_LIB, NCCL_HOME, CUDA_HOME) are then read through library_override(), which
// ignores them, as glibc's secure_getenv() does.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace fabdiag {

/// Read-only view of environment variables.
class Environment {
 public:
  virtual ~Environment() = default;
  /// The value of `name`; nullopt when it is unset (an empty value is returned as "").
  virtual std::optional<std::string> get(const std::string& name) const = 0;
  /// The value of `name` when it is set and not empty, else nullopt.
  std::optional<std::string> get_nonempty(const std::string& name) const;
  /// Whether this process runs with privileges its caller may not have: setuid, setgid or file
  /// capabilities (getauxval(AT_SECURE) != 0 for the process; set by tests on a map).
  virtual bool secure() const = 0;
  /// A variable that names a library or a directory libraries are loaded from: get_nonempty(),
  /// except nullopt whenever secure() (secure_getenv() semantics).
  std::optional<std::string> library_override(const std::string& name) const;
};

/// This process's environment (getenv; secure() from getauxval(AT_SECURE)). Lives for the whole program; safe to call from several
/// threads as long as nothing changes the environment meanwhile (setenv is not thread-safe).
const Environment& process_environment();

/// An Environment from a map (the fake of tests; also for a child's scripted environment).
class MapEnvironment final : public Environment {
 public:
  MapEnvironment() = default;
  /// `secure`: pretend to run setuid/setgid (AT_SECURE), as a test of that case does.
  explicit MapEnvironment(std::map<std::string, std::string> vars, bool secure = false)
      : vars_(std::move(vars)), secure_(secure) {}
  std::optional<std::string> get(const std::string& name) const override;
  bool secure() const override { return secure_; }

 private:
  std::map<std::string, std::string> vars_;
  bool secure_ = false;
};

}  // namespace fabdiag
