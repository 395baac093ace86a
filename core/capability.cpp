#include "core/capability.h"

#include <nlohmann/json.hpp>

namespace fabdiag {

void to_json(nlohmann::json& j, const Capability& c) {
  j = nlohmann::json{{"name", c.name},       {"compiled", c.compiled}, {"loaded", c.loaded},
                     {"version", c.version}, {"detail", c.detail},     {"why_not", c.why_not}};
}

}  // namespace fabdiag
