#include "perf/collective.h"

namespace fabdiag::perf {

namespace {
constexpr Collective kAll[] = {Collective::kAllReduce, Collective::kAllGather,
                               Collective::kReduceScatter, Collective::kAlltoall,
                               Collective::kBroadcast, Collective::kReduce, Collective::kSendrecv,
                               Collective::kGather,    Collective::kScatter,  Collective::kHypercube};
}  // namespace

const char* to_string(Collective c) {
  switch (c) {
    case Collective::kAllReduce: return "all_reduce";
    case Collective::kAllGather: return "all_gather";
    case Collective::kReduceScatter: return "reduce_scatter";
    case Collective::kAlltoall: return "alltoall";
    case Collective::kBroadcast: return "broadcast";
    case Collective::kReduce: return "reduce";
    case Collective::kSendrecv: return "sendrecv";
    case Collective::kGather: return "gather";
    case Collective::kScatter: return "scatter";
    case Collective::kHypercube: return "hypercube";
  }
  return "?";
}

std::optional<Collective> parse_collective(std::string_view s) {
  for (Collective c : kAll)
    if (s == to_string(c)) return c;
  return std::nullopt;
}

std::vector<std::string> collective_names() {
  std::vector<std::string> out;
  for (Collective c : kAll) out.emplace_back(to_string(c));
  return out;
}

bool has_root(Collective c) {
  return c == Collective::kBroadcast || c == Collective::kReduce || c == Collective::kGather ||
         c == Collective::kScatter;
}

}  // namespace fabdiag::perf
