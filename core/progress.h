// Progress reporting without printing: library code calls a Progress sink; cmd/ decides where
// it goes (stderr), so nothing below cmd/ writes to a stream.
#pragma once

#include <functional>
#include <string>

namespace fabdiag {

/// Receives one human-readable progress line ("round 2/4: 4 pairs"). Never null: use
/// `no_progress()` to discard.
using Progress = std::function<void(const std::string& line)>;

/// A sink that drops every line.
inline Progress no_progress() {
  return [](const std::string&) {};
}

}  // namespace fabdiag
