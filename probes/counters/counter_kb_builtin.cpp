// counter_kb(): the knowledge base compiled into the binary. The build parses
// probes/counters/data/counters.json (probes/counters/data/generate_counter_kb.cpp) into the rows
// of build/generated/probes/counter_kb_rows.cpp; this file builds the base from them once.
#include <cstddef>

#include "probes/counters/counter_kb.h"
#include "probes/counters/counter_kb_rows.h"

namespace fabdiag {

namespace embedded {
extern const unsigned char kCounterKbJson[];
extern const std::size_t kCounterKbJsonSize;
extern const CounterKbRows kCounterKbRows;
}  // namespace embedded

std::string_view embedded_counter_kb_json() {
  return {reinterpret_cast<const char*>(embedded::kCounterKbJson), embedded::kCounterKbJsonSize};
}

// Never destroyed: freeing its ~900 entries at exit would cost more than building them.
const CounterKnowledgeBase& counter_kb() {
  static const CounterKnowledgeBase* kb = new CounterKnowledgeBase(counter_kb_from_rows(embedded::kCounterKbRows));
  return *kb;
}

const Error* counter_kb_error() { return nullptr; }

}  // namespace fabdiag
