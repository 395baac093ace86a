// Expected delivery derived from the measured topology, for the spec entries that give no
// number (docs/accept.md#derived-expectations): rail port rate x rails x efficiency, with the
// alltoall and single-node (NVLink) caveats. Pure functions over the `data` of fabdiag.topo/1.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace fabdiag::accept {

/// What the derivations read of one node's topology.
struct NodeNetwork {
  int gpus = 0;                        ///< Devices of kind gpu.
  int rails = 0;                       ///< Active RDMA ports of GPU-local NICs (every RDMA NIC when no GPU).
  double rail_bytes_per_s = 0;         ///< Sum of those ports' rates, bytes/s (Gb/s / 8).
  double fastest_port_bytes_per_s = 0; ///< The fastest of them, bytes/s.
  std::string source;                  ///< "topo <file>: 8 rails x 400 Gb/s".
};

/// The rails of a fabdiag.topo/1 `data`: active ports (state "4: ACTIVE") with a known rate of
/// NICs with an RDMA device that data.rails does not list as far from every GPU. nullopt when
/// `topo` has no devices array.
std::optional<NodeNetwork> node_network(const nlohmann::json& topo, const std::string& source);

/// A derived expectation: the value (bytes/s) and how it was made, or why none could be.
struct Derived {
  std::optional<double> bytes_per_s;
  std::string formula;  ///< "0.8 x 8 rails x 50 GB/s (min over 2 nodes)"; with a value.
  std::string reason;   ///< Why no value: "single node: ..."; without one.
};

/// Expected busbw of `collective` measured with `ranks` ranks on `nodes` distinct hosts, from the
/// slowest node's network `slowest` (the node with the smallest rail_bytes_per_s of the run):
///  - ring collectives (all_reduce, all_gather, reduce_scatter, broadcast, reduce): one ring
///    per rail, so busbw = efficiency x rail_bytes_per_s;
///  - alltoall: each rank sends (ranks - g)/ranks of its data off the node through its share
///    of the rails (g = ranks per node): busbw = efficiency x rail_bytes_per_s / g x
///    (ranks - 1) / (ranks - g);
///  - sendrecv and anything else: not derived.
/// Not derived on one node (the traffic never crosses the network: NVLink or shared memory, whose
/// rate the topology does not carry), with no rail, or fewer than 2 ranks.
Derived derive_busbw(const std::string& collective, int ranks, int nodes, const std::optional<NodeNetwork>& slowest,
                     double efficiency);

/// Expected bandwidth of a pair per direction (`fabdiag pairwise` runs one rank per node, one
/// path): efficiency x the smaller of the two nodes' fastest rail port. Not derived when either
/// node's topology or rails are missing.
Derived derive_pair(const std::optional<NodeNetwork>& a, const std::optional<NodeNetwork>& b, double efficiency);

}  // namespace fabdiag::accept
