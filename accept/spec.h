// The acceptance spec of a SKU (`fabdiag accept --spec SPEC.yaml`, docs/accept.md#the-spec):
// what every node must have (GPUs, NICs, NVLinks, port rate and width, PCIe per device kind,
// GPU:NIC rails, MTUs, GPUDirect RDMA) and what the cluster must deliver (busbw floors per
// collective and size, pair bandwidth, allowed counter growth over the soak). A member left
// out of the spec is not checked; a delivery number left out is derived from the measured
// topology (accept/expected.h), never typed in by fabdiag.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace fabdiag::accept {

/// PCIe link the SKU promises for one kind of device (the link as negotiated, see
/// docs/accept.md#what-each-check-reads).
struct PcieSpec {
  std::optional<int> gen;    ///< PCIe generation 1..6 (Gen5 = 32 GT/s per lane).
  std::optional<int> width;  ///< Lanes (16).
};

/// What every node must have. Each nullopt member is not checked.
struct NodeSpec {
  std::optional<int> gpus;                 ///< GPUs (topo devices of kind gpu).
  std::optional<int> nics;                 ///< RDMA NICs (topo devices of kind nic with an RDMA device).
  std::optional<int> nvlinks_per_gpu;      ///< Active NVLinks of every GPU (NVML).
  std::optional<double> port_rate_gbit_per_s;  ///< Rate of every active RDMA port, Gb/s (400 for NDR).
  std::optional<int> port_width;           ///< Lanes of every RDMA port (4 for "4X").
  std::optional<std::string> link_layer;   ///< "InfiniBand" or "Ethernet".
  std::map<std::string, PcieSpec> pcie;    ///< By device kind: "gpu", "nic".
  std::optional<int> gpus_per_nic;         ///< GPU:NIC rails: at most this many GPUs share a local NIC.
  std::optional<int> active_mtu_bytes;     ///< RDMA active MTU of every port (4096).
  std::optional<int> netdev_mtu_bytes;     ///< MTU of every RDMA port's netdev (9000 on RoCE).
  std::optional<bool> gdr;                 ///< GPUDirect RDMA must (true) be possible.
};

/// A busbw floor of one collective at one size.
struct BusbwSpec {
  std::string collective;  ///< "all_reduce", "all_gather", "reduce_scatter", "alltoall", ...
  uint64_t size_bytes = 0;
  /// The floor, bytes/s; nullopt = derived from the topology (accept/expected.h).
  std::optional<double> min_busbw_bytes_per_s;
  int line = 0;  ///< Where the entry is in the spec (for messages), 1-based.
};

/// What the cluster must deliver.
struct DeliverSpec {
  /// Fraction of the line rate a derived floor asks for (docs/accept.md#derived-expectations).
  double efficiency = 0.8;
  std::vector<BusbwSpec> busbw;
  bool pair_checked = false;  ///< The spec has a `pair` entry (pair bandwidth is checked).
  /// Pair floor per direction, bytes/s; nullopt with pair_checked = derived.
  std::optional<double> pair_min_bytes_per_s;
  /// Allowed growth over the soak per counter name ("symbol_error": 0), summed over a node's
  /// ports; a counter named here and not read on a node is not checked there.
  std::map<std::string, double> counter_growth_max;
};

/// A parsed spec.
struct Spec {
  std::string name;   ///< `name:`; "" when not given.
  std::string file;   ///< Where it was read (for evidence).
  NodeSpec node;
  DeliverSpec deliver;
};

/// Reads SPEC.yaml (docs/accept.md#the-spec). Errors: kNotFound / kIo (file), kParse
/// "FILE:LINE:COLUMN: KEY: what is wrong" for YAML syntax, an unknown key (typos never pass
/// silently), a value of the wrong type or out of range; kUnsupported when this binary was
/// built without yaml-cpp.
Result<Spec> load_spec(const std::string& path);

/// load_spec() of text already read; `file` names it in messages.
Result<Spec> parse_spec(const std::string& text, const std::string& file);

/// PCIe generation -> GT/s per lane (1: 2.5, 2: 5, 3: 8, 4: 16, 5: 32, 6: 64); nullopt outside.
std::optional<double> pcie_gen_gts(int gen);

}  // namespace fabdiag::accept
