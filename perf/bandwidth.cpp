#include "perf/bandwidth.h"

namespace fabdiag::perf {

double busbw_factor(Collective c, int n_ranks) {
  const double n = n_ranks < 1 ? 1.0 : static_cast<double>(n_ranks);
  switch (c) {
    case Collective::kAllReduce: return 2.0 * (n - 1.0) / n;
    case Collective::kReduceScatter:
    case Collective::kAllGather:
    case Collective::kAlltoall: return (n - 1.0) / n;
    case Collective::kBroadcast:
    case Collective::kReduce:
    case Collective::kSendrecv: return 1.0;
  }
  return 1.0;
}

const char* busbw_factor_formula(Collective c) {
  switch (c) {
    case Collective::kAllReduce: return "2(n-1)/n";
    case Collective::kReduceScatter:
    case Collective::kAllGather:
    case Collective::kAlltoall: return "(n-1)/n";
    case Collective::kBroadcast:
    case Collective::kReduce:
    case Collective::kSendrecv: return "1";
  }
  return "1";
}

double algbw_bytes_per_s(double size_bytes, double time_s) {
  if (!(time_s > 0)) return 0.0;
  return size_bytes / time_s;
}

double busbw_bytes_per_s(Collective c, double size_bytes, double time_s, int n_ranks) {
  return algbw_bytes_per_s(size_bytes, time_s) * busbw_factor(c, n_ranks);
}

}  // namespace fabdiag::perf
