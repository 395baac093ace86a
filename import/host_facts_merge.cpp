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

// A record read again keeps nothing of the earlier one (a later capture of the same tool says
// everything the earlier said).
template <class T>
void keep_nothing(T&, const T&) {}

// Puts every record of `more` into `into` under the key `key_of` gives it (empty = key-less);
// before one replaces a kept record, `fill(newer, kept)` may take from the kept one.
template <class T, class KeyOf, class Fill = void (*)(T&, const T&)>
void put_all(std::optional<std::vector<T>>& into, std::optional<std::vector<T>>& more, LatestRecords& index,
             const std::string& scope, KeyOf key_of, Fill fill = keep_nothing<T>) {
  if (!more) return;
  if (!into) into.emplace();
  size_t unnamed = 0;
  for (auto& rec : *more) {
    std::string key = key_or_position(key_of(rec), scope, unnamed);
    if (const T* earlier = index.kept(*into, key)) fill(rec, *earlier);
    index.put(*into, key, std::move(rec));
  }
}

template <class V>
void fill_if_unknown(V& newer, const V& earlier) {
  if (newer == V{}) newer = earlier;
}

// The tools tell different parts of a port (ibstat its rate, ibv_devinfo its MTU, `-v` its
// GIDs): a later record of the same port takes the state it reports, and what it does not
// report (empty, nullopt) from the earlier one, so reading ibstat then ibv_devinfo loses no rate.
void fill_port(RdmaPortFacts& newer, const RdmaPortFacts& earlier) {
  fill_if_unknown(newer.model, earlier.model);
  fill_if_unknown(newer.board_id, earlier.board_id);
  fill_if_unknown(newer.fw_ver, earlier.fw_ver);
  fill_if_unknown(newer.link_layer, earlier.link_layer);
  fill_if_unknown(newer.state, earlier.state);
  fill_if_unknown(newer.phys_state, earlier.phys_state);
  if (newer.rate.empty() && !newer.rate_gbps) {
    newer.rate = earlier.rate;
    newer.rate_gbps = earlier.rate_gbps;
  }
  fill_if_unknown(newer.netdev, earlier.netdev);
  fill_if_unknown(newer.netdev_mtu_bytes, earlier.netdev_mtu_bytes);
  fill_if_unknown(newer.active_mtu_bytes, earlier.active_mtu_bytes);
  fill_if_unknown(newer.rocev2_gids, earlier.rocev2_gids);
  fill_if_unknown(newer.lid, earlier.lid);
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
  put_all(facts_.rdma_ports, more.rdma_ports, ports_, scope, port_key, fill_port);
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
