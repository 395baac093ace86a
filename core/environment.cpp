#include "core/environment.h"

#include <sys/auxv.h>

#include <cstdlib>

namespace fabdiag {

namespace {
class ProcessEnvironment final : public Environment {
 public:
  std::optional<std::string> get(const std::string& name) const override {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  }
  bool secure() const override { return getauxval(AT_SECURE) != 0; }
};
}  // namespace

std::optional<std::string> Environment::get_nonempty(const std::string& name) const {
  auto v = get(name);
  if (v && v->empty()) return std::nullopt;
  return v;
}

std::optional<std::string> Environment::library_override(const std::string& name) const {
  if (secure()) return std::nullopt;
  return get_nonempty(name);
}

const Environment& process_environment() {
  static const ProcessEnvironment env;
  return env;
}

std::optional<std::string> MapEnvironment::get(const std::string& name) const {
  auto it = vars_.find(name);
  if (it == vars_.end()) return std::nullopt;
  return it->second;
}

}  // namespace fabdiag
