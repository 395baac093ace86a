#include "import/host_facts_merge.h"

#include <algorithm>
#include <utility>

namespace fabdiag {

namespace {

// Key of a record whose own key (`named`) is empty: the k-th key-less one of its kind within
// `scope`. '\x1f' cannot appear in a BDF or a device name, so the two kinds of keys never meet.
std::string key_or_position(const std::string& named, const std::string& scope, size_t& unnamed) {
  if (!named.empty()) return named;
  return "\x1f" + scope + "\x1f" + std::to_string(unnamed++);
}

// Puts every record of `more` into `into` under the key `key_of` gives it (empty = key-less).
template <class T, class KeyOf>
void put_all(std::optional<std::vector<T>>& into, std::optional<std::vector<T>>& more, LatestRecords& index,
             const std::string& scope, KeyOf key_of) {
  if (!more) return;
  if (!into) into.emplace();
  size_t unnamed = 0;
  for (auto& rec : *more) {
    std::string key = key_or_position(key_of(rec), scope, unnamed);
    index.put(*into, key, std::move(rec));
  }
}

std::string port_key(const RdmaPortFacts& p) {
  if (p.ibdev.empty()) return p.device;
  return p.ibdev + "/" + std::to_string(p.port);
}

std::string counter_key(const CounterChange& c) {
  return c.counter.device + "|" + std::to_string(static_cast<int>(c.counter.group)) + "|" + c.counter.name;
}

}  // namespace

void HostFactsMerge::add(HostFacts more, const std::string& scope) {
  add_origin(std::move(more.origin));
  put_all(facts_.pcie_links, more.pcie_links, links_, scope, [](const PcieLinkSubject& l) { return l.bdf; });
  put_all(facts_.acs_ports, more.acs_ports, acs_, scope, [](const AcsPort& p) { return p.bdf; });
  put_all(facts_.aer, more.aer, aer_, scope, [](const AerSubject& a) { return a.bdf; });
  put_all(facts_.rdma_ports, more.rdma_ports, ports_, scope, port_key);
  put_all(facts_.counters, more.counters, counters_, scope, counter_key);
  if (!facts_.gdr && more.gdr) facts_.gdr = std::move(more.gdr);
  if (!facts_.iommu && more.iommu) facts_.iommu = std::move(more.iommu);
  for (auto& w : more.wc_errors) facts_.wc_errors.push_back(std::move(w));
  for (auto& g : more.gaps) {
    std::string kind = error_kind(g.message);
    gaps_.add(kind, std::move(g));
  }
  for (auto& [fact, why] : more.not_read) facts_.not_read.emplace(fact, std::move(why));
}

void HostFactsMerge::add_origin(std::string origin) {
  if (origin.empty() || std::find(origins_.begin(), origins_.end(), origin) != origins_.end()) return;
  if (origins_.size() < kMaxOrigins) origins_.push_back(std::move(origin));
  else origins_not_listed_.insert(std::move(origin));
}

HostFacts HostFactsMerge::take() {
  std::string origin;
  for (const auto& o : origins_) origin += (origin.empty() ? "" : "; ") + o;
  if (!origins_not_listed_.empty())
    origin += "; ... and " + std::to_string(origins_not_listed_.size()) + " more";
  HostFacts out = std::move(facts_);
  out.origin = std::move(origin);
  out.gaps = gaps_.take();
  *this = HostFactsMerge(0);
  return out;
}

size_t HostFactsMerge::replaced() const {
  return links_.replaced() + acs_.replaced() + aer_.replaced() + ports_.replaced() + counters_.replaced();
}

}  // namespace fabdiag
