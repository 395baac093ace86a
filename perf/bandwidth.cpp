#include "perf/bandwidth.h"

namespace fabdiag::perf {

namespace {

enum class Factor { kTwoNMinusOneOverN, kNMinusOneOverN, kOne };

struct FactorRow {
  const char* collective;  // fabdiag name (perf/collective.h to_string)
  Factor factor;
};

// The table of bandwidth.h, in nccl-tests' order.
constexpr FactorRow kFactors[] = {
    {"all_reduce", Factor::kTwoNMinusOneOverN}, {"all_gather", Factor::kNMinusOneOverN},
    {"reduce_scatter", Factor::kNMinusOneOverN}, {"alltoall", Factor::kNMinusOneOverN},
    {"broadcast", Factor::kOne},                 {"reduce", Factor::kOne},
    {"sendrecv", Factor::kOne},                  {"gather", Factor::kNMinusOneOverN},
    {"scatter", Factor::kNMinusOneOverN},        {"hypercube", Factor::kOne},
};

const FactorRow* row_of(std::string_view collective) {
  for (const auto& r : kFactors)
    if (collective == r.collective) return &r;
  return nullptr;
}

const char* formula(Factor f) {
  switch (f) {
    case Factor::kTwoNMinusOneOverN: return "2(n-1)/n";
    case Factor::kNMinusOneOverN: return "(n-1)/n";
    case Factor::kOne: return "1";
  }
  return "1";
}

}  // namespace

double busbw_factor(Collective c, int n_ranks) {
  const double n = n_ranks < 1 ? 1.0 : static_cast<double>(n_ranks);
  const FactorRow* r = row_of(to_string(c));
  switch (r ? r->factor : Factor::kOne) {
    case Factor::kTwoNMinusOneOverN: return 2.0 * (n - 1.0) / n;
    case Factor::kNMinusOneOverN: return (n - 1.0) / n;
    case Factor::kOne: return 1.0;
  }
  return 1.0;
}

double algbw_factor(Collective c, int n_ranks) {
  const double n = n_ranks < 1 ? 1.0 : static_cast<double>(n_ranks);
  return c == Collective::kHypercube ? (n - 1.0) / n : 1.0;
}

const char* algbw_factor_formula(Collective c) { return c == Collective::kHypercube ? "(n-1)/n" : "1"; }

const char* busbw_factor_formula(Collective c) {
  const char* f = busbw_factor_formula(std::string_view(to_string(c)));
  return f ? f : "1";
}

const char* busbw_factor_formula(std::string_view collective) {
  const FactorRow* r = row_of(collective);
  return r ? formula(r->factor) : nullptr;
}

const std::vector<std::string>& nccl_tests_collective_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& r : kFactors) out.emplace_back(r.collective);
    return out;
  }();
  return names;
}

double algbw_bytes_per_s(double size_bytes, double time_s) {
  if (!(time_s > 0)) return 0.0;
  return size_bytes / time_s;
}

double algbw_bytes_per_s(Collective c, double size_bytes, double time_s, int n_ranks) {
  return algbw_bytes_per_s(size_bytes, time_s) * algbw_factor(c, n_ranks);
}

double busbw_bytes_per_s(Collective c, double size_bytes, double time_s, int n_ranks) {
  return algbw_bytes_per_s(c, size_bytes, time_s, n_ranks) * busbw_factor(c, n_ranks);
}

}  // namespace fabdiag::perf
