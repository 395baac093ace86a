#include "probes/counters/counter_movers.h"

#include <algorithm>

namespace fabdiag {

int mover_category_rank(CounterCategory c) {
  switch (c) {
    case CounterCategory::kPhyError: return 0;
    case CounterCategory::kLink: return 1;
    case CounterCategory::kRetransmit: return 2;
    case CounterCategory::kDiscard: return 3;
    case CounterCategory::kPause: return 4;
    case CounterCategory::kCnp: return 5;
    case CounterCategory::kEcn: return 6;
    case CounterCategory::kOther:
    case CounterCategory::kUnknown: return 7;
    case CounterCategory::kTraffic: return 8;
  }
  return 7;
}

std::vector<const CounterChange*> rank_movers(const std::vector<CounterChange>& changes,
                                              std::optional<CounterCategory> only, size_t top) {
  std::vector<const CounterChange*> out;
  for (const auto& c : changes) {
    if (only && c.counter.category != *only) continue;
    if (c.delta && *c.delta > 0) out.push_back(&c);
  }
  auto speed = [](const CounterChange* c) {
    return c->rate_per_s ? *c->rate_per_s : static_cast<double>(*c->delta);
  };
  std::sort(out.begin(), out.end(), [&](const CounterChange* a, const CounterChange* b) {
    int ra = mover_category_rank(a->counter.category), rb = mover_category_rank(b->counter.category);
    if (ra != rb) return ra < rb;
    double sa = speed(a), sb = speed(b);
    if (sa != sb) return sa > sb;
    if (a->counter.device != b->counter.device) return a->counter.device < b->counter.device;
    return a->counter.name < b->counter.name;
  });
  if (top > 0 && out.size() > top) out.resize(top);
  return out;
}

}  // namespace fabdiag
