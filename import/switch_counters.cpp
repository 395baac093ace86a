#include "import/switch_counters.h"

#include <cstdio>

namespace fabdiag {

std::string switch_port_subject(const std::string& switch_name, const std::string& port) {
  return switch_name.empty() ? port : switch_name + " " + port;
}

std::string format_g3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace fabdiag
