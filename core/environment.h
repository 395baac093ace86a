// Environment variables behind one interface: every lookup of the process environment in the
// tree (FABDIAG_NVML_LIB, FABDIAG_BASELINE_DIR, XDG_DATA_HOME, HOME, NCCL_HOME, CUDA_HOME,
// OMPI_COMM_WORLD_RANK and the other launchers' rank variables) goes through an Environment,
// passed to the code that needs it, so tests give a map instead of changing the process.
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
};

/// This process's environment (getenv). Lives for the whole program; safe to call from several
/// threads as long as nothing changes the environment meanwhile (setenv is not thread-safe).
const Environment& process_environment();

/// An Environment from a map (the fake of tests; also for a child's scripted environment).
class MapEnvironment final : public Environment {
 public:
  MapEnvironment() = default;
  explicit MapEnvironment(std::map<std::string, std::string> vars) : vars_(std::move(vars)) {}
  std::optional<std::string> get(const std::string& name) const override;

 private:
  std::map<std::string, std::string> vars_;
};

}  // namespace fabdiag
